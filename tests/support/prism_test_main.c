// SPDX-License-Identifier: MIT
/*
 * prism_test_main.c - the MPI-aware CUnit runner shared by every test binary.
 * Rank 0 prints CUnit's verbose report; other ranks run silently. The failure count is
 * reduced with MPI_MAX so every rank exits non-zero when any rank failed.
 */
#include <stdio.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <mpi.h>

#include "prism_test_util.h"

extern PrismComm *prism_test_comm_internal;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    GError *error = NULL;
    prism_test_comm_internal = prism_comm_new(MPI_COMM_WORLD, &error);
    if (prism_test_comm_internal == NULL) {
        fprintf(stderr, "test: %s\n", error->message);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int rank = prism_test_comm_internal->rank;
    unsigned failures = 0, tests_run = 0;
    if (CU_initialize_registry() != CUE_SUCCESS ||
        CU_register_suites(prism_test_suites) != CUE_SUCCESS) {
        fprintf(stderr, "test: CUnit registry: %s\n", CU_get_error_msg());
        failures = 1;
    } else {
        CU_pSuite only = NULL;
        if (argc > 1) {
            only = CU_get_suite(argv[1]);
            if (only == NULL) {
                fprintf(stderr, "test: no suite '%s'\n", argv[1]);
                failures = 1;
            }
        }
        if (failures == 0) {
            if (rank == 0) {
                CU_basic_set_mode(CU_BRM_VERBOSE);
                if (only)
                    CU_basic_run_suite(only);
                else
                    CU_basic_run_tests();
            } else if (only) {
                CU_run_suite(only);
            } else {
                CU_run_all_tests();
            }
            failures = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
            tests_run = CU_get_number_of_tests_run();
            if (tests_run == 0)
                failures++; /* a run that ran nothing is a failure */
        }
        CU_cleanup_registry();
    }
    unsigned all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_UNSIGNED, MPI_MAX, prism_test_comm_internal->mpi);
    if (rank == 0)
        printf("ranks=%d tests=%u max-failures-per-rank=%u\n", prism_test_comm_internal->size,
               tests_run, all);
    prism_comm_free(prism_test_comm_internal);
    MPI_Finalize();
    return all != 0;
}
