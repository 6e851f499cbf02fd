// SPDX-License-Identifier: MIT
/*
 * test_comm.c - the MPI wrapper at 1-4 ranks: agreement when one rank fails (no hang,
 * every rank FALSE, the failing rank keeps its error), error propagation, exscan and the
 * block partition.
 */
#include <CUnit/CUnit.h>

#include <string.h>

#include <prism/comm.h>
#include <prism/core.h>

#include "../../src/app/app-internal.h"
#include "prism_test_util.h"

static void test_agree_one_rank_fails(void)
{
    PrismComm *comm = prism_test_comm();
    int bad = comm->size - 1; /* the last rank fails */
    GError *error = NULL;
    if (comm->rank == bad)
        g_set_error(&error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE, "local failure on %d",
                    comm->rank);
    gboolean ok = prism_comm_agree(comm, comm->rank != bad, &error);
    CU_ASSERT_FALSE(ok);
    CU_ASSERT_PTR_NOT_NULL(error);
    if (comm->rank == bad) {
        CU_ASSERT_TRUE(g_error_matches(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE));
    } else {
        CU_ASSERT_TRUE(
            g_error_matches(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_PEER_FAILED));
    }
    g_clear_error(&error);
    CU_ASSERT_TRUE(prism_comm_agree(comm, TRUE, &error));
}

static void test_agree_error_propagates(void)
{
    PrismComm *comm = prism_test_comm();
    int bad = comm->size / 2;
    GError *error = NULL;
    if (comm->rank == bad)
        g_set_error(&error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_FILE, "file x.json missing");
    CU_ASSERT_FALSE(prism_comm_agree_error(comm, &error));
    CU_ASSERT_TRUE(g_error_matches(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_FILE));
    CU_ASSERT_STRING_EQUAL(error ? error->message : "", "file x.json missing");
    g_clear_error(&error);
}

static void test_exscan_and_partition(void)
{
    PrismComm *comm = prism_test_comm();
    uint64_t off = 99;
    CU_ASSERT_TRUE(prism_comm_exscan_u64(comm, (uint64_t)comm->rank + 1, &off, NULL));
    /* sum_{r < rank} (r+1) = rank*(rank+1)/2 */
    CU_ASSERT_EQUAL(off, (uint64_t)comm->rank * (uint64_t)(comm->rank + 1) / 2);
    /* The partition covers [0, n) exactly once, in rank order, sizes differ by <= 1. */
    for (uint64_t n = 0; n < 50; n++)
        for (int size = 1; size <= 5; size++) {
            uint64_t expect = 0;
            for (int r = 0; r < size; r++) {
                uint64_t lo, hi;
                prism_partition_block(n, r, size, &lo, &hi);
                CU_ASSERT_EQUAL(lo, expect);
                CU_ASSERT_TRUE(hi - lo == n / (uint64_t)size || hi - lo == n / (uint64_t)size + 1);
                expect = hi;
            }
            CU_ASSERT_EQUAL(expect, n);
        }
}

/* Parse ARGS with the shared options and load the inputs, as a command does. */
static gboolean load(PrismComm *comm, const char *const *args, PrismInputs *in, GError **error)
{
    PrismCommonOptions o = {.flags = PRISM_OPT_ALL_INPUTS};
    GOptionContext *ctx = g_option_context_new(NULL);
    prism_app_add_common_options(ctx, &o);
    int argc = (int)g_strv_length((char **)args);
    char **argv = g_strdupv((char **)args);
    /* GOption removes parsed entries from argv without freeing them: keep every string. */
    char **keep = g_memdup2(argv, sizeof(char *) * ((size_t)argc + 1));
    gboolean ok =
        prism_app_parse(ctx, &argc, &argv, error) && prism_app_load_inputs(comm, &o, in, error);
    g_free(argv);
    g_strfreev(keep);
    g_option_context_free(ctx);
    prism_common_options_clear(&o);
    return ok;
}

static void test_load_inputs_fail_rank(void)
{
    /* Rank R = min(2, size-1) fails while loading; every rank must return FALSE with
     * the same bad-input error (exit status 2), and no rank may hang. */
    PrismComm *comm = prism_test_comm();
    int bad = comm->size > 2 ? 2 : comm->size - 1;
    char value[16];
    g_snprintf(value, sizeof value, "%d", bad);
    g_setenv("PRISM_TEST_FAIL_RANK", value, TRUE);
    static const char *const args[] = {"prism test", NULL};
    PrismInputs in;
    GError *error = NULL;
    gboolean ok = load(comm, args, &in, &error);
    g_unsetenv("PRISM_TEST_FAIL_RANK");
    g_autofree char *expect = g_strdup_printf("rank %d: injected input failure", bad);
    gboolean good = !ok && g_error_matches(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_FILE) &&
                    strstr(error->message, expect) != NULL && in.model == NULL;
    CU_ASSERT_TRUE(prism_test_all(good));
    g_clear_error(&error);

    /* Without the hook, the default example loads on every rank. */
    ok = load(comm, args, &in, &error);
    good = ok && in.model != NULL && strcmp(in.model->name, "gpt3-175b") == 0 &&
           in.n_devices == 1 && in.devices[0] == 1024 && in.training.gbs == 1536;
    CU_ASSERT_TRUE(prism_test_all(good));
    prism_inputs_clear(&in);
    g_clear_error(&error);
}

static void test_load_inputs_bad_file(void)
{
    /* A malformed config.json read by every rank: all ranks report it. */
    PrismComm *comm = prism_test_comm();
    g_autofree char *path = prism_test_data_path("bad/hf-truncated.json");
    const char *const args[] = {"prism test", "--model", path, NULL};
    PrismInputs in;
    GError *error = NULL;
    gboolean ok = load(comm, args, &in, &error);
    gboolean good = !ok && g_error_matches(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE) &&
                    strstr(error->message, path) != NULL;
    CU_ASSERT_TRUE(prism_test_all(good));
    g_clear_error(&error);
}

static CU_TestInfo comm_tests[] = {
    {"load_inputs: one failing rank fails all", test_load_inputs_fail_rank},
    {"load_inputs: a bad file fails all", test_load_inputs_bad_file},
    {"agree: one rank fails", test_agree_one_rank_fails},
    {"agree_error: message propagates", test_agree_error_propagates},
    {"exscan and block partition", test_exscan_and_partition},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"comm", NULL, NULL, NULL, NULL, comm_tests},
    CU_SUITE_INFO_NULL,
};
