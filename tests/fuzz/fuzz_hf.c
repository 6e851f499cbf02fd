// SPDX-License-Identifier: MIT
/*
 * fuzz_hf.c - fuzz target for the Hugging Face config.json reader
 * (prism_model_from_hf_json). Built with libFuzzer when PRISM_FUZZ=ON and the compiler is
 * clang; always built into fuzz_hf_replay, which CTest runs over tests/fuzz/corpus/hf.
 * Any input must give either a valid model or a PRISM_INPUT_ERROR, never both, never a
 * crash; a model must validate and have finite, non-negative parameter counts.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <prism/core.h>
#include <prism/model.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GError *error = NULL;
    PrismModel *m = prism_model_from_hf_json((const char *)data, size, "fuzz.json", &error);
    if ((m == NULL) == (error == NULL))
        abort(); /* exactly one of model and error */
    if (error != NULL && error->domain != PRISM_INPUT_ERROR)
        abort();
    if (m != NULL) {
        PrismParamCount c;
        prism_model_params(m, &c);
        if (!prism_model_validate(m, NULL) || !isfinite(c.total) || c.total <= 0 ||
            !(c.active > 0) || c.active > c.total)
            abort();
        PrismModel *copy = prism_model_copy(m);
        prism_model_free(copy);
    }
    prism_model_free(m);
    g_clear_error(&error);
    return 0;
}
