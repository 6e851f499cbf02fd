// SPDX-License-Identifier: MIT
/*
 * test_comm_reduce.c - the ordered rank tree (prism_comm_reduce_ordered) and the
 * PRISM_COMM_DEBUG collective check, at 1, 2, 3 and 4 ranks: rank order of a
 * non-commutative combine, equality with a sequential fold, empty and chunked payloads,
 * a local failure and a combine failure (every rank FALSE, the right messages, and the
 * communicator still usable afterwards), and a deliberate collective mismatch.
 */
#include <limits.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <prism/comm.h>
#include <prism/core.h>

#include "prism_test_util.h"

/* Reduce @p s (one string per rank) by concatenation; the result as a string, or NULL. */
static char *reduce_string(PrismComm *comm, const char *s, PrismCommReduceMode mode, GError **error)
{
    GByteArray *out = NULL;
    if (!prism_comm_reduce_ordered(comm, PRISM_COMM_TAG_TEST, (const guint8 *)s, strlen(s), TRUE,
                                   prism_test_concat, NULL, mode, &out, error))
        return NULL;
    if (out == NULL)
        return g_strdup("(none)");
    char *r = out->len ? g_strndup((const char *)out->data, out->len) : g_strdup("");
    g_byte_array_unref(out);
    return r;
}

/* "r0r1...r{P-1}": what the rank-order concatenation must give. */
static char *expected_concat(int size)
{
    GString *e = g_string_new(NULL);
    for (int r = 0; r < size; r++)
        g_string_append_printf(e, "r%d", r);
    return g_string_free(e, FALSE);
}

static void test_concat_rank_order(void)
{
    PrismComm *comm = prism_test_comm();
    g_autofree char *mine = g_strdup_printf("r%d", comm->rank);
    g_autofree char *want = expected_concat(comm->size);
    GError *error = NULL;
    g_autofree char *all = reduce_string(comm, mine, PRISM_COMM_REDUCE_ALL, &error);
    gboolean ok = all != NULL && strcmp(all, want) == 0;
    /* Root mode: the same bytes on rank 0, nothing elsewhere. */
    g_autofree char *root = reduce_string(comm, mine, PRISM_COMM_REDUCE_ROOT, &error);
    ok = ok && root != NULL && strcmp(root, comm->rank == 0 ? want : "(none)") == 0;
    if (!ok)
        fprintf(stderr, "[rank %d] all=%s root=%s want=%s err=%s\n", comm->rank, all ? all : "NULL",
                root ? root : "NULL", want, error ? error->message : "-");
    g_clear_error(&error);
    CU_ASSERT_TRUE(prism_test_all(ok));
}

static void test_empty_payloads(void)
{
    PrismComm *comm = prism_test_comm();
    /* Odd ranks contribute "r<k>", even ranks nothing: e.g. "r1r3" at 4 ranks. */
    GString *want = g_string_new(NULL);
    for (int r = 1; r < comm->size; r += 2)
        g_string_append_printf(want, "r%d", r);
    g_autofree char *mine = comm->rank % 2 ? g_strdup_printf("r%d", comm->rank) : g_strdup("");
    GError *error = NULL;
    g_autofree char *got = reduce_string(comm, mine, PRISM_COMM_REDUCE_ALL, &error);
    gboolean ok = got != NULL && strcmp(got, want->str) == 0;
    /* Every payload empty: an empty (not missing) result on every rank. */
    GByteArray *out = NULL;
    ok = ok &&
         prism_comm_reduce_ordered(comm, PRISM_COMM_TAG_TEST, NULL, 0, TRUE, prism_test_concat,
                                   NULL, PRISM_COMM_REDUCE_ALL, &out, &error) &&
         out != NULL && out->len == 0;
    if (out)
        g_byte_array_unref(out);
    g_string_free(want, TRUE);
    g_clear_error(&error);
    CU_ASSERT_TRUE(prism_test_all(ok));
}

/* 3x3 matrices of uint64 under multiplication mod 2^64: exactly associative, not
 * commutative. The empty payload is the identity. */
