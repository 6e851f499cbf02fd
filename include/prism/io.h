/*
 * io.h - the HDF5 landscape: one file per sweep with every evaluated strategy as a row.
 *
 * File layout (schema version PRISM_LANDSCAPE_SCHEMA_VERSION; io/README.md is the
 * reference, with the reasoning behind each type):
 *   /                root attributes: provenance (tool version, git revision, command
 *                    line, creation time UTC, ranks, ISA), inputs as JSON text (model,
 *                    cluster, training, knobs, space, objectives, grid), schema_version,
 *                    rows, status ("complete" | "incomplete").
 *   /landscape/<c>   one 1-D dataset per column, one row per strategy in global-index
 *                    order, feasible or not; chunked, shuffle + deflate + Fletcher32.
 *   /pareto/<c>      the fronts: an `index` column (global row index) + every column.
 *   /topk/<c>        the best rows, same layout, plus `rank`.
 *   /grid/<f>        grid sweeps only: one row per grid point (row offsets and setup).
 *
 * Writing (PrismLandscape): rows stream in through a PrismRowSink (sink.h). While the
 * sweep runs, each rank only APPENDS its rows to its own spill file (length- and
 * CRC-checked records, fsync'ed per record) next to the output; no HDF5 is written
 * and no collective call is made. prism_landscape_finish() then writes the HDF5 file
 * once, collectively (each rank its chunk-aligned hyperslab), as NAME.partial, and
 * renames it to NAME. A run stopped by SIGINT/SIGTERM, an error or SIGKILL leaves
 * NAME.partial + NAME.partial.spill/, which --resume (options.resume) continues.
 *
 * Reading (PrismLandscapeFile): collective open, columns read by hyperslab.
 *
 * Conventions here: the schema, option and filter (PrismWhere) functions are local
 * (Collective: no), report errors only where a GError parameter says so, and copy what
 * they are given; every function that touches a file says whether it is collective.
 */
#ifndef PRISM_IO_H
#define PRISM_IO_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include <prism/cluster.h>
#include <prism/comm.h>
#include <prism/cost.h>
#include <prism/front.h>
#include <prism/model.h>
#include <prism/sink.h>
#include <prism/space.h>
#include <prism/strategy.h>

G_BEGIN_DECLS

/** Bumped when a dataset is renamed, retyped or removed, or the dims' columns change
 *  (adding cost columns is compatible). 2: the etp and folding dims (parallel folding,
 *  issue 10), and MoE row indices changed with the space's new etp lane key. 3: the
 *  offload dim and its columns offload_time and host_mem (issue 15); mfu and tokens_per_s
 *  are no longer stored but derived on read from step_time, devices and the per-point
 *  constants of /constants (the /landscape attribute "derived" names them). 4: the overlap
 *  dims tp_overlap, dp_overlap and param_overlap (issue 15; a file of schema 3 holds
 *  every option on, 1). 5: hfu is derived too, from the stored per-segment column
 *  flops_time (issue 11). */
#define PRISM_LANDSCAPE_SCHEMA_VERSION 5

/** Where a column's values come from. */
typedef enum {
    PRISM_LS_SOURCE_DIM = 0,        /**< a PrismDim of the strategy (space.h) */
    PRISM_LS_SOURCE_COST = 1,       /**< a PrismCostCol */
    PRISM_LS_SOURCE_POINT = 2,      /**< the grid point (job id) of the row */
    PRISM_LS_SOURCE_DERIVED = 3,    /**< not stored: computed on read (a PrismCostCol) */
    PRISM_LS_SOURCE_FLOPS_TIME = 4, /**< the batch's flops_time (constant per segment) */
    PRISM_LS_SOURCE_INTERVAL = 5,   /**< a PrismIntervalCol (sink.h): `sweep --intervals` */
} PrismLandscapeSource;

typedef struct PrismLandscapeColumn {
    char *name;
    char *unit;
    char *doc;
    PrismStore store;
    PrismLandscapeSource source; /**< a file's schema (the reader): COST, or DERIVED */
    unsigned index;              /**< PrismDim or PrismCostCol; 0 for POINT (a file's schema: 0) */
    char *codes; /**< code columns: names of codes 0, 1, ... comma-separated; or NULL */
} PrismLandscapeColumn;

/** The ordered column list of a landscape. Plain data; build with the functions below. */
typedef struct PrismLandscapeSchema {
    PrismLandscapeColumn *cols;
    size_t n;
} PrismLandscapeSchema;

