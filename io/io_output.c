// SPDX-License-Identifier: MIT
/*
 * io_output.c - the landscape writer's file-system side: which nodes -o may name and
 * replace, the advisory lock NAME.partial.lock, removal of the spill folder and of Open
 * MPI's leftovers, and the free disk of the output's folder.
 *
 * Local: rank 0 calls these inside the writer's collective steps and the ranks agree on
 * the outcome (io_landscape.c, io_finish.c). Not thread-safe.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include <prism/core.h>

#include "io-writer.h"

/* What a node is, for messages ("a character device"). */
static const char *node_kind(mode_t mode)
{
    if (S_ISLNK(mode))
        return "a symbolic link";
    if (S_ISDIR(mode))
        return "a folder";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

/*
 * @p node (one of the paths the writer creates for -o @p path) must be absent or of the
 * kind @p want (S_IFREG or S_IFDIR). Symbolic links are refused, dangling or not: the
 * final rename would replace the link itself, and following it would write wherever it
 * points (io/README.md, "Output safety").
 */
static gboolean node_ok(const char *path, const char *node, mode_t want, gboolean *exists,
                        GError **error)
{
    GStatBuf st;
    *exists = FALSE;
    if (g_lstat(node, &st) != 0) {
        if (errno == ENOENT)
            return TRUE;
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_OUTPUT, "-o %s: %s: %s", path, node,
                    g_strerror(errno));
        return FALSE;
    }
    *exists = TRUE;
    if ((st.st_mode & S_IFMT) == want)
        return TRUE;
    gboolean self = strcmp(node, path) == 0;
    if (S_ISLNK(st.st_mode)) {
        g_autofree char *target = g_file_read_link(node, NULL);
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_OUTPUT,
                    "-o %s: %s%sis a symbolic link (to %s); prism refuses links, dangling or "
                    "not, even with --force, so that it never writes through or replaces one: "
                    "name the file itself (nothing was changed)",
                    path, self ? "" : node, self ? "" : " ", target ? target : "?");
        return FALSE;
    }
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_OUTPUT,
                "-o %s: %s%sis %s; prism writes only %s or a path that does not exist, and "
                "never replaces anything else, even with --force (nothing was changed)",
                path, self ? "" : node, self ? "" : " ", node_kind(st.st_mode),
                want == S_IFDIR ? "its own spill folder" : "a regular file");
    return FALSE;
}

gboolean prism_io_check_nodes_internal(const char *path, gboolean *exists, GError **error)
{
    if (*path == '\0') {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_OUTPUT,
                    "-o '': the output file name is empty");
        return FALSE;
    }
    g_autofree char *dir = g_path_get_dirname(path);
    if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_OUTPUT,
                    "-o %s: the folder %s does not exist", path, dir);
        return FALSE;
    }
    g_autofree char *partial = g_strconcat(path, ".partial", NULL);
    g_autofree char *spill = g_strconcat(path, ".partial.spill", NULL);
    g_autofree char *lock = g_strconcat(path, ".partial.lock", NULL);
    gboolean other = FALSE;
    return node_ok(path, path, S_IFREG, exists, error) &&
           node_ok(path, partial, S_IFREG, &other, error) &&
           node_ok(path, spill, S_IFDIR, &other, error) &&
           node_ok(path, lock, S_IFREG, &other, error);
}

gboolean prism_io_check_output_internal(const char *path, gboolean force, GError **error)
{
    gboolean exists = FALSE;
    if (!prism_io_check_nodes_internal(path, &exists, error))
        return FALSE;
    if (exists && !force) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_OUTPUT,
                    "output %s exists; use --force to overwrite it", path);
        return FALSE;
    }
    if (exists)
        prism_log(PRISM_LOG_INFO, 0, "--force: %s (%s) will be replaced when the sweep ends", path,
                  prism_h5_is_landscape_internal(path) ? "a prism landscape"
                                                       : "a regular file, not a landscape");
    return TRUE;
}

/* "pid=N\nhost=H\nstarted=T\n" of a lock file, as "pid N on host H, started T". */
static char *lock_owner(int fd)
{
    char buf[512];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_autofree char *text = g_strconcat("[lock]\n", buf, NULL);
    if (!g_key_file_load_from_data(kf, text, (gsize)-1, G_KEY_FILE_NONE, NULL))
        return g_strdup("an unreadable lock record");
    g_autofree char *pid = g_key_file_get_string(kf, "lock", "pid", NULL);
    g_autofree char *host = g_key_file_get_string(kf, "lock", "host", NULL);
    g_autofree char *started = g_key_file_get_string(kf, "lock", "started", NULL);
    return g_strdup_printf("pid %s on host %s, started %s", pid ? pid : "?", host ? host : "?",
                           started ? started : "?");
}

