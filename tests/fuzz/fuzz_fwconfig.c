// SPDX-License-Identifier: MIT
/*
 * fuzz_fwconfig.c - fuzz target for the framework configuration readers of --from
 * (prism_fwconfig_from_data: the TOML subset, libyaml, json-glib and the shell command-line
 * reader). Built with libFuzzer when PRISM_FUZZ=ON and the compiler is clang; always built
 * into fuzz_fwconfig_replay, which CTest runs over tests/fuzz/corpus/fwconfig and the
 * goldens of tests/golden/fwconfig. Each input is read as each format (the file name picks
 * it) and must give either a configuration or one PRISM_INPUT_ERROR, never both, never a
 * crash. A configuration must hold a strategy the shape rules accept, and where its target
 * writes it back, reading that again gives the same strategy and training setup.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <prism/core.h>
#include <prism/fwconfig.h>
#include <prism/model.h>
#include <prism/strategy.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_one(const char *text, size_t size, const char *path, const PrismModel *m)
{
    PrismTraining tr;
    prism_training_default(&tr);
    GError *error = NULL;
    PrismRunConfig *c = prism_fwconfig_from_data(text, size, path, 64, &tr, m, &error);
    if ((c == NULL) == (error == NULL))
        abort();
    if (error != NULL && error->domain != PRISM_INPUT_ERROR)
        abort();
    g_clear_error(&error);
    if (c == NULL)
        return;
    if (!prism_strategy_check(&c->strategy, m, &c->training, NULL))
        abort();
    char *again = prism_fwconfig_emit(c->target, &c->strategy, &c->training, m, &error);
    if (again == NULL) {
        if (error == NULL || error->domain != PRISM_INPUT_ERROR)
            abort();
        g_clear_error(&error);
    } else {
        static const char *const names[PRISM_FWC_COUNT] = {"a.txt", "o.txt", "j.toml", "d.sh",
                                                           "c.yaml"};
        PrismRunConfig *d = prism_fwconfig_from_data(again, strlen(again), names[c->target],
                                                     c->strategy.devices, &tr, m, &error);
        if (d == NULL || !prism_strategy_equal(&d->strategy, &c->strategy) ||
            d->training.gbs != c->training.gbs || d->training.seq != c->training.seq ||
            d->training.dtype != c->training.dtype)
            abort();
        prism_run_config_free(d);
        g_free(again);
    }
    prism_run_config_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static PrismModel *m = NULL;
    if (m == NULL)
        m = prism_model_zoo_get("gpt3-1.3b", NULL);
    if (m == NULL)
        abort();
    static const char *const paths[] = {"f.toml", "f.yaml", "f.json", "f.txt", "f"};
    for (size_t i = 0; i < G_N_ELEMENTS(paths); i++)
        check_one((const char *)data, size, paths[i], m);
    return 0;
}
