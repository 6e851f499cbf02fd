/*
 * io-internal.h - private helpers shared by the io/ files: HDF5 error capture, typed
 * column buffers, the spill-record format and its index.
 */
#ifndef PRISM_IO_INTERNAL_H
#define PRISM_IO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>
#include <hdf5.h>

#include <prism/io.h>

G_BEGIN_DECLS

/* HDF5 */

/** Fill @p error (PRISM_RUNTIME_ERROR_HDF5) from the HDF5 error stack of a failed call. */
void prism_h5_set_error_internal(GError **error, const char *what, const char *call,
                                 const char *file, int line);
#define PRISM_H5_FAILED(error, what, call)                                                         \
    prism_h5_set_error_internal((error), (what), #call, __FILE__, __LINE__)

/**
 * The error capture every HDF5 call in io/ goes through: returns @p rc unchanged; when it
 * is negative (a failed herr_t/hid_t/htri_t/hssize_t) the HDF5 error stack is walked into
 * @p error (PRISM_RUNTIME_ERROR_HDF5, with @p call's text, file and line) unless @p error
 * is NULL or already set; the stack is cleared either way. Not collective.
 */
int64_t prism_h5_try_internal(int64_t rc, GError **error, const char *call, const char *file,
                              int line);
/** Evaluate the HDF5 call @p expr through prism_h5_try_internal(); yields its value. */
#define PRISM_H5_TRY(expr, error)                                                                  \
    prism_h5_try_internal((int64_t)(expr), (error), #expr, __FILE__, __LINE__)

/**
 * Close any HDF5 identifier (file, group, dataset, attribute, space, type, property list)
 * and set *@p id to -1; a negative *@p id is left alone. The close goes through
 * PRISM_H5_TRY into @p error (may be NULL). Returns FALSE when the close failed.
 * Collective when @p id is a file, group or dataset of a file opened with MPI-IO.
 */
gboolean prism_h5_close_internal(hid_t *id, GError **error);

/**
 * TRUE when @p path is an HDF5 file with prism's root attributes (tool "prism" and a
 * schema_version): a landscape prism wrote. Opened read-only with the serial driver.
 * Local (rank 0 of the output checks). Never fails: an unreadable file is FALSE.
 */
gboolean prism_h5_is_landscape_internal(const char *path);

/** Turn off HDF5's own error printing and register prism's filters (io/filters: zstd
 * 32015, lz4 32004), once per process. */
void prism_h5_quiet_internal(void);
/** The HDF5 memory/file type of a store type (a predefined type: never closed). */
hid_t prism_h5_store_type_internal(PrismStore store);
/** The store type of a dataset's file type, FALSE when not one of ours. */
gboolean prism_h5_type_store_internal(hid_t type, PrismStore *out, gboolean *is_u64);

/** Root (or object) attribute: UTF-8 variable-length string. All ranks, same value. */
gboolean prism_h5_attr_string_internal(hid_t obj, const char *name, const char *value,
                                       GError **error);
gboolean prism_h5_attr_u64_internal(hid_t obj, const char *name, uint64_t value, GError **error);
/** Read a string (fixed or variable) or integer attribute as text. Ownership: g_free. */
char *prism_h5_attr_text_internal(hid_t obj, const char *name);

/** File access list for MPI-IO with collective metadata on @p comm. */
hid_t prism_h5_fapl_internal(PrismComm *comm);
/** File creation list: root attributes keep their creation order, and the root's links and
 * attributes stay in its object header (prism_h5_compact_internal). */
hid_t prism_h5_fcpl_internal(void);
/** Links and attributes stay in the (checksummed) object header up to this many. */
#define PRISM_H5_COMPACT_MAX 65535
/** Keep the links and attributes of a group (or file: the root) created with @p gcpl in its
 * object header (io/README.md, "The file"). */
gboolean prism_h5_compact_internal(hid_t gcpl, GError **error);
/** Transfer list for collective MPI-IO. */
hid_t prism_h5_dxpl_internal(void);

/**
 * Create a 1-D dataset of @p total values of @p type in @p loc: chunked when @p chunk > 0
 * (allocated as chunks are written), with shuffle (for values wider than a byte) +
 * @p codec at @p level + Fletcher32 unless @p codec is PRISM_CODEC_NONE; contiguous
 * otherwise. Collective when the file is parallel.
 */
hid_t prism_h5_dataset_create_internal(hid_t loc, const char *name, hid_t type, uint64_t total,
                                       uint64_t chunk, PrismCodec codec, int level, GError **error);
/**
 * Collective write of rows [first, first + n) of a 1-D dataset from @p buf (memory type
 * == file type). n == 0 selects nothing but still takes part.
 */
gboolean prism_h5_write_range_internal(hid_t dset, hid_t type, hid_t dxpl, uint64_t first,
                                       uint64_t n, const void *buf, GError **error);
/** Collective read of rows [first, first + n) in the file type into @p buf. */
gboolean prism_h5_read_range_internal(hid_t dset, hid_t type, hid_t dxpl, uint64_t first,
                                      uint64_t n, void *buf, GError **error);

/* Typed column buffers */

/** Convert rows [from, from + n) of @p batch into @p bufs (one per column) at row @p at. */
void prism_io_pack_batch_internal(const PrismLandscapeSchema *schema, const PrismRowBatch *batch,
                                  size_t from, size_t n, void *const *bufs, size_t at);
/** Convert one table row into @p bufs at row @p at. */
void prism_io_pack_row_internal(const PrismLandscapeSchema *schema, const PrismLandscapeRow *row,
                                void *const *bufs, size_t at);
/** Value @p i of a typed buffer as double. */
double prism_io_load_internal(PrismStore store, const void *buf, size_t i);
/** Bytes of one row of @p schema (sum of column sizes). */
size_t prism_io_row_bytes_internal(const PrismLandscapeSchema *schema);
/** Column of @p name in @p schema, accepting the cost model's and the objectives' aliases
 * (time.step, step, memory, throughput, ...); -1 when unknown. */
int prism_io_schema_resolve_internal(const PrismLandscapeSchema *schema, const char *name);
/** The column names closest to @p name, "a, b, c". Ownership: g_free(). */
char *prism_io_schema_close_names_internal(const PrismLandscapeSchema *schema, const char *name);
/** Deep copy. */
PrismLandscapeSchema *prism_io_schema_copy_internal(const PrismLandscapeSchema *schema);

/* Chunks (io_chunk.c): HDF5's filter pipeline of a landscape column (shuffle for values
 * wider than a byte, the codec, Fletcher32; nothing for PRISM_CODEC_NONE), run outside
 * HDF5 so that a chunk encoded once is written with H5Dwrite_chunk as it is. */
typedef struct PrismChunkCoder PrismChunkCoder;
PrismChunkCoder *prism_chunk_coder_new(void);
void prism_chunk_coder_free(PrismChunkCoder *cc);
/** HDF5's Fletcher32 of @p len bytes. */
uint32_t prism_chunk_fletcher32(const void *data, size_t len);
/**
 * Encode @p n values of @p vsize bytes as one chunk of @p n_enc >= n values (the rest
 * zero, as HDF5 pads an edge chunk): *@p out (owned by @p cc, valid until its next call)
 * and *@p size. Errors: PRISM_RUNTIME_ERROR_INTERNAL (the codec failed).
 */
gboolean prism_chunk_encode(PrismChunkCoder *cc, PrismCodec codec, int level, const void *src,
                            size_t n, size_t n_enc, size_t vsize, const void **out, size_t *size,
                            GError **error);
/** Decode a chunk of @p n_enc values into @p dst; FALSE when it is damaged. */
gboolean prism_chunk_decode(PrismChunkCoder *cc, PrismCodec codec, const void *src, size_t size,
                            size_t n_enc, size_t vsize, void *dst);
/** The most bytes an encoded chunk of @p raw bytes can take with @p codec. */
size_t prism_chunk_bound(PrismCodec codec, size_t raw);

/* Spill records (io_spill.c). A record holds rows [first, first + n) of every column:
 *   header: magic "PRISMSP3", u64 first, u32 n, u32 n_cols, u64 payload bytes, u32 codec,
 *           i32 level, u32 n_enc, u32 0, u32 stored size of each column segment, u32 crc32
 *           of each stored segment, u32 crc32 of everything before it;
 *   payload: column 0's segment, column 1's, ...: its n values (host byte order), padded
 *           with zeros to n_enc values, encoded as an HDF5 chunk (prism_chunk_encode) with
 *           the codec and level of the header.
 * A record is valid when its header CRC matches and its payload lies inside the file;
 * scanning stops at the first invalid record (a torn tail after SIGKILL). A record whose
 * rows are one whole chunk of the file, in the file's codec, is copied into the file as
 * it is (io_finish.c). */

typedef struct PrismSpillRecord {
    uint32_t file;    /**< index into the spill file table */
    uint32_t n;       /**< rows */
    uint64_t offset;  /**< byte offset of the header in the file */
    uint64_t first;   /**< global index of row 0 */
    uint64_t payload; /**< stored bytes after the header */
    uint32_t codec;   /**< PrismCodec of the segments */
    int32_t level;    /**< its level */
    uint32_t n_enc;   /**< values per encoded segment (n, or a whole edge chunk) */
    uint32_t unused;
} PrismSpillRecord;

/** Order records by first row, then file id (for g_array_sort). */
gint prism_spill_record_cmp_internal(gconstpointer a, gconstpointer b);

/** Header size of a record with @p n_cols columns. */
size_t prism_spill_header_size_internal(size_t n_cols);

/**
 * Append one record (rows [first, first + n) held column-wise in @p bufs, encoded with
 * @p codec at @p level as chunks of @p n_enc values) to the open file @p fd at its end,
 * then fdatasync when @p sync. Fills *@p rec except its file id.
 * Errors: PRISM_RUNTIME_ERROR_IO naming @p path and errno.
 */
gboolean prism_spill_append_internal(int fd, const char *path, uint64_t *file_size,
                                     const PrismLandscapeSchema *schema, PrismChunkCoder *cc,
                                     PrismCodec codec, int level, uint64_t first, uint32_t n,
                                     uint32_t n_enc, void *const *bufs, gboolean sync,
                                     PrismSpillRecord *rec, GError **error);

/**
 * Scan @p path and append its valid records (file id @p file_id) to @p out. Stops at the
 * first invalid record; *@p torn is set when the file had trailing bytes after the last
 * valid record. Records of another schema are an error (PRISM_INPUT_ERROR_OUTPUT).
 */
gboolean prism_spill_scan_internal(const char *path, uint32_t file_id,
                                   const PrismLandscapeSchema *schema, GArray *out, gboolean *torn,
                                   GError **error);

/**
 * Read rows [lo, hi) (global indices inside the record) of column @p col of record
 * @p rec from the open file @p fd (@p path for messages) into @p dst at row
 * (lo - dst_first). The whole stored segment is read and decoded (@p scratch is reused
 * across calls; @p cc may be NULL); with @p verify its CRC is checked first (records of
 * earlier sessions), without (records this process wrote in this session) only a segment
 * that fails to decode (or its Fletcher32) is reported. Errors: PRISM_RUNTIME_ERROR_IO
 * (read failure or CRC mismatch, naming the file and offset).
 */
gboolean prism_spill_read_column_internal(int fd, const char *path,
                                          const PrismLandscapeSchema *schema,
                                          const PrismSpillRecord *rec, size_t col, uint64_t lo,
                                          uint64_t hi, void *dst, uint64_t dst_first,
                                          gboolean verify, PrismChunkCoder *cc, GByteArray *scratch,
                                          GError **error);
/** The stored bytes of column @p col of @p rec into @p out (CRC-checked with @p verify). */
gboolean prism_spill_read_segment_internal(int fd, const char *path,
                                           const PrismLandscapeSchema *schema,
                                           const PrismSpillRecord *rec, size_t col, gboolean verify,
                                           GByteArray *out, GError **error);

G_END_DECLS

#endif /* PRISM_IO_INTERNAL_H */