gboolean prism_io_lock_internal(PrismLandscape *ls, GError **error)
{
    /* The lock file is created once and never replaced while a run holds it; the inode
     * check below closes the window in which a finishing run unlinks the file we opened. */
    for (int attempt = 0; attempt < 8; attempt++) {
        int fd = open(ls->lock_path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_OUTPUT,
                        "-o %s: cannot create the lock %s: %s", ls->path, ls->lock_path,
                        g_strerror(errno));
            return FALSE;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int e = errno;
            g_autofree char *owner = e == EWOULDBLOCK ? lock_owner(fd) : NULL;
            close(fd);
            if (e == EWOULDBLOCK)
                g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_OUTPUT,
                            "-o %s: another prism sweep is writing it (%s; lock %s); wait for "
                            "it to end or stop it",
                            ls->path, owner ? owner : "owner not recorded yet", ls->lock_path);
            else
                g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_OUTPUT,
                            "-o %s: cannot lock %s: %s", ls->path, ls->lock_path, g_strerror(e));
            return FALSE;
        }
        GStatBuf on_disk;
        struct stat held;
        if (fstat(fd, &held) != 0 || g_lstat(ls->lock_path, &on_disk) != 0 ||
            held.st_ino != on_disk.st_ino || held.st_dev != on_disk.st_dev) {
            close(fd); /* unlinked (or replaced) after we opened it: open the new one */
            continue;
        }
        g_autofree char *stale = lock_owner(fd);
        if (stale != NULL)
            prism_log(PRISM_LOG_INFO, 0, "%s: taking over the lock of a run that is gone (%s)",
                      ls->lock_path, stale);
        g_autoptr(GDateTime) now = g_date_time_new_now_utc();
        g_autofree char *stamp = g_date_time_format(now, "%Y-%m-%dT%H:%M:%SZ");
        g_autofree char *text = g_strdup_printf("pid=%ld\nhost=%s\nstarted=%s\n", (long)getpid(),
                                                g_get_host_name(), stamp);
        size_t len = strlen(text);
        if (ftruncate(fd, 0) != 0 || pwrite(fd, text, len, 0) != (ssize_t)len) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_OUTPUT,
                        "-o %s: cannot write the lock %s: %s", ls->path, ls->lock_path,
                        g_strerror(errno));
            close(fd);
            return FALSE;
        }
        (void)fdatasync(fd);
        ls->lock_fd = fd;
        return TRUE;
    }
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_OUTPUT,
                "-o %s: the lock %s keeps being replaced; is another sweep starting?", ls->path,
                ls->lock_path);
    return FALSE;
}

void prism_io_unlock_internal(PrismLandscape *ls, gboolean remove)
{
    if (ls->lock_fd < 0)
        return;
    if (remove)
        (void)g_unlink(ls->lock_path); /* while still held: see prism_io_lock_internal */
    close(ls->lock_fd);
    ls->lock_fd = -1;
}

gboolean prism_io_remove_spill_dir_internal(const char *dir, GError **error)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    if (d == NULL)
        return TRUE;
    const char *name;
    gboolean ok = TRUE;
    while ((name = g_dir_read_name(d)) != NULL) {
        if (!g_str_has_suffix(name, ".spill") && strcmp(name, "manifest.ini") != 0 &&
            !g_str_has_prefix(name, "manifest.ini."))
            continue;
        g_autofree char *p = g_build_filename(dir, name, NULL);
        if (g_unlink(p) != 0 && errno != ENOENT) {
            g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_IO, "removing %s: %s", p,
                        g_strerror(errno));
            ok = FALSE;
            break;
        }
    }
    g_dir_close(d);
    if (ok && g_rmdir(dir) != 0 && errno != ENOENT) {
        g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_IO,
                    "removing folder %s: %s (it holds files prism did not write)", dir,
                    g_strerror(errno));
        ok = FALSE;
    }
    return ok;
}

/* Open MPI's OMPIO keeps FILE.data.N / FILE.metadata.N (its "individual" shared file
 * pointer) next to an MPI-IO file while it is open; a job that had to abort leaves them
 * behind. They belong to our partial file: remove them. */
void prism_io_remove_ompio_leftovers_internal(const char *partial)
{
    g_autofree char *dir = g_path_get_dirname(partial);
    g_autofree char *base = g_path_get_basename(partial);
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *name;
    while (d != NULL && (name = g_dir_read_name(d)) != NULL) {
        if (!g_str_has_prefix(name, base))
            continue;
        const char *rest = name + strlen(base);
        const char *num = g_str_has_prefix(rest, ".data.")       ? rest + 6
                          : g_str_has_prefix(rest, ".metadata.") ? rest + 10
                                                                 : NULL;
        if (num != NULL && *num != '\0' && strspn(num, "0123456789") == strlen(num)) {
            g_autofree char *p = g_build_filename(dir, name, NULL);
            (void)g_unlink(p);
        }
    }
    if (d != NULL)
        g_dir_close(d);
}

gboolean prism_io_free_bytes_internal(const char *path, uint64_t *bytes)
{
    g_autofree char *dir = g_path_get_dirname(path);
    struct statvfs sv;
    if (statvfs(dir, &sv) != 0)
        return FALSE;
    *bytes = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
    return TRUE;
}

char *prism_io_free_space_note_internal(const char *path)
{
    g_autofree char *dir = g_path_get_dirname(path);
    uint64_t avail = 0;
    if (!prism_io_free_bytes_internal(path, &avail))
        return g_strdup("");
    g_autofree char *size = g_format_size(avail);
    return g_strdup_printf(" (%s%s free in %s)",
                           avail < 16000000 ? "No space left on device: " : "", size, dir);
}

uint64_t prism_io_dir_bytes_internal(const char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    uint64_t total = 0;
    const char *name;
    while (d != NULL && (name = g_dir_read_name(d)) != NULL) {
        g_autofree char *p = g_build_filename(dir, name, NULL);
        GStatBuf st;
        if (g_lstat(p, &st) == 0 && S_ISREG(st.st_mode))
            total += (uint64_t)st.st_size;
    }
    if (d != NULL)
        g_dir_close(d);
    return total;
}