#define MAT 9

static void mat_mul(const uint64_t *a, const uint64_t *b, uint64_t *c)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            uint64_t s = 0;
            for (int k = 0; k < 3; k++)
                s += a[i * 3 + k] * b[k * 3 + j];
            c[i * 3 + j] = s;
        }
}

static gboolean mat_combine(const guint8 *left, size_t left_len, const guint8 *right,
                            size_t right_len, GByteArray *out, gpointer user, GError **error)
{
    (void)user;
    if ((left_len != 0 && left_len != sizeof(uint64_t) * MAT) ||
        (right_len != 0 && right_len != sizeof(uint64_t) * MAT)) {
        g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERNAL, "bad matrix");
        return FALSE;
    }
    if (left_len == 0 || right_len == 0) { /* identity . x = x . identity = x */
        g_byte_array_append(out, left_len ? left : right, (guint)(left_len ? left_len : right_len));
        return TRUE;
    }
    uint64_t a[MAT], b[MAT], c[MAT];
    memcpy(a, left, sizeof a);
    memcpy(b, right, sizeof b);
    mat_mul(a, b, c);
    g_byte_array_append(out, (const guint8 *)c, sizeof c);
    return TRUE;
}

static void test_fold_equality(void)
{
    PrismComm *comm = prism_test_comm();
    GRand *rng = g_rand_new_with_seed(1207); /* same chain on every rank */
    gboolean all_ok = TRUE;
    for (int trial = 0; trial < 30; trial++) {
        uint64_t n = (uint64_t)g_rand_int_range(rng, 0, 12); /* often fewer than ranks */
        uint64_t *chain = g_new(uint64_t, MAT * (n ? n : 1));
        for (uint64_t i = 0; i < MAT * n; i++)
            chain[i] = ((uint64_t)g_rand_int(rng) << 32) | g_rand_int(rng);
        /* Sequential left fold of the whole chain (the oracle), and of this rank's block. */
        uint64_t seq[MAT] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, blk[MAT] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        uint64_t tmp[MAT], lo, hi;
        prism_partition_block(n, comm->rank, comm->size, &lo, &hi);
        for (uint64_t i = 0; i < n; i++) {
            mat_mul(seq, chain + MAT * i, tmp);
            memcpy(seq, tmp, sizeof seq);
            if (i >= lo && i < hi) {
                mat_mul(blk, chain + MAT * i, tmp);
                memcpy(blk, tmp, sizeof blk);
            }
        }
        GByteArray *out = NULL;
        GError *error = NULL;
        gboolean ok = prism_comm_reduce_ordered(comm, PRISM_COMM_TAG_TEST, (const guint8 *)blk,
                                                hi > lo ? sizeof blk : 0, TRUE, mat_combine, NULL,
                                                PRISM_COMM_REDUCE_ALL, &out, &error);
        const uint64_t ident[MAT] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        const uint64_t *want = n ? seq : ident;
        if (n == 0) /* every payload empty: the result is empty (the identity) */
            ok = ok && out->len == 0;
        else
            ok = ok && out->len == sizeof seq && memcmp(out->data, want, sizeof seq) == 0;
        /* The product is not symmetric in its factors: a reversed fold must differ
         * (checked for n >= 2 random factors, where equality would be a 2^-64 accident). */
        if (ok && n >= 2) {
            uint64_t rev[MAT] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
            for (uint64_t i = n; i-- > 0;) {
                mat_mul(rev, chain + MAT * i, tmp);
                memcpy(rev, tmp, sizeof rev);
            }
            ok = memcmp(rev, seq, sizeof seq) != 0;
        }
        all_ok = all_ok && ok;
        if (out)
            g_byte_array_unref(out);
        g_clear_error(&error);
        g_free(chain);
    }
    g_rand_free(rng);
    CU_ASSERT_TRUE(prism_test_all(all_ok));
}

/* Byte i of rank r's large payload. */
static guint8 pattern(int r, size_t i)
{
    return (guint8)((i * 131u + (size_t)r * 17u) >> 3);
}