/** Empty schema. Not collective. Ownership: prism_landscape_schema_free() (NULL-safe). */
PrismLandscapeSchema *prism_landscape_schema_new(void);
void prism_landscape_schema_free(PrismLandscapeSchema *schema);
/** Append one column (strings are copied). */
void prism_landscape_schema_add(PrismLandscapeSchema *schema, const char *name, const char *unit,
                                const char *doc, PrismStore store, PrismLandscapeSource source,
                                unsigned index);
/** Names of the codes 0, 1, ... of column @p col ("none,selective,full,block"); copied. */
void prism_landscape_schema_set_codes(PrismLandscapeSchema *schema, size_t col, const char *codes);
/**
 * Append `point` and the PRISM_DIM_COUNT strategy dims with their compact types, in
 * the order devices, dp, tp, pp, vpp, cp, ep, etp, sp, mbs, m, zero, recompute,
 * rc_layers, schedule, folding.
 */
/** The interval columns step_lo, step_hi, mem_hi and mem_risk (sink.h PrismIntervalCol:
 *  the corners of the published ranges, not widened; `prism sweep --intervals`). */
void prism_landscape_schema_add_intervals(PrismLandscapeSchema *schema);
void prism_landscape_schema_add_dims(PrismLandscapeSchema *schema);
/**
 * Append every cost column of prism_col_info() in table order, with its store type;
 * the per-level byte columns only for levels < @p n_levels (the cluster's levels).
 */
void prism_landscape_schema_add_cost(PrismLandscapeSchema *schema, uint32_t n_levels);
/** Column position by name, or -1. */
int prism_landscape_schema_find(const PrismLandscapeSchema *schema, const char *name);
/** Bytes of one value of @p store (1, 2, 4 or 8). */
size_t prism_store_size(PrismStore store);
/** "f64", "f32", "u8", "u16", "u32". Static string. */
const char *prism_store_name(PrismStore store);

/** Compression of the /landscape chunks (io/README.md has the measured choice). */
typedef enum PrismCodec {
    PRISM_CODEC_NONE,    /**< chunked datasets, no filters, no checksums */
    PRISM_CODEC_DEFLATE, /**< shuffle + deflate (zlib): every HDF5 reader, no plugin */
    PRISM_CODEC_LZ4,     /**< shuffle + LZ4, registered filter 32004 */
    PRISM_CODEC_ZSTD,    /**< shuffle + Zstandard, registered filter 32015 */
} PrismCodec;

/** "none", "deflate", "lz4", "zstd". Static string. */
const char *prism_codec_name(PrismCodec codec);
/** Codec of @p name (one of the above); FALSE when unknown. */
gboolean prism_codec_parse(const char *name, PrismCodec *out);
/** Default level of @p codec (deflate 1, zstd 1; lz4 and none have no level: 0). */
int prism_codec_default_level(PrismCodec codec);
/**
 * Check @p level for @p codec: deflate 1..9, zstd 1..19, lz4 and none only 0 (no level).
 * Errors: PRISM_INPUT_ERROR_VALUE naming the option, the value and the allowed range.
 */
gboolean prism_codec_check_level(PrismCodec codec, int level, GError **error);

/** Writer options; prism_landscape_options_default() gives the documented defaults. */
typedef struct PrismLandscapeOptions {
    PrismCodec codec;      /**< compression of /landscape (default PRISM_CODEC_ZSTD) */
    int level;             /**< the codec's level (prism_codec_check_level; default 1) */
    uint64_t chunk_rows;   /**< HDF5 chunk length in rows (default 65536) */
    uint64_t spill_rows;   /**< rows per spill record = the SIGKILL loss bound (default 65536) */
    gboolean no_landscape; /**< write attributes, /pareto and /topk only */
    gboolean force;        /**< replace an existing output (and any partial state) */
    gboolean resume;       /**< continue NAME.partial if it exists */
    gboolean fsync;        /**< fdatasync every spill record (default TRUE) */
    gboolean drop_damaged; /**< with resume: check every earlier spill record's CRCs first and
                                drop a damaged one (with the rest of its file) so its rows
                                are recomputed */
} PrismLandscapeOptions;

/** Fill @p opts with the defaults above. Not collective. */
void prism_landscape_options_default(PrismLandscapeOptions *opts);

