// SPDX-License-Identifier: MIT
/* prism_test_util.c - see prism_test_util.h. */
#include "prism_test_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <prism/core.h>

PrismComm *prism_test_comm_internal;

PrismComm *prism_test_comm(void)
{
    return prism_test_comm_internal;
}

gboolean prism_test_all(gboolean local_ok)
{
    int mine = local_ok ? 1 : 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, prism_test_comm()->mpi);
    return all != 0;
}

gboolean prism_test_concat(const guint8 *left, size_t left_len, const guint8 *right,
                           size_t right_len, GByteArray *out, gpointer user, GError **error)
{
    (void)user;
    (void)error;
    g_byte_array_append(out, left, (guint)left_len);
    g_byte_array_append(out, right, (guint)right_len);
    return TRUE;
}

gboolean prism_test_sanitized(void)
{
    return g_strcmp0(g_getenv("PRISM_TEST_SANITIZED"), "1") == 0;
}

char *prism_test_data_path(const char *name)
{
    const char *dir = g_getenv("PRISM_TEST_DATA");
    return g_build_filename(dir ? dir : "tests/data", name, NULL);
}

const char *prism_test_scratch_dir(void)
{
    static char path[512];
    if (path[0] != '\0')
        return path;
    PrismComm *comm = prism_test_comm();
    if (comm->rank == 0) {
        g_autofree char *tmpl = g_build_filename(g_get_tmp_dir(), "prism-test-XXXXXX", NULL);
        char *dir = g_mkdtemp(tmpl);
        g_strlcpy(path, dir ? dir : ".", sizeof path);
    }
    MPI_Bcast(path, (int)sizeof path, MPI_CHAR, 0, comm->mpi);
    return path;
}

int prism_test_data_files_listed(const char *folder, const char *prefix, const char *const *names,
                                 size_t n, size_t stride)
{
    g_autofree char *dir = prism_test_data_path(folder);
    GDir *d = g_dir_open(dir, 0, NULL);
    if (d == NULL) {
        fprintf(stderr, "no folder %s\n", dir);
        return -1;
    }
    int files = 0;
    gboolean all = TRUE;
    const char *entry;
    while ((entry = g_dir_read_name(d)) != NULL) {
        if (!g_str_has_prefix(entry, prefix))
            continue;
        gboolean listed = FALSE;
        for (size_t i = 0; i < n && !listed; i++) {
            const char *name =
                *(const char *const *)(const void *)((const char *)names + i * stride);
            listed = strcmp(name, entry) == 0;
        }
        if (!listed)
            fprintf(stderr, "untested file %s/%s\n", folder, entry);
        all = all && listed;
        files++;
    }
    g_dir_close(d);
    return all ? files : -1;
}

gboolean prism_test_close(double a, double b, double rel, double abs)
{
    double scale = fmax(fabs(a), fabs(b));
    return fabs(a - b) <= rel * scale + abs;
}

gboolean prism_test_input_error(const GError *error, int code, const char *const *needles,
                                size_t n_needles, const char *what)
{
    gboolean ok = error != NULL && error->domain == PRISM_INPUT_ERROR && error->code == code;
    for (size_t k = 0; ok && k < n_needles && needles[k] != NULL; k++)
        ok = strstr(error->message, needles[k]) != NULL;
    if (!ok)
        fprintf(stderr, "%s: expected input error %d, got code %d: %s\n", what, code,
                error ? error->code : -1, error ? error->message : "(no error)");
    return ok;
}
