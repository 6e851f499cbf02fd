// SPDX-License-Identifier: MIT
/*
 * fuzz_framework.c - fuzz target for the framework profile reader
 * (prism_framework_from_data, the parser behind --framework FILE). Built with libFuzzer when
 * PRISM_FUZZ=ON and the compiler is clang; always built into fuzz_framework_replay, which
 * CTest runs over tests/fuzz/corpus/framework. Any input must give either a profile or a
 * PRISM_INPUT_ERROR, never both, never a crash; a profile must hold what its readers rely
 * on: a title, every knob (and every [knobs.FAMILY] knob) finite and inside its documented
 * range, searched overlap options a subset of the supported ones, a finite non-negative
 * allocator reserve, and defaults that are a value >= 0, none (planned) or, for the
 * micro-batch only, local.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <prism/core.h>
#include <prism/framework.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_knobs(const PrismKnobs *k)
{
    for (int i = 0; i < PRISM_KNOB_COUNT; i++) {
        const PrismKnobInfo *info = prism_knob_info((PrismKnobId)i);
        if (!isfinite(k->v[i]) || k->v[i] < info->min || k->v[i] > info->max)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GError *error = NULL;
    PrismFramework *fw =
        prism_framework_from_data((const char *)data, size, "fuzz/fuzz.ini", &error);
    if ((fw == NULL) == (error == NULL))
        abort();
    if (error != NULL && error->domain != PRISM_INPUT_ERROR)
        abort();
    if (fw != NULL) {
        if (fw->title == NULL || g_strcmp0(fw->name, "fuzz") != 0)
            abort();
        check_knobs(&fw->knobs);
        for (unsigned d = 0; d < fw->n_dev; d++) {
            if (fw->dev[d].family == NULL)
                abort();
            check_knobs(&fw->dev[d].knobs);
        }
        if ((fw->overlap_search & ~fw->overlap) != 0)
            abort();
        if (!isfinite(fw->knobs.v[PRISM_KNOB_ALLOCATOR_RESERVE]) ||
            fw->knobs.v[PRISM_KNOB_ALLOCATOR_RESERVE] < 0)
            abort();
        for (int i = 0; i < PRISM_FW_DIM_COUNT; i++)
            if (fw->def[i] < 0 && fw->def[i] != PRISM_FW_NONE &&
                !(i == PRISM_FW_MICRO_BATCH && fw->def[i] == PRISM_FW_MBS_LOCAL))
                abort();
    }
    prism_framework_free(fw);
    g_clear_error(&error);
    return 0;
}