/** One full row of a small table (/pareto, /topk). */
typedef struct PrismLandscapeRow {
    uint64_t index; /**< global row index */
    uint32_t point; /**< grid point (job id) */
    PrismStrategy strategy;
    double cols[PRISM_COL_COUNT];
    double iv[PRISM_IV_COUNT]; /**< the interval columns (PrismIntervalCol), when stored */
} PrismLandscapeRow;

/** One grid point for /grid (row range of the point in the global index). */
typedef struct PrismGridPointInfo {
    const char *model;   /**< zoo name or config path */
    const char *cluster; /**< preset name or file */
    uint32_t devices;    /**< 0 = several (the device count is a dim of the point) */
    uint64_t gbs, seq;
    uint64_t first_row, rows;
} PrismGridPointInfo;

typedef struct PrismLandscape PrismLandscape;

/**
 * A writer for @p path. Copies @p schema and @p opts. Nothing touches the disk yet.
 * Not collective. Ownership: prism_landscape_free().
 */
PrismLandscape *prism_landscape_new(PrismComm *comm, const char *path,
                                    const PrismLandscapeSchema *schema,
                                    const PrismLandscapeOptions *opts);
/**
 * Free the writer. If it was prepared and never finished, the partial state stays on
 * disk (resumable). Not collective (handles are closed by finish or on error paths).
 */
void prism_landscape_free(PrismLandscape *ls);

/**
 * Add a root attribute (a UTF-8 string; JSON for structured values). Every rank must
 * add the same attributes in the same order. With @p identity TRUE the value defines the
 * run's content: --resume refuses a partial run whose identity attributes differ.
 * Not collective.
 */
void prism_landscape_add_attr(PrismLandscape *ls, const char *name, const char *value,
                              gboolean identity);

/** The grid table (/grid); copied. Call before prism_landscape_finish(). Not collective. */
void prism_landscape_set_grid(PrismLandscape *ls, const PrismGridPointInfo *points, size_t n);
/** Point @p i of the grid table in *out (strings borrowed until the next call); called by
 * rank 0 alone, inside prism_landscape_finish(), so it must not call a collective. */
typedef void (*PrismGridPointFn)(void *user, size_t i, PrismGridPointInfo *out);
/**
 * The grid table (/grid) of @p n points, asked of @p fn point by point when
 * prism_landscape_finish() writes it (nothing is copied: @p user must outlive the
 * finish). Replaces a table given before. Not collective.
 */
void prism_landscape_set_grid_fn(PrismLandscape *ls, size_t n, PrismGridPointFn fn, void *user);

/** Per grid point (one for a single setup): the constants of the derived columns. */
typedef struct PrismLandscapePointConstants {
    double flops_per_step;  /**< prism_cost_model_flops_per_step */
    double peak_flops;      /**< prism_cost_model_peak_flops */
    double tokens_per_step; /**< prism_cost_model_tokens_per_step */
} PrismLandscapePointConstants;

/**
 * The constants of the derived columns (mfu, tokens_per_s) per point, copied; written to
 * /constants, and /landscape then names the derived columns in its "derived" attribute.
 * Without this call the file has neither (nor the derived columns). Not collective.
 */
void prism_landscape_set_constants(PrismLandscape *ls, const PrismLandscapePointConstants *c,
                                   size_t n);

/**
 * Check the output path before any work: NAME, NAME.partial and NAME.partial.lock must be
 * regular files or absent and NAME.partial.spill a folder or absent (devices, FIFOs,
 * sockets, folders and symbolic links are refused even with force); NAME must not exist
 * (unless force); a NAME.partial from an interrupted run needs resume (or force). Then
 * rank 0 takes the lock NAME.partial.lock (held until finish renames the file, or until
 * prism_landscape_free) before anything is deleted. Creates NAME.partial (attributes,
 * status "incomplete") and the spill folder NAME.partial.spill/. Collective: yes.
 * Errors: PRISM_INPUT_ERROR_OUTPUT naming the path and the way out (exists, not a
 * regular file, a symbolic link, locked by another writer (its pid, host and start
 * time), unwritable folder, partial run of a different input), PRISM_RUNTIME_ERROR_IO.
 */
gboolean prism_landscape_prepare(PrismLandscape *ls, GError **error);

/**
 * The sink the search driver feeds (valid while @p ls lives). begin() checks the total
 * against a resumed run and opens this rank's spill file (collective); rows() appends
 * to it, skipping rows persisted by an earlier session (local, no collective call);
 * end() writes the last record (collective: agrees on errors).
 */
PrismRowSink prism_landscape_sink(PrismLandscape *ls); /* the call itself: not collective */

