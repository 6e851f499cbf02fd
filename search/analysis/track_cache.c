// SPDX-License-Identifier: MIT
/*
 * track_cache.c - the track record kept between runs (validate_track.c). Every `prism plan`,
 * `explain` and `sweep` prints the record of its device family, which prices each matching
 * published run again: about two thirds of a small plan's instructions. The record is a
 * pure function of the binary, the files it reads (the shipped CSVs, the cluster key files
 * beside them, the framework profiles and sources.ini) and the family, profile and knobs
 * asked for, so it is kept in a file named by a SHA-256 of all of them and read back instead
 * of priced again.
 *
 * The record's bytes are validate_track.c's; here are their file name and the file.
 * Where: $PRISM_CACHE_DIR, else $XDG_CACHE_HOME/prism (~/.cache/prism); PRISM_CACHE_DIR set
 * to the empty string turns the cache off. A file is GVariant data (GLib's serialisation:
 * doubles kept bit for bit), written to a temporary name and renamed, so a reader sees a whole
 * file or none; one that does not parse is ignored and replaced. The binary is named by its
 * device, inode, size and modification time (a rebuild is a new binary). Nothing here fails:
 * without a cache the record is priced as before.
 */
#include "track-cache.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>
#include <prism/core.h>
#include <prism/framework.h>

/* Changes whenever the layout of a kept record (validate_track.c) does. */
#define TRACK_VERSION "prism-track-record-1 " PRISM_TRACK_CACHE_TYPE

/* The folder, or NULL when the cache is off. */
static char *cache_dir(void)
{
    const char *env = g_getenv("PRISM_CACHE_DIR");
    if (env != NULL)
        return *env != '\0' ? g_strdup(env) : NULL;
    return g_build_filename(g_get_user_cache_dir(), "prism", NULL);
}

/* Add a file's name, size and bytes to @p h (a file that cannot be read adds its name). */
static void hash_file(GChecksum *h, const char *path)
{
    g_checksum_update(h, (const guchar *)path, (gssize)strlen(path) + 1);
    g_autofree char *text = NULL;
    gsize n = 0;
    if (!g_file_get_contents(path, &text, &n, NULL))
        return;
    const guint64 n64 = n;
    g_checksum_update(h, (const guchar *)&n64, sizeof n64);
    g_checksum_update(h, (const guchar *)text, (gssize)n);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of @p dir, in name order. */
static void hash_dir(GChecksum *h, const char *dir)
{
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    if (d == NULL)
        return;
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    for (const char *n; (n = g_dir_read_name(d)) != NULL;) {
        char *p = g_build_filename(dir, n, NULL);
        if (g_file_test(p, G_FILE_TEST_IS_REGULAR))
            g_ptr_array_add(names, p);
        else
            g_free(p);
    }
    qsort(names->pdata, names->len, sizeof(char *), compare_names);
    for (guint i = 0; i < names->len; i++)
        hash_file(h, g_ptr_array_index(names, i));
}

char *prism_track_cache_path_internal(const char *family, const char *framework,
                                      const PrismKnobOverrides *knobs, char *const *csvs,
                                      size_t n_csvs)
{
    g_autofree char *dir = cache_dir();
    struct stat st;
    if (dir == NULL || g_stat("/proc/self/exe", &st) != 0)
        return NULL;
    g_autoptr(GChecksum) h = g_checksum_new(G_CHECKSUM_SHA256);
    g_checksum_update(h, (const guchar *)TRACK_VERSION, -1);
    const guint64 exe[] = {(guint64)st.st_dev, (guint64)st.st_ino, (guint64)st.st_size,
                           (guint64)st.st_mtim.tv_sec, (guint64)st.st_mtim.tv_nsec};
    g_checksum_update(h, (const guchar *)exe, sizeof exe);
    g_checksum_update(h, (const guchar *)family, (gssize)strlen(family) + 1);
    g_checksum_update(h, (const guchar *)(framework ? framework : ""), -1);
    g_checksum_update(h, (const guchar *)(framework ? "+" : "-"), 1);
    for (int k = 0; knobs != NULL && k < PRISM_KNOB_COUNT; k++)
        if (knobs->set[k]) {
            const double v = knobs->knobs.v[k];
            g_checksum_update(h, (const guchar *)&k, sizeof k);
            g_checksum_update(h, (const guchar *)&v, sizeof v);
        }
    /* each CSV's name, and each of their folders once, whole: the CSVs and the cluster key
     * files their rows name sit there */
    g_autoptr(GPtrArray) dirs = g_ptr_array_new_with_free_func(g_free);
    for (size_t i = 0; i < n_csvs; i++) {
        g_checksum_update(h, (const guchar *)csvs[i], (gssize)strlen(csvs[i]) + 1);
        char *d = g_path_get_dirname(csvs[i]);
        if (g_ptr_array_find_with_equal_func(dirs, d, g_str_equal, NULL))
            g_free(d);
        else
            g_ptr_array_add(dirs, d);
    }
    for (guint i = 0; i < dirs->len; i++)
        hash_dir(h, g_ptr_array_index(dirs, i));
    g_auto(GStrv) fw = prism_framework_dirs();
    for (char **d = fw; *d != NULL; d++)
        hash_dir(h, *d);
    g_autofree char *name = g_strdup_printf("track-%s.gvariant", g_checksum_get_string(h));
    return g_build_filename(dir, name, NULL);
}

void prism_track_cache_write_internal(const char *path, GBytes *bytes)
{
    g_autofree char *dir = g_path_get_dirname(path);
    gsize n = 0;
    const char *data = g_bytes_get_data(bytes, &n);
    g_autoptr(GError) error = NULL;
    /* g_file_set_contents writes a temporary file and renames it over the name */
    if (g_mkdir_with_parents(dir, 0700) != 0 || !g_file_set_contents(path, data, (gssize)n, &error))
        prism_log(PRISM_LOG_DEBUG, 0, "track record not kept in %s: %s", path,
                  error ? error->message : g_strerror(errno));
}
