// SPDX-License-Identifier: MIT
/*
 * test_comm.c - the MPI wrapper at 1-4 ranks: agreement when one rank fails (no hang,
 * every rank FALSE, the failing rank keeps its error), error propagation, exscan and the
 * block partition; the solo communicator (no MPI call at all, the results of a one-rank
 * MPI communicator).
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

/* prism_comm_or_idle: the "or" of every rank's bit, also when one rank comes late (the
 * others sleep in their polls meanwhile) and on a solo communicator. */
static void test_or_idle(void)
{
    PrismComm *comm = prism_test_comm();
    int any = -1;
    if (comm->rank == comm->size - 1)
        g_usleep(20000); /* the others wait for it */
    CU_ASSERT_TRUE(prism_comm_or_idle(comm, 1 << comm->rank, &any, NULL));
    CU_ASSERT_EQUAL(any, (1 << comm->size) - 1); /* bits 0 .. size-1 */
    CU_ASSERT_TRUE(prism_comm_or_idle(comm, 0, &any, NULL));
    CU_ASSERT_EQUAL(any, 0);
    PrismComm *solo = prism_comm_new_solo();
    CU_ASSERT_TRUE(prism_comm_or_idle(solo, 6, &any, NULL));
    CU_ASSERT_EQUAL(any, 6);
    prism_comm_free(solo);
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

/* MPI profiling interface: while counting is on, every collective or point-to-point call
 * the wrappers could make is counted (and forwarded to PMPI), so a solo communicator is
 * seen to make none. The executable's definitions take precedence over libmpi's. */
static gboolean mpi_counting;
static int mpi_calls;

#define COUNT_CALL()                                                                               \
    do {                                                                                           \
        if (mpi_counting)                                                                          \
            mpi_calls++;                                                                           \
    } while (0)

int MPI_Allreduce(const void *in, void *out, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
    COUNT_CALL();
    return PMPI_Allreduce(in, out, n, t, op, c);
}
int MPI_Bcast(void *buf, int n, MPI_Datatype t, int root, MPI_Comm c)
{
    COUNT_CALL();
    return PMPI_Bcast(buf, n, t, root, c);
}
int MPI_Exscan(const void *in, void *out, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
    COUNT_CALL();
    return PMPI_Exscan(in, out, n, t, op, c);
}
int MPI_Barrier(MPI_Comm c)
{
    COUNT_CALL();
    return PMPI_Barrier(c);
}
int MPI_Allgather(const void *in, int n, MPI_Datatype t, void *out, int m, MPI_Datatype u,
                  MPI_Comm c)
{
    COUNT_CALL();
    return PMPI_Allgather(in, n, t, out, m, u, c);
}
int MPI_Send(const void *buf, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c)
{
    COUNT_CALL();
    return PMPI_Send(buf, n, t, dest, tag, c);
}
int MPI_Recv(void *buf, int n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Status *st)
{
    COUNT_CALL();
    return PMPI_Recv(buf, n, t, src, tag, c, st);
}

/* One pass of every wrapper on COMM; the outcomes go to OUT as text, so a solo and an MPI
 * communicator of one rank can be compared line by line. */
static void exercise(PrismComm *comm, GString *out)
{
    GError *error = NULL;
    g_string_append_printf(out, "rank %d size %d\n", comm->rank, comm->size);
    g_string_append_printf(out, "agree ok %d\n", prism_comm_agree(comm, TRUE, &error));
    g_set_error(&error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE, "local");
    gboolean ok = prism_comm_agree(comm, FALSE, &error);
    g_string_append_printf(out, "agree fail %d keeps '%s'\n", ok, error ? error->message : "-");
    g_clear_error(&error);
    g_string_append_printf(out, "agree_error ok %d\n", prism_comm_agree_error(comm, &error));
    g_set_error(&error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_FILE, "x.json missing");
    ok = prism_comm_agree_error(comm, &error);
    g_string_append_printf(out, "agree_error fail %d input %d '%s'\n", ok,
                           error != NULL && error->domain == PRISM_INPUT_ERROR,
                           error ? error->message : "-");
    g_clear_error(&error);
    const MPI_Op ops[] = {MPI_SUM, MPI_MAX, MPI_MIN, MPI_BOR};
    for (size_t i = 0; i < G_N_ELEMENTS(ops); i++) {
        uint64_t u = 0;
        double d = 0;
        gboolean a = prism_comm_allreduce_u64(comm, 41 + i, ops[i], &u, &error);
        gboolean b = i < 3 && prism_comm_allreduce_f64(comm, 2.5 * (double)i, ops[i], &d, &error);
        g_string_append_printf(out, "allreduce %zu: %d %" G_GUINT64_FORMAT " %d %.17g\n", i, a, u,
                               b, d);
    }
    uint64_t x = 99;
    ok = prism_comm_exscan_u64(comm, 7, &x, &error);
    g_string_append_printf(out, "exscan %d %" G_GUINT64_FORMAT "\n", ok, x);
    char buf[8] = "bcast!";
    ok = prism_comm_bcast_bytes(comm, buf, sizeof buf, 0, &error);
    g_string_append_printf(out, "bcast_bytes %d '%s'\n", ok, buf);
    void *blob = g_strdup("blob");
    size_t n = 5;
    ok = prism_comm_bcast_blob(comm, &blob, &n, 0, &error);
    g_string_append_printf(out, "bcast_blob %d %zu '%s'\n", ok, n, (char *)blob);
    g_free(blob);
    g_string_append_printf(out, "barrier %d\n", prism_comm_barrier(comm, &error));
    for (int mode = 0; mode < 2; mode++) {
        GByteArray *res = NULL;
        ok = prism_comm_reduce_ordered(comm, PRISM_COMM_TAG_TEST, (const guint8 *)"abc", 3, TRUE,
                                       prism_test_concat, NULL, (PrismCommReduceMode)mode, &res,
                                       &error);
        g_string_append_printf(out, "reduce mode %d: %d '%.*s'\n", mode, ok,
                               res ? (int)res->len : 0, res ? (const char *)res->data : "");
        if (res != NULL)
            g_byte_array_unref(res);
        g_set_error(&error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE, "own");
        ok = prism_comm_reduce_ordered(comm, PRISM_COMM_TAG_TEST, NULL, 0, FALSE, prism_test_concat,
                                       NULL, (PrismCommReduceMode)mode, &res, &error);
        g_string_append_printf(out, "reduce fail %d: %d %p '%s'\n", mode, ok, (void *)res,
                               error ? error->message : "-");
        g_clear_error(&error);
    }
    g_string_append_printf(out, "leftover error %s\n", error ? error->message : "none");
    g_clear_error(&error);
}

static void test_solo_matches_one_rank(void)
{
    /* Every rank runs the same comparison on its own: a solo communicator against an MPI
     * communicator of this process alone (MPI_COMM_SELF), with PRISM_COMM_DEBUG on, which a
     * solo communicator ignores (one rank cannot disagree with itself). */
    g_setenv("PRISM_COMM_DEBUG", "1", TRUE);
    GError *error = NULL;
    PrismComm *self = prism_comm_new(MPI_COMM_SELF, &error);
    g_unsetenv("PRISM_COMM_DEBUG");
    CU_ASSERT_PTR_NOT_NULL_FATAL(self);
    CU_ASSERT_TRUE(self->debug);
    PrismComm *solo = prism_comm_new_solo();
    CU_ASSERT_TRUE(prism_comm_is_solo(solo));
    CU_ASSERT_FALSE(prism_comm_is_solo(self));
    CU_ASSERT_FALSE(solo->debug);
    g_autoptr(GString) want = g_string_new(NULL);
    g_autoptr(GString) got = g_string_new(NULL);
    mpi_calls = 0;
    mpi_counting = TRUE;
    exercise(self, want);
    int self_calls = mpi_calls;
    mpi_calls = 0;
    exercise(solo, got);
    int solo_calls = mpi_calls;
    mpi_counting = FALSE;
    CU_ASSERT_STRING_EQUAL(got->str, want->str);
    CU_ASSERT_TRUE(self_calls > 20); /* the counter sees the MPI path's calls */
    CU_ASSERT_EQUAL(solo_calls, 0);
    /* Spot values derived by hand: one rank's sum/max/min/or is its value, exscan gives 0
     * on rank 0, the failing rank keeps its own error, the reduction is the payload. */
    CU_ASSERT_PTR_NOT_NULL(strstr(got->str, "allreduce 0: 1 41 1 0\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(got->str, "allreduce 2: 1 43 1 5\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(got->str, "exscan 1 0\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(got->str, "agree fail 0 keeps 'local'\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(got->str, "agree_error fail 0 input 1 'x.json missing'\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(got->str, "reduce mode 1: 1 'abc'\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(got->str, "reduce fail 0: 0 (nil) 'own'\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(got->str, "leftover error none\n"));
    prism_comm_free(solo);
    prism_comm_free(self);
}

static CU_TestInfo comm_tests[] = {
    {"solo communicator: a one-rank MPI communicator's results, no MPI call",
     test_solo_matches_one_rank},
    {"load_inputs: one failing rank fails all", test_load_inputs_fail_rank},
    {"load_inputs: a bad file fails all", test_load_inputs_bad_file},
    {"agree: one rank fails", test_agree_one_rank_fails},
    {"agree_error: message propagates", test_agree_error_propagates},
    {"exscan and block partition", test_exscan_and_partition},
    {"or_idle: the or of every rank, a late rank, solo", test_or_idle},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"comm", NULL, NULL, NULL, NULL, comm_tests},
    CU_SUITE_INFO_NULL,
};