/** The disk a sweep needs and what the output's folder has (prism_landscape_disk_plan). */
typedef struct PrismLandscapeDiskPlan {
    uint64_t rows;           /**< rows of the sweep */
    uint64_t row_bytes;      /**< spill bytes per row assumed (compressed records:
                                  PRISM_SPILL_BYTES_PER_ROW, or the raw row if smaller) */
    uint64_t spill_bytes;    /**< the spill records of every row (headers included) */
    uint64_t file_bytes;     /**< the final file, estimated (io/README.md, "Disk") */
    uint64_t reusable_bytes; /**< an earlier spill folder: reused by --resume, freed by --force */
    uint64_t need_bytes;     /**< spill + file - reusable: the peak, just before the rename */
    uint64_t free_bytes;     /**< statvfs f_bavail x f_frsize of the output's folder */
    gboolean free_known;     /**< FALSE when statvfs failed (the check is then skipped) */
} PrismLandscapeDiskPlan;

/**
 * Estimate the disk a sweep of @p rows rows needs next to the output and measure the free
 * space of its folder (rank 0; every rank gets the same plan). The file estimate is
 * PRISM_LANDSCAPE_FILE_BYTES_PER_ROW per row with compression (the raw row without),
 * plus 1 MiB for attributes and the small tables. Touches nothing. Collective: yes.
 * Errors: PRISM_INPUT_ERROR_OUTPUT when -o names a node prism never writes (a device, a
 * FIFO, a socket, a folder, a symbolic link: prism_landscape_prepare's checks).
 */
gboolean prism_landscape_disk_plan(PrismLandscape *ls, uint64_t rows, PrismLandscapeDiskPlan *plan,
                                   GError **error);
/** Bytes per row the file estimate assumes with compression (measured: 22.5-32.5). */
#define PRISM_LANDSCAPE_FILE_BYTES_PER_ROW 40
/** Bytes per row the spill estimate assumes (compressed records; measured in io/README.md). */
#define PRISM_SPILL_BYTES_PER_ROW 64

/** Rows this rank skipped because an earlier session had persisted them. Not collective. */
uint64_t prism_landscape_rows_skipped(const PrismLandscape *ls);
/** Rows this rank appended to its spill file in this session. Not collective. */
uint64_t prism_landscape_rows_spilled(const PrismLandscape *ls);

/**
 * Write the HDF5 file: the ranks exchange the lists of their spill records, and rank 0
 * alone writes /landscape from them (the records are the file's compressed chunks, copied
 * as they are), /pareto and /topk from @p pareto / @p topk (rows significant on rank 0
 * only), /grid, root attributes with status "complete"; close, rename NAME.partial to
 * NAME, remove the spill folder; every rank agrees on rank 0's verdict. Collective: yes. Errors:
 * PRISM_RUNTIME_ERROR_IO, PRISM_RUNTIME_ERROR_HDF5; on error NAME does not exist and the partial
 * state is kept.
 */
gboolean prism_landscape_finish(PrismLandscape *ls, const PrismLandscapeRow *pareto,
                                size_t n_pareto, const PrismLandscapeRow *topk, size_t n_topk,
                                GError **error);

/**
 * TRUE after prepare or finish failed inside a parallel HDF5 write (for example no space
 * left): HDF5 1.10 cannot close such a file collectively (the failing rank skips
 * internal barriers), so the writer leaves it open and the caller must end the job with
 * MPI_Abort after reporting the error (the partial state stays resumable). Not collective.
 */
gboolean prism_landscape_unrecoverable(const PrismLandscape *ls);

/** Path of the partial file ("NAME.partial"). Static for the writer's lifetime. Not
 * collective. */
const char *prism_landscape_partial_path(const PrismLandscape *ls);

/**
 * Progress of an interrupted run from its spill folder (NAME.partial.spill next to
 * @p partial_path): rows persisted (valid records, overlaps counted once), the total
 * (0 when the run stopped before its first rows) and the number of sessions so far.
 * Not collective. Errors: PRISM_INPUT_ERROR_FILE when there is no spill folder or
 * manifest, PRISM_RUNTIME_ERROR_IO.
 */
gboolean prism_landscape_partial_progress(const char *partial_path, uint64_t *persisted,
                                          uint64_t *total, uint32_t *sessions, GError **error);

/* Reading. */

typedef struct PrismLandscapeFile PrismLandscapeFile;

