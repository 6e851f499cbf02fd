// SPDX-License-Identifier: MIT
/*
 * fuzz_cluster.c - fuzz target for the cluster key-file reader (prism_cluster_from_data).
 * Built with libFuzzer when PRISM_FUZZ=ON and the compiler is clang; always built into
 * fuzz_cluster_replay, which CTest runs over tests/fuzz/corpus/cluster. Any input must
 * give either a valid cluster or a PRISM_INPUT_ERROR, never both, never a crash.
 */
#include <stdint.h>
#include <stdlib.h>

#include <prism/cluster.h>
#include <prism/core.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GError *error = NULL;
    PrismCluster *c = prism_cluster_from_data((const char *)data, size, "fuzz.ini", &error);
    if ((c == NULL) == (error == NULL))
        abort();
    if (error != NULL && error->domain != PRISM_INPUT_ERROR)
        abort();
    if (c != NULL) {
        if (!prism_cluster_validate(c, NULL) || c->n_levels == 0 || c->n_levels > PRISM_MAX_LEVELS)
            abort();
        /* every extent maps to a level */
        if (prism_cluster_level_for_extent(c, 1e12) >= c->n_levels)
            abort();
    }
    prism_cluster_free(c);
    g_clear_error(&error);
    return 0;
}
