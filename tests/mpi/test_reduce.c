// SPDX-License-Identifier: MIT
/*
 * test_reduce.c - the cross-rank front and top-k merge: for any rank count the reduced
 * front/top-k is byte-identical to the one computed serially over all points (which
 * every rank computes itself), including ranks with no points; a rank that fails makes
 * every rank fail without hanging.
 */
#include <string.h>

#include <CUnit/CUnit.h>

#include <prism/core.h>
#include <prism/front.h>

#include "prism_test_util.h"

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Point i of a deterministic global set (same on every rank). */
static void point(uint64_t i, size_t k, double *key)
{
    for (size_t j = 0; j < k; j++)
        key[j] = (double)(mix(i * 8 + j + 1) % 1000) / 10.0; /* ties included */
}

static gboolean bytes_equal_front(const PrismFront *a, const PrismFront *b)
{
    g_autoptr(GByteArray) x = g_byte_array_new();
    g_autoptr(GByteArray) y = g_byte_array_new();
    prism_front_serialize(a, x);
    prism_front_serialize(b, y);
    return x->len == y->len && memcmp(x->data, y->data, x->len) == 0;
}

static void check_front(uint64_t n, size_t k)
{
    PrismComm *comm = prism_test_comm();
    uint64_t lo, hi;
    prism_partition_block(n, comm->rank, comm->size, &lo, &hi);
    PrismFront *local = prism_front_new(k);
    g_autoptr(PrismFront) serial = prism_front_new(k);
    double key[8];
    for (uint64_t i = 0; i < n; i++) {
        point(i, k, key);
        prism_front_offer(serial, key, i);
        if (i >= lo && i < hi)
            prism_front_offer(local, key, i);
    }
    prism_front_finish(serial);
    GError *error = NULL;
    gboolean ok = prism_front_reduce(comm, &local, &error);
    gboolean same = ok && local != NULL && bytes_equal_front(local, serial);
    if (!same)
        fprintf(stderr, "[rank %d] n=%" G_GUINT64_FORMAT " k=%zu: %s\n", comm->rank, n, k,
                error ? error->message : "front differs");
    g_clear_error(&error);
    CU_ASSERT_TRUE(prism_test_all(same));
    prism_front_free(local);
}

static void test_front_reduce(void)
{
    check_front(5000, 2);
    check_front(3000, 3);
    check_front(800, 4);
    check_front(2, 2); /* fewer points than ranks: empty local fronts */
    check_front(0, 3);
}

static void test_topk_reduce(void)
{
    PrismComm *comm = prism_test_comm();
    uint64_t n = 10000, lo, hi;
    prism_partition_block(n, comm->rank, comm->size, &lo, &hi);
    PrismTopK *local = prism_topk_new(10);
    g_autoptr(PrismTopK) serial = prism_topk_new(10);
    for (uint64_t i = 0; i < n; i++) {
        double key = (double)(mix(i) % 5000);
        prism_topk_offer(serial, key, i);
        if (i >= lo && i < hi)
            prism_topk_offer(local, key, i);
    }
    GError *error = NULL;
    gboolean ok = prism_topk_reduce(comm, &local, &error);
    g_autoptr(GByteArray) x = g_byte_array_new();
    g_autoptr(GByteArray) y = g_byte_array_new();
    if (ok)
        prism_topk_serialize(local, x);
    prism_topk_serialize(serial, y);
    gboolean same = ok && x->len == y->len && memcmp(x->data, y->data, x->len) == 0;
    g_clear_error(&error);
    CU_ASSERT_TRUE(prism_test_all(same));
    prism_topk_free(local);
}

/* The last rank has no result (local failure): every rank fails, the failing rank's
 * message reaches all of them, nobody hangs (ctest TIMEOUT would catch a hang). */
static void test_failure(void)
{
    PrismComm *comm = prism_test_comm();
    PrismFront *local = NULL;
    if (comm->rank != comm->size - 1) {
        local = prism_front_new(2);
        const double key[2] = {1.0 * comm->rank, 2.0};
        prism_front_offer(local, key, (uint64_t)comm->rank);
    }
    GError *error = NULL;
    gboolean ok = prism_front_reduce(comm, &local, &error);
    g_autofree char *want = g_strdup_printf("rank %d has no local result", comm->size - 1);
    gboolean good = !ok && error != NULL && strstr(error->message, want) != NULL;
    if (!good)
        fprintf(stderr, "[rank %d] ok=%d error=%s\n", comm->rank, ok,
                error ? error->message : "(none)");
    g_clear_error(&error);
    prism_front_free(local);
    CU_ASSERT_TRUE(prism_test_all(good));
}

static CU_TestInfo reduce_tests[] = {
    {"front reduce == serial front", test_front_reduce},
    {"top-k reduce == serial top-k", test_topk_reduce},
    {"a failing rank fails all", test_failure},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"reduce", NULL, NULL, NULL, NULL, reduce_tests},
    CU_SUITE_INFO_NULL,
};
