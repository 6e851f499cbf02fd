/*
 * prism_test_util.h - shared helpers for CUnit tests (unit and MPI).
 *
 * Every test binary defines `CU_SuiteInfo prism_test_suites[]` (ending with
 * CU_SUITE_INFO_NULL); the shared main in prism_test_main.c initialises MPI, registers
 * the suites, runs them (rank 0 verbose, other ranks silent), reduces the failure
 * count over ranks and exits non-zero on any failure. `TEST_BINARY SUITE` runs one
 * suite only. MPI tests must not use CU_ASSERT_*_FATAL between collectives: compute a
 * local ok, agree with prism_test_all(), then CU_ASSERT.
 */
#ifndef PRISM_TEST_UTIL_H
#define PRISM_TEST_UTIL_H

#include <stddef.h>

#include <CUnit/CUnit.h>
#include <glib.h>

#include <prism/comm.h>

extern CU_SuiteInfo prism_test_suites[];

/** The communicator of the test run (a duplicate of MPI_COMM_WORLD). */
PrismComm *prism_test_comm(void);
/** TRUE on every rank iff @p local_ok is TRUE on every rank. Collective. */
gboolean prism_test_all(gboolean local_ok);
/**
 * TRUE in the sanitizer pass (PRISM_TEST_SANITIZED=1, set by tests/CMakeLists.txt for a
 * PRISM_SANITIZE build): tests may shrink their problem sizes there (tests/README.md,
 * "Sanitizer pass").
 */
gboolean prism_test_sanitized(void);
/**
 * The combine step "left . right" (left's bytes, then right's) for
 * prism_comm_reduce_ordered(): associative, not commutative, never fails.
 */
gboolean prism_test_concat(const guint8 *left, size_t left_len, const guint8 *right,
                           size_t right_len, GByteArray *out, gpointer user, GError **error);
/** Path of a file under tests/data. Ownership: g_free(). */
char *prism_test_data_path(const char *name);
/** A scratch folder shared by all ranks (created by rank 0, broadcast). Static string. */
const char *prism_test_scratch_dir(void);
/**
 * TRUE when @p error is PRISM_INPUT_ERROR with @p code and its message contains every
 * non-NULL string of @p needles (up to @p n_needles). Prints the error when it does not
 * match, labelled with @p what.
 */
gboolean prism_test_input_error(const GError *error, int code, const char *const *needles,
                                size_t n_needles, const char *what);

/**
 * Every file of tests/data/@p folder whose name starts with @p prefix is one of the
 * @p n @p names (the file member of each of @p n structs of @p stride bytes starting at
 * @p names), so a bad input added on disk cannot go untested. Prints the unlisted ones.
 * Returns the number of such files, or -1 when one is unlisted or the folder is missing.
 */
int prism_test_data_files_listed(const char *folder, const char *prefix, const char *const *names,
                                 size_t n, size_t stride);

/** |a-b| <= rel*max(|a|,|b|) + abs. */
gboolean prism_test_close(double a, double b, double rel, double abs);

#endif /* PRISM_TEST_UTIL_H */