static gboolean check_large(PrismComm *comm, size_t per_rank)
{
    size_t mine_len = per_rank + (size_t)comm->rank; /* different sizes per rank */
    g_autofree guint8 *mine = g_malloc(mine_len);
    for (size_t i = 0; i < mine_len; i++)
        mine[i] = pattern(comm->rank, i);
    GByteArray *out = NULL;
    GError *error = NULL;
    gboolean ok =
        prism_comm_reduce_ordered(comm, PRISM_COMM_TAG_TEST, mine, mine_len, TRUE,
                                  prism_test_concat, NULL, PRISM_COMM_REDUCE_ALL, &out, &error);
    /* Concatenation in rank order: rank r's bytes start at sum_{q<r} (per_rank + q). */
    size_t off = 0;
    for (int r = 0; ok && r < comm->size; r++) {
        size_t len = per_rank + (size_t)r;
        if (out->len < off + len) {
            ok = FALSE;
            break;
        }
        for (size_t i = 0; i < len; i++)
            if (out->data[off + i] != pattern(r, i)) {
                ok = FALSE;
                break;
            }
        off += len;
    }
    ok = ok && out->len == off;
    if (out)
        g_byte_array_unref(out);
    g_clear_error(&error);
    return ok;
}

static void test_large_payload(void)
{
    PrismComm *comm = prism_test_comm();
    /* 8 MiB per rank with the default count limit (one chunk per message). */
    gboolean ok = check_large(comm, (size_t)8 << 20);
    /* 1 MiB per rank with the count limit lowered to 4096 bytes: every message and the
     * broadcast go in >= 256 chunks, the path a > INT_MAX payload takes. */
    comm->max_count = 4096;
    ok = check_large(comm, (size_t)1 << 20) && ok;
    comm->max_count = INT_MAX;
    CU_ASSERT_TRUE(prism_test_all(ok));
}

/* The lowest failing rank's message must reach the others; each failing rank keeps its
 * own. After the failure the communicator must still work (no stray messages). */
static gboolean check_failure_then_recovery(PrismComm *comm, int lowest, gboolean i_failed,
                                            const GError *error, const char *own_msg)
{
    gboolean ok;
    if (i_failed) {
        ok = error != NULL && g_error_matches(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE) &&
             strcmp(error->message, own_msg) == 0;
    } else {
        g_autofree char *want = g_strdup_printf("rank %d failed: ", lowest);
        ok = error != NULL &&
             g_error_matches(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_PEER_FAILED) &&
             g_str_has_prefix(error->message, want);
    }
    if (!ok)
        fprintf(stderr, "[rank %d] failure message: %s\n", comm->rank,
                error ? error->message : "(none)");
    g_autofree char *mine = g_strdup_printf("r%d", comm->rank);
    g_autofree char *want = expected_concat(comm->size);
    GError *again = NULL;
    g_autofree char *all = reduce_string(comm, mine, PRISM_COMM_REDUCE_ALL, &again);
    g_clear_error(&again);
    return ok && all != NULL && strcmp(all, want) == 0;
}

static void test_local_failure(void)
{
    PrismComm *comm = prism_test_comm();
    /* Ranks size-1 and (size-1)/2 fail locally; the lowest of them is (size-1)/2
     * (both are 0 at one rank). */
    int hi = comm->size - 1, lo = (comm->size - 1) / 2;
    gboolean i_fail = comm->rank == hi || comm->rank == lo;
    g_autofree char *own = g_strdup_printf("injected local failure on rank %d", comm->rank);
    GError *error = NULL;
    if (i_fail)
        g_set_error(&error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE, "%s", own);
    g_autofree char *mine = g_strdup_printf("r%d", comm->rank);
    GByteArray *out = NULL;
    gboolean ret = prism_comm_reduce_ordered(comm, PRISM_COMM_TAG_TEST, (const guint8 *)mine,
                                             strlen(mine), !i_fail, prism_test_concat, NULL,
                                             PRISM_COMM_REDUCE_ROOT, &out, &error);
    gboolean ok = !ret && out == NULL;
    /* The peers quote the lowest failing rank's message. */
    g_autofree char *quoted =
        g_strdup_printf("rank %d failed: injected local failure on rank %d", lo, lo);
    if (!i_fail)
        ok = ok && error != NULL && strcmp(error->message, quoted) == 0;
    ok = check_failure_then_recovery(comm, lo, i_fail, error, own) && ok;
    g_clear_error(&error);
    CU_ASSERT_TRUE(prism_test_all(ok));
}

