// SPDX-License-Identifier: MIT
/*
 * test_comm.c - the MPI wrapper at 1-4 ranks: agreement when one rank fails (no hang,
 * every rank FALSE, the failing rank keeps its error), error propagation, exscan and the
 * block partition.
 */
#include <CUnit/CUnit.h>

#include <prism/comm.h>
#include <prism/core.h>

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
        CU_ASSERT_TRUE(g_error_matches(error, PRISM_RUNTIME_ERROR,
                                       PRISM_RUNTIME_ERROR_PEER_FAILED));
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

static CU_TestInfo comm_tests[] = {
    {"agree: one rank fails", test_agree_one_rank_fails},
    {"agree_error: message propagates", test_agree_error_propagates},
    {"exscan and block partition", test_exscan_and_partition},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"comm", NULL, NULL, NULL, NULL, comm_tests},
    CU_SUITE_INFO_NULL,
};
