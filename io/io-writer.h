/*
 * io-writer.h - private to the landscape writer (io_landscape.c, io_finish.c,
 * io_output.c): the writer's state and what its files share. The arrows run one way:
 * io_landscape.c (prepare, sink) -> io_finish.c (the HDF5 file) -> io_output.c (the
 * output path, the lock, the disk), and io_landscape.c -> io_output.c.
 */
#ifndef PRISM_IO_WRITER_H
#define PRISM_IO_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>
#include <hdf5.h>

#include <prism/io.h>

#include "io-internal.h"

G_BEGIN_DECLS

/** A damaged spill record found while assembling the file (rows [first, first + n)). */
typedef struct PrismSpillDamage {
    gboolean found;
    char *file; /* g_free */
    uint64_t offset, first, n;
} PrismSpillDamage;

/* The writer's state. */
struct PrismLandscape {
    PrismComm *comm; /* borrowed; a communicator of rank 0 alone while it writes the file */
    int ranks;       /* the writer's rank count (the "ranks" attribute) */
    char *path, *partial, *spill_dir, *manifest, *lock_path;
    PrismLandscapeSchema *schema;
    PrismLandscapeOptions opts;
    GPtrArray *attr_names, *attr_values; /* char * */
    GArray *attr_identity;               /* gboolean */
    PrismGridPointInfo *grid;            /* strings owned (g_strdup) */
    size_t n_grid;
    PrismGridPointFn grid_fn; /* /grid point by point; NULL: the copy in grid */
    void *grid_user;
    PrismLandscapePointConstants *constants; /* per point: the derived columns' constants */
    size_t n_constants;
    gboolean prepared, began, finished, resuming;
    uint32_t session; /* 1 for a fresh run, k + 1 after k sessions */
    uint64_t total, lo, hi;
    uint64_t chunk;   /* rows per HDF5 chunk: min(chunk_rows, total); spill records end at
                       * multiples of it */
    GPtrArray *files; /* spill file paths by file id: earlier sessions, then ours */
    uint32_t n_old_files;
    GArray *old_records; /* PrismSpillRecord of earlier sessions, sorted by first */
    GArray *persisted;   /* merged [a, b) pairs (uint64_t[2]) of old records */
    guint cursor;        /* into persisted, batches come in increasing order */
    int fd;              /* our spill file, -1 when closed */
    uint64_t fd_size;
    GArray *my_records;
    void **buf; /* one typed buffer per column, spill_rows rows: being filled */
    /* The spill writer thread: packs (shuffle + LZ4) and appends the record in wbuf while
     * the search fills buf (double buffering); my_records and spilled are its, under
     * wmutex, until it is joined at the end of the search. */
    void **wbuf;
    GThread *writer;
    GMutex wmutex;
    GCond wcond;
    uint64_t w_first;
    size_t w_n;
    gboolean w_pending, w_quit;
    GError *w_error; /* its first failure, handed to the search at the next flush or end */
    uint64_t buf_first;
    size_t buf_n;
    uint64_t skipped, spilled, dropped;
    GArray *feasible_per_job; /* uint64_t, indexed by job */
    GArray *rows_per_job;     /* uint64_t */
    unsigned test_delay_ms;   /* PRISM_IO_TEST_DELAY_MS: sleep after each record (tests) */
    gboolean h5_broken;       /* an HDF5 write failed: never close (may deadlock), abort */
    gboolean h5_failed;       /* an HDF5 step of the (serial) final write failed */
    int lock_fd;              /* rank 0: NAME.partial.lock, flock'ed; -1 elsewhere */
    PrismSpillDamage damage;  /* this rank's first damaged record (finish) */
};

/* io_finish.c */

/** Root attributes (provenance, @p status, the added ones). Collective. */
gboolean prism_io_write_root_attrs_internal(PrismLandscape *ls, hid_t file, const char *status,
                                            GError **error);

/* io_output.c: the output path, the lock, the disk. All local (rank 0's part of a
 * collective step; the caller agrees). */

/**
 * Check the nodes the writer will create or replace: @p path, NAME.partial and
 * NAME.partial.lock must be regular files or absent, NAME.partial.spill a folder or
 * absent; none may be a symbolic link (refused: see io/README.md), a device, a FIFO or a
 * socket, with or without --force. @p path must not exist unless @p force. Nothing is
 * changed. Errors: PRISM_INPUT_ERROR_OUTPUT naming the node and what it is.
 */
gboolean prism_io_check_output_internal(const char *path, gboolean force, GError **error);
/** The node checks alone (what each node is), whatever force says; *@p exists: NAME does. */
gboolean prism_io_check_nodes_internal(const char *path, gboolean *exists, GError **error);

/**
 * Take the advisory lock NAME.partial.lock (flock, exclusive, non-blocking) for @p ls
 * and write this process's pid, host and start time into it. A lock held by a running
 * writer is PRISM_INPUT_ERROR_OUTPUT with that writer's pid, host and start time; a lock
 * file left by a dead process is taken over (noted at info level).
 */
gboolean prism_io_lock_internal(PrismLandscape *ls, GError **error);
/** Release the lock; with @p remove the lock file is unlinked first. No-op without one. */
void prism_io_unlock_internal(PrismLandscape *ls, gboolean remove);

/** Remove a spill folder (only the names prism creates there). Errors: RUNTIME_ERROR_IO. */
gboolean prism_io_remove_spill_dir_internal(const char *dir, GError **error);
/** Remove Open MPI OMPIO's FILE.data.N / FILE.metadata.N left next to @p partial. */
void prism_io_remove_ompio_leftovers_internal(const char *partial);
/** Bytes available to unprivileged users in the folder of @p path (statvfs); FALSE on error. */
gboolean prism_io_free_bytes_internal(const char *path, uint64_t *bytes);
/** " (No space left on device: 12 kB free in DIR)" or " (2.1 GB free in DIR)". g_free. */
char *prism_io_free_space_note_internal(const char *path);
/** Bytes of the regular files directly inside @p dir (0 when absent). */
uint64_t prism_io_dir_bytes_internal(const char *dir);

G_END_DECLS

#endif /* PRISM_IO_WRITER_H */