/* Refuses any right operand that contains "r<bad>". */
static gboolean picky_concat(const guint8 *left, size_t left_len, const guint8 *right,
                             size_t right_len, GByteArray *out, gpointer user, GError **error)
{
    const char *bad = user;
    g_autofree char *r = g_strndup((const char *)right, right_len);
    if (strstr(r, bad) != NULL) {
        int me = -1;
        MPI_Comm_rank(MPI_COMM_WORLD, &me);
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "combine refused %s on rank %d", bad, me);
        return FALSE;
    }
    return prism_test_concat(left, left_len, right, right_len, out, NULL, error);
}

static void test_combine_failure(void)
{
    PrismComm *comm = prism_test_comm();
    /* The payload of the last rank k = size-1 is first combined (as the right operand) by
     * its parent in the binomial tree, k with its lowest set bit cleared: size 2 -> 0,
     * size 3 (k = 2 = 0b10) -> 0, size 4 (k = 3 = 0b11) -> 2. At one rank nothing is
     * combined and the reduction succeeds. */
    int k = comm->size - 1, parent = k & (k - 1);
    g_autofree char *bad = g_strdup_printf("r%d", k);
    g_autofree char *mine = g_strdup_printf("r%d", comm->rank);
    GByteArray *out = NULL;
    GError *error = NULL;
    gboolean ret =
        prism_comm_reduce_ordered(comm, PRISM_COMM_TAG_TEST, (const guint8 *)mine, strlen(mine),
                                  TRUE, picky_concat, bad, PRISM_COMM_REDUCE_ALL, &out, &error);
    gboolean ok;
    if (comm->size == 1) {
        ok = ret && out != NULL && out->len == 2 && memcmp(out->data, "r0", 2) == 0;
    } else {
        g_autofree char *own = g_strdup_printf("combine refused r%d on rank %d", k, parent);
        g_autofree char *quoted = g_strdup_printf("rank %d failed: %s", parent, own);
        ok = !ret && out == NULL &&
             check_failure_then_recovery(comm, parent, comm->rank == parent, error, own);
        if (comm->rank != parent)
            ok = ok && error != NULL && strcmp(error->message, quoted) == 0;
    }
    if (out)
        g_byte_array_unref(out);
    g_clear_error(&error);
    CU_ASSERT_TRUE(prism_test_all(ok));
}

/* A communicator created with PRISM_COMM_DEBUG set to @p value (the environment is
 * restored afterwards, so the suite also runs under PRISM_COMM_DEBUG=1). */
static PrismComm *comm_with_debug_env(const char *value)
{
    g_autofree char *saved = g_strdup(g_getenv("PRISM_COMM_DEBUG"));
    g_setenv("PRISM_COMM_DEBUG", value, TRUE);
    PrismComm *c = prism_comm_new(MPI_COMM_WORLD, NULL);
    if (saved != NULL)
        g_setenv("PRISM_COMM_DEBUG", saved, TRUE);
    else
        g_unsetenv("PRISM_COMM_DEBUG");
    return c;
}

static PrismComm *debug_comm(void)
{
    return comm_with_debug_env("1");
}