/**
 * Open a landscape file (complete or .partial) for reading. Collective: yes.
 * Errors: PRISM_INPUT_ERROR_FILE (missing, not HDF5), PRISM_INPUT_ERROR_PARSE (not a
 * prism landscape or a newer schema). Ownership: prism_landscape_file_close().
 */
PrismLandscapeFile *prism_landscape_file_open(PrismComm *comm, const char *path, GError **error);
/** Close. Collective: yes. NULL is a no-op. */
void prism_landscape_file_close(PrismLandscapeFile *f);

/** Rows of the /landscape group (0 for a partial file or --no-landscape). */
uint64_t prism_landscape_file_rows(const PrismLandscapeFile *f);
/** TRUE when the file has /landscape datasets. */
gboolean prism_landscape_file_has_landscape(const PrismLandscapeFile *f);
/** Columns of /landscape in schema order. Borrowed; valid until close. */
const PrismLandscapeSchema *prism_landscape_file_schema(const PrismLandscapeFile *f);
/** Root attribute names in file order. Borrowed; valid until close. */
const char *const *prism_landscape_file_attr_names(const PrismLandscapeFile *f);
/** A root attribute as text, or NULL. Borrowed; valid until close. Not collective. */
const char *prism_landscape_file_attr(const PrismLandscapeFile *f, const char *name);

/**
 * Read rows [first, first + n) of column @p name of group @p group ("landscape",
 * "pareto", "topk", "grid") converted to double into @p out. Each rank passes its own
 * range (n may be 0). Collective: yes. Errors: PRISM_INPUT_ERROR_UNKNOWN_NAME (no such
 * column, close names listed), PRISM_RUNTIME_ERROR_HDF5.
 */
gboolean prism_landscape_file_read(PrismLandscapeFile *f, const char *group, const char *name,
                                   uint64_t first, uint64_t n, double *out, GError **error);
/**
 * The whole of a column of fixed-length strings of a small group (/grid/model and
 * /grid/cluster: each grid point's model and cluster as given), NUL-terminated, on every
 * rank. Collective: yes. Errors: as prism_landscape_file_read(), and
 * PRISM_INPUT_ERROR_PARSE for a column of another type. Ownership: g_strfreev().
 */
char **prism_landscape_file_read_strings(PrismLandscapeFile *f, const char *group, const char *name,
                                         GError **error);
/** Each grid point's /grid/@p name ("model" or "cluster"), or NULL with a warning on
 *  stderr when the file lacks the column or it is not @p n_points long (a reader then
 *  prints "?" and goes on). Collective: yes. Ownership: g_strfreev(). */
char **prism_landscape_file_grid_names(PrismLandscapeFile *f, const char *name, uint64_t n_points);
/** Length of a dataset of a small group (pareto, topk, grid); 0 when absent. */
uint64_t prism_landscape_file_group_rows(PrismLandscapeFile *f, const char *group);

/** The path the file was opened with (borrowed). Not collective. */
const char *prism_landscape_file_path(const PrismLandscapeFile *f);
/** The communicator the file was opened on (borrowed). */
PrismComm *prism_landscape_file_comm(const PrismLandscapeFile *f);
/**
 * Read whole rows at global @p indices (sorted ascending, significant on rank 0) into
 * @p out, row-major (n x schema->n doubles), on rank 0; the other ranks take part
 * with nothing selected. Collective: yes. Errors: PRISM_RUNTIME_ERROR_HDF5,
 * PRISM_INPUT_ERROR_VALUE for an index out of range.
 */
gboolean prism_landscape_file_read_rows(PrismLandscapeFile *f, const uint64_t *indices, size_t n,
                                        double *out, GError **error);

/** What prism_landscape_file_verify() found. */
typedef struct PrismLandscapeVerify {
    uint64_t datasets;     /**< /landscape datasets checked */
    uint64_t chunks;       /**< chunks read (a contiguous dataset counts as one) */
    uint64_t damaged;      /**< chunks that could not be read back */
    gboolean checksummed;  /**< every dataset stores Fletcher32 checksums (compressed) */
    char **damaged_chunks; /**< "/landscape/COL rows A..B (chunk K of N) WHY", every rank */
} PrismLandscapeVerify;

/**
 * Read back every chunk of every /landscape dataset (rank r reads chunks r, r + size, ...
 * in collective reads) and list those that fail: with Fletcher32 (written since this
 * check exists: any codec but none) any flipped bit of a stored chunk is found; older or
 * uncompressed files only fail where decompression fails (checksummed is FALSE then).
 * Collective: yes. Errors: PRISM_RUNTIME_ERROR_HDF5 when a dataset cannot be opened.
 * Ownership: prism_landscape_verify_clear().
 */