static void test_debug_matching_sequence(void)
{
    PrismComm *plain = comm_with_debug_env("0");
    PrismComm *c = debug_comm();
    gboolean ok = c != NULL && c->debug && plain != NULL && !plain->debug;
    prism_comm_free(plain);
    GError *error = NULL;
    uint64_t sum = 0, off = 0;
    double mx = 0;
    char buf[8] = "";
    if (c->rank == 0)
        memcpy(buf, "payload", 8);
    void *blob = c->rank == 0 ? g_strdup("blob") : NULL;
    size_t blob_len = c->rank == 0 ? 5 : 0;
    ok = ok && prism_comm_agree(c, TRUE, &error) &&
         prism_comm_allreduce_u64(c, (uint64_t)c->rank + 1, MPI_SUM, &sum, &error) &&
         prism_comm_allreduce_f64(c, (double)c->rank, MPI_MAX, &mx, &error) &&
         prism_comm_exscan_u64(c, 1, &off, &error) &&
         prism_comm_bcast_bytes(c, buf, sizeof buf, 0, &error) &&
         prism_comm_bcast_blob(c, &blob, &blob_len, 0, &error) && prism_comm_barrier(c, &error);
    /* sum_{r<P} (r+1) = P(P+1)/2; max rank = P-1; exscan of ones = rank. */
    ok = ok && sum == (uint64_t)c->size * (uint64_t)(c->size + 1) / 2 && mx == c->size - 1 &&
         off == (uint64_t)c->rank && strcmp(buf, "payload") == 0 && blob_len == 5 &&
         strcmp(blob, "blob") == 0;
    g_autofree char *mine = g_strdup_printf("r%d", c->rank);
    g_autofree char *want = expected_concat(c->size);
    g_autofree char *all = ok ? reduce_string(c, mine, PRISM_COMM_REDUCE_ALL, &error) : NULL;
    ok = ok && all != NULL && strcmp(all, want) == 0;
    if (!ok)
        fprintf(stderr, "[rank %d] debug sequence: %s\n", c->rank, error ? error->message : "-");
    g_clear_error(&error);
    g_free(blob);
    prism_comm_free(c);
    CU_ASSERT_TRUE(prism_test_all(ok));
}

static void test_debug_mismatch(void)
{
    PrismComm *c = debug_comm();
    GError *error = NULL;
    gboolean ok = c != NULL;
    if (c->size >= 2) {
        /* Rank 0 agrees while the others broadcast 8 bytes: every rank must fail with a
         * message naming both calls, instead of a deadlock. */
        char buf[8] = "";
        gboolean ret = c->rank == 0 ? prism_comm_agree(c, TRUE, &error)
                                    : prism_comm_bcast_bytes(c, buf, sizeof buf, 0, &error);
        g_autofree char *want = g_strdup_printf(
            "collective mismatch (PRISM_COMM_DEBUG): rank 0 called prism_comm_agree(); "
            "%s called prism_comm_bcast_bytes(root 0, n 8)",
            c->size == 2   ? "rank 1"
            : c->size == 3 ? "ranks 1-2"
                           : "ranks 1-3");
        ok = ok && !ret &&
             g_error_matches(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERNAL) &&
             strcmp(error->message, want) == 0;
        if (!ok)
            fprintf(stderr, "[rank %d] mismatch 1: %s\n", c->rank, error ? error->message : "-");
        g_clear_error(&error);

        /* Same wrapper, different count on the last rank. */
        char big[16] = "";
        size_t n = c->rank == c->size - 1 ? 16 : 8;
        ret = prism_comm_bcast_bytes(c, big, n, 0, &error);
        g_autofree char *want2 = g_strdup_printf(
            "collective mismatch (PRISM_COMM_DEBUG): %s called prism_comm_bcast_bytes(root 0, "
            "n 8); rank %d called prism_comm_bcast_bytes(root 0, n 16)",
            c->size == 2   ? "rank 0"
            : c->size == 3 ? "ranks 0-1"
                           : "ranks 0-2",
            c->size - 1);
        gboolean ok2 = !ret && error != NULL && strcmp(error->message, want2) == 0;
        if (!ok2)
            fprintf(stderr, "[rank %d] mismatch 2: %s\n", c->rank, error ? error->message : "-");
        ok = ok && ok2;
        g_clear_error(&error);

        /* The tree in different modes, and a local error being replaced by the report. */
        if (c->rank == 0)
            g_set_error(&error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE, "local");
        GByteArray *out = NULL;
        ret = prism_comm_reduce_ordered(
            c, PRISM_COMM_TAG_TEST, NULL, 0, c->rank != 0, prism_test_concat, NULL,
            c->rank == 1 ? PRISM_COMM_REDUCE_ROOT : PRISM_COMM_REDUCE_ALL, &out, &error);
        ok = ok && !ret && out == NULL && error != NULL &&
             strstr(error->message, "rank 1 called prism_comm_reduce_ordered(tag 0x5400, "
                                    "mode root)") != NULL;
        g_clear_error(&error);
    }
    /* After a detected mismatch (nobody entered the real collective) the comm works. */
    ok = ok && prism_comm_barrier(c, &error) && prism_comm_agree(c, TRUE, &error);
    g_clear_error(&error);
    prism_comm_free(c);
    CU_ASSERT_TRUE(prism_test_all(ok));
}