gboolean prism_landscape_file_verify(PrismLandscapeFile *f, PrismLandscapeVerify *out,
                                     GError **error);
void prism_landscape_verify_clear(PrismLandscapeVerify *v);

/* Fronts recomputed from a stored landscape (`prism pareto FILE`). */

typedef struct PrismLandscapeQuery {
    const char *objectives; /**< "[min:|max:]COL,..."; NULL: the file's objectives attribute */
    const char *where;      /**< prism_where_parse() text; NULL: every row */
    const char *rank_by;    /**< top-k column; NULL: the file's rank_by, else step_time */
    size_t top_k;           /**< 0: 10 */
} PrismLandscapeQuery;

typedef struct PrismLandscapeAnswer PrismLandscapeAnswer;

/**
 * Per grid point: the Pareto front of the feasible rows passing the filter over the
 * objectives, and the top-k by the rank-by column, merged over ranks (front.h), so the
 * answer is identical for any rank count. Each rank reads its block of rows.
 * Collective: yes. Errors: PRISM_INPUT_ERROR_* (unknown column, bad filter, no
 * landscape), PRISM_RUNTIME_ERROR_HDF5; agreed. Ownership: prism_landscape_answer_free().
 */
PrismLandscapeAnswer *prism_landscape_query(PrismLandscapeFile *f, const PrismLandscapeQuery *q,
                                            GError **error);
void prism_landscape_answer_free(PrismLandscapeAnswer *a);
/** Grid points of the file (largest point id + 1). */
size_t prism_landscape_answer_points(const PrismLandscapeAnswer *a);
/** Rows of @p point passing the filter, and of those the feasible ones. */
uint64_t prism_landscape_answer_matched(const PrismLandscapeAnswer *a, size_t point);
uint64_t prism_landscape_answer_feasible(const PrismLandscapeAnswer *a, size_t point);
/** Borrowed; keys minimised (a max objective negated). */
const PrismFront *prism_landscape_answer_front(const PrismLandscapeAnswer *a, size_t point);
const PrismTopK *prism_landscape_answer_top(const PrismLandscapeAnswer *a, size_t point);
/** Objective columns (schema positions) and directions; returns their number. */
size_t prism_landscape_answer_objectives(const PrismLandscapeAnswer *a, size_t *cols,
                                         gboolean *maximize);
/** The rank-by column (schema position). */
size_t prism_landscape_answer_rank_by(const PrismLandscapeAnswer *a, gboolean *maximize);
/** The canonical filter text ("" for none). Borrowed. */
const char *prism_landscape_answer_where(const PrismLandscapeAnswer *a);

/* Row filters: `--where "tp<=8,pp>=2,schedule=1f1b"`. */

typedef struct PrismWhere PrismWhere;

/**
 * Parse a conjunction of comparisons "COLUMN OP VALUE" separated by commas; OP is one
 * of <= >= < > == = !=; VALUE is a number or, for a code column, one of its code names
 * (schedule=1f1b, recompute=block, reason=ok). Columns are checked against @p schema.
 * An empty or NULL text accepts every row. Not collective.
 * Errors: PRISM_INPUT_ERROR_PARSE (syntax, naming the term), _UNKNOWN_NAME (column or
 * code name, listing close names). Ownership: prism_where_free().
 */
PrismWhere *prism_where_parse(const char *text, const PrismLandscapeSchema *schema, GError **error);
void prism_where_free(PrismWhere *w);
/** Number of comparisons and the schema column of comparison @p i. */
size_t prism_where_n_terms(const PrismWhere *w);
size_t prism_where_column(const PrismWhere *w, size_t i);
/**
 * TRUE when row @p row passes every comparison; @p values[i] holds the column of
 * comparison i (as read by prism_landscape_file_read). NaN fails every comparison.
 */
gboolean prism_where_accepts(const PrismWhere *w, const double *const *values, size_t row);
/** Canonical text ("tp <= 8, schedule == 0"). Ownership: g_free(). */
char *prism_where_describe(const PrismWhere *w, const PrismLandscapeSchema *schema);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismWhere, prism_where_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismLandscapeAnswer, prism_landscape_answer_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismLandscapeSchema, prism_landscape_schema_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismLandscape, prism_landscape_free)

G_END_DECLS

#endif /* PRISM_IO_H */