/*
 * PrismCommTreeStats: the bytes of every level, derived by hand. Rank r's payload is
 * "r<r>" (2 bytes for r < 10); at step s = 2^l rank r with r mod 2s == s sends its
 * partial, the concatenation of ranks r .. min(r+s, P)-1, 2 bytes each, in a frame of
 * 16 header bytes; its parent r - s receives the same frame. The broadcast carries 24
 * header bytes and the 2P-byte result.
 */
static void test_tree_stats(void)
{
    PrismComm *comm = prism_test_comm();
    PrismCommTreeStats st;
    memset(&st, 0, sizeof st);
    comm->tree_stats = &st;
    g_autofree char *mine = g_strdup_printf("r%d", comm->rank);
    GError *error = NULL;
    g_autofree char *all = reduce_string(comm, mine, PRISM_COMM_REDUCE_ALL, &error);
    comm->tree_stats = NULL;
    gboolean ok = all != NULL && strlen(all) == 2 * (size_t)comm->size;
    const int64_t r = comm->rank, size = comm->size;
    for (int l = 0; l < PRISM_COMM_TREE_LEVELS; l++) {
        const int64_t s = (int64_t)1 << l;
        uint64_t want = 0;
        if (s < size && r % (2 * s) == s) /* sends r .. min(r+s, P)-1 */
            want = 16 + 2 * (uint64_t)(MIN(r + s, size) - r);
        else if (s < size && r % (2 * s) == 0 && r + s < size) /* receives from r + s */
            want = 16 + 2 * (uint64_t)(MIN(r + 2 * s, size) - (r + s));
        ok =
            ok && st.bytes[l] == want && st.seconds[l] >= 0.0 && (want > 0 || st.seconds[l] == 0.0);
    }
    ok = ok && st.bcast_bytes == 24 + 2 * (uint64_t)size && st.bcast_seconds >= 0.0;
    if (!ok)
        fprintf(stderr,
                "[rank %" G_GINT64_FORMAT "] tree stats: bytes %" G_GUINT64_FORMAT
                " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT ", bcast %" G_GUINT64_FORMAT " (%s)\n",
                r, st.bytes[0], st.bytes[1], st.bytes[2], st.bcast_bytes, all ? all : "NULL");
    g_clear_error(&error);
    CU_ASSERT_TRUE(prism_test_all(ok));
}

static CU_TestInfo tree_tests[] = {
    {"concatenation is r0r1..r(P-1) in rank order", test_concat_rank_order},
    {"empty payloads", test_empty_payloads},
    {"per-level bytes of the tree", test_tree_stats},
    {"matrix product over ranks = sequential fold", test_fold_equality},
    {"large and chunked payloads", test_large_payload},
    {"local failure: every rank FALSE, lowest rank quoted", test_local_failure},
    {"combine failure: every rank FALSE, the combining rank quoted", test_combine_failure},
    {"PRISM_COMM_DEBUG: a matching sequence passes", test_debug_matching_sequence},
    {"PRISM_COMM_DEBUG: a mismatch fails every rank with both calls named", test_debug_mismatch},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"comm-reduce", NULL, NULL, NULL, NULL, tree_tests},
    CU_SUITE_INFO_NULL,
};
