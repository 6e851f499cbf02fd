// SPDX-License-Identifier: MIT
/*
 * io_spill.c - append-only spill records (format in io-internal.h): append with
 * sequential write() + fdatasync, scan with validation, column reads with CRC checks.
 *
 * Why this survives SIGKILL: a record is appended with sequential write() calls, so a
 * killed process leaves a prefix of its bytes in the file; a record counts only when
 * its header CRC matches and its whole payload lies inside the file, and scanning stops
 * at the first record that does not (the torn tail). Nothing is ever rewritten.
 * Not collective; each rank appends to its own file. Not thread-safe.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h> /* pread, write, fdatasync */

#include <zlib.h> /* crc32 */

#include <prism/core.h>

#include "io-internal.h"

#define MAGIC "PRISMSP3"
#define FIXED_BYTES 48 /* magic, first, n, n_cols, payload, codec, level, n_enc, 0 */

size_t prism_spill_header_size_internal(size_t n_cols)
{
    return FIXED_BYTES + 8 * n_cols + 4;
}

/* Offsets in the header of column c's stored size and CRC. */
static size_t size_at(size_t c)
{
    return FIXED_BYTES + 4 * c;
}

static size_t crc_at(size_t n_cols, size_t c)
{
    return FIXED_BYTES + 4 * n_cols + 4 * c;
}

static uint32_t crc_of(const void *p, size_t n)
{
    uLong c = crc32(0L, Z_NULL, 0);
    const Bytef *b = p;
    while (n > 0) { /* zlib takes uInt lengths */
        uInt step = n > (1u << 30) ? (1u << 30) : (uInt)n;
        c = crc32(c, b, step);
        b += step;
        n -= step;
    }
    return (uint32_t)c;
}

static gboolean write_all(int fd, const char *path, const void *p, size_t n, GError **error)
{
    const char *b = p;
    while (n > 0) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : EIO;
            g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_IO, "writing %s: %s", path,
                        g_strerror(e));
            return FALSE;
        }
        b += w;
        n -= (size_t)w;
    }
    return TRUE;
}

static gboolean pread_all(int fd, const char *path, void *p, size_t n, uint64_t off, GError **error)
{
    char *b = p;
    while (n > 0) {
        ssize_t r = pread(fd, b, n, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_IO,
                        "reading %s at byte %" G_GUINT64_FORMAT ": %s", path, off,
                        r < 0 ? g_strerror(errno) : "unexpected end of file");
            return FALSE;
        }
        b += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return TRUE;
}

gboolean prism_spill_append_internal(int fd, const char *path, uint64_t *file_size,
                                     const PrismLandscapeSchema *schema, PrismChunkCoder *cc,
                                     PrismCodec codec, int level, uint64_t first, uint32_t n,
                                     uint32_t n_enc, void *const *bufs, gboolean sync,
                                     PrismSpillRecord *rec, GError **error)
{
    size_t hsize = prism_spill_header_size_internal(schema->n);
    g_autofree unsigned char *h = g_malloc0(hsize);
    uint32_t n_cols = (uint32_t)schema->n, c32 = (uint32_t)codec;
    int32_t l32 = level;
    memcpy(h, MAGIC, 8);
    memcpy(h + 8, &first, 8);
    memcpy(h + 16, &n, 4);
    memcpy(h + 20, &n_cols, 4);
    memcpy(h + 32, &c32, 4);
    memcpy(h + 36, &l32, 4);
    memcpy(h + 40, &n_enc, 4);
    /* The header goes first, so every segment is encoded before anything is written: the
     * segments are kept in one buffer. */
    g_autoptr(GByteArray) body = g_byte_array_new();
    for (size_t c = 0; c < schema->n; c++) {
        const void *seg = NULL;
        size_t stored = 0;
        if (!prism_chunk_encode(cc, codec, level, bufs[c], n, n_enc,
                                prism_store_size(schema->cols[c].store), &seg, &stored, error))
            return FALSE;
        uint32_t s32 = (uint32_t)stored, crc = crc_of(seg, stored);
        memcpy(h + size_at(c), &s32, 4);
        memcpy(h + crc_at(schema->n, c), &crc, 4);
        g_byte_array_append(body, seg, (guint)stored);
    }
    uint64_t payload = body->len;
    memcpy(h + 24, &payload, 8);
    uint32_t hcrc = crc_of(h, hsize - 4);
    memcpy(h + hsize - 4, &hcrc, 4);
    /* Sequential writes: header, then the column segments in order (see file comment). */
    if (!write_all(fd, path, h, hsize, error) || !write_all(fd, path, body->data, body->len, error))
        return FALSE;
    if (sync && fdatasync(fd) != 0) {
        g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_IO, "syncing %s: %s", path,
                    g_strerror(errno));
        return FALSE;
    }
    memset(rec, 0, sizeof *rec);
    rec->offset = *file_size;
    rec->first = first;
    rec->n = n;
    rec->payload = payload;
    rec->codec = c32;
    rec->level = l32;
    rec->n_enc = n_enc;
    *file_size += hsize + payload;
    return TRUE;
}

gboolean prism_spill_scan_internal(const char *path, uint32_t file_id,
                                   const PrismLandscapeSchema *schema, GArray *out, gboolean *torn,
                                   GError **error)
{
    *torn = FALSE;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_IO, "opening %s: %s", path,
                    g_strerror(errno));
        return FALSE;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_IO, "stat %s: %s", path,
                    g_strerror(errno));
        close(fd);
        return FALSE;
    }
    uint64_t size = (uint64_t)st.st_size, off = 0;
    size_t hsize = prism_spill_header_size_internal(schema->n);
    g_autofree unsigned char *h = g_malloc(hsize);
    guint start_len = out->len;
    gboolean ok = TRUE;
    while (off + hsize <= size) {
        GError *local = NULL;
        if (!pread_all(fd, path, h, hsize, off, &local)) {
            g_propagate_error(error, local);
            ok = FALSE;
            break;
        }
        uint64_t first, payload;
        uint32_t n, n_cols, hcrc, codec, n_enc;
        int32_t level;
        memcpy(&first, h + 8, 8);
        memcpy(&n, h + 16, 4);
        memcpy(&n_cols, h + 20, 4);
        memcpy(&payload, h + 24, 8);
        memcpy(&codec, h + 32, 4);
        memcpy(&level, h + 36, 4);
        memcpy(&n_enc, h + 40, 4);
        memcpy(&hcrc, h + hsize - 4, 4);
        if (memcmp(h, MAGIC, 8) != 0 || crc_of(h, hsize - 4) != hcrc)
            break; /* torn or foreign bytes: the valid prefix ends here */
        uint64_t sum = 0;
        gboolean sizes_ok = n_cols == schema->n && codec <= PRISM_CODEC_ZSTD && n_enc >= n;
        for (size_t c = 0; sizes_ok && c < schema->n; c++) {
            uint32_t stored;
            memcpy(&stored, h + size_at(c), 4);
            sum += stored;
            sizes_ok = stored <=
                       prism_chunk_bound((PrismCodec)codec,
                                         (size_t)n_enc * prism_store_size(schema->cols[c].store));
        }
        if (!sizes_ok || payload != sum) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_OUTPUT,
                        "%s: spill record at byte %" G_GUINT64_FORMAT
                        " has %u columns and %" G_GUINT64_FORMAT
                        " payload bytes, which this run's %zu columns cannot hold (different "
                        "schema)",
                        path, off, n_cols, payload, schema->n);
            ok = FALSE;
            break;
        }
        if (off + hsize + payload > size)
            break; /* payload cut short */
        PrismSpillRecord rec = {file_id, n, off, first, payload, codec, level, n_enc, 0};
        g_array_append_val(out, rec);
        off += hsize + payload;
    }
    /* The last record is the one a crash (not a kill) could leave half-synced: check its
     * payload now rather than at assembly time. */
    if (ok && out->len > start_len) {
        PrismSpillRecord *last = &g_array_index(out, PrismSpillRecord, out->len - 1);
        g_autoptr(GByteArray) scratch = g_byte_array_new();
        for (size_t c = 0; c < schema->n; c++) {
            if (!prism_spill_read_column_internal(fd, path, schema, last, c, last->first,
                                                  last->first, NULL, 0, TRUE, NULL, scratch,
                                                  NULL)) {
                off = last->offset;
                g_array_set_size(out, out->len - 1);
                break;
            }
        }
    }
    if (ok)
        *torn = off != size;
    close(fd);
    return ok;
}

/* The one message of a damaged record (a CRC or a chunk that does not decode). */
static gboolean damaged(const char *path, const PrismLandscapeSchema *schema,
                        const PrismSpillRecord *rec, size_t col, GError **error)
{
    g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_IO,
                "%s: spill record at byte %" G_GUINT64_FORMAT " (rows %" G_GUINT64_FORMAT
                "..%" G_GUINT64_FORMAT
                ") fails its checksum in column '%s': the record is damaged; rerun with "
                "--resume --drop-damaged to recompute its rows",
                path, rec->offset, rec->first, rec->first + rec->n - 1, schema->cols[col].name);
    return FALSE;
}

gboolean prism_spill_read_segment_internal(int fd, const char *path,
                                           const PrismLandscapeSchema *schema,
                                           const PrismSpillRecord *rec, size_t col, gboolean verify,
                                           GByteArray *out, GError **error)
{
    size_t hsize = prism_spill_header_size_internal(schema->n);
    /* The stored sizes of columns 0..col and col's CRC, from the header. */
    g_autofree unsigned char *h = g_malloc(hsize);
    if (!pread_all(fd, path, h, hsize, rec->offset, error))
        return FALSE;
    uint64_t seg = rec->offset + hsize;
    uint32_t stored = 0, want = 0;
    for (size_t c = 0; c <= col; c++) {
        seg += stored;
        memcpy(&stored, h + size_at(c), 4);
    }
    memcpy(&want, h + crc_at(schema->n, col), 4);
    g_byte_array_set_size(out, stored);
    if (stored > 0 && !pread_all(fd, path, out->data, stored, seg, error))
        return FALSE;
    if (verify && crc_of(out->data, stored) != want) {
        return damaged(path, schema, rec, col, error);
    }
    return TRUE;
}

gboolean prism_spill_read_column_internal(int fd, const char *path,
                                          const PrismLandscapeSchema *schema,
                                          const PrismSpillRecord *rec, size_t col, uint64_t lo,
                                          uint64_t hi, void *dst, uint64_t dst_first,
                                          gboolean verify, PrismChunkCoder *cc, GByteArray *scratch,
                                          GError **error)
{
    size_t vsize = prism_store_size(schema->cols[col].store);
    size_t raw = (size_t)rec->n_enc * vsize;
    if (!prism_spill_read_segment_internal(fd, path, schema, rec, col, verify, scratch, error))
        return FALSE;
    size_t stored = scratch->len;
    g_byte_array_set_size(scratch, (guint)(stored + raw));
    unsigned char *packed = scratch->data, *plain = scratch->data + stored;
    PrismChunkCoder *own = cc == NULL ? prism_chunk_coder_new() : NULL;
    gboolean good = prism_chunk_decode(cc ? cc : own, (PrismCodec)rec->codec, packed, stored,
                                       rec->n_enc, vsize, plain);
    prism_chunk_coder_free(own);
    if (!good) {
        return damaged(path, schema, rec, col, error);
    }
    if (hi > lo)
        memcpy((unsigned char *)dst + (lo - dst_first) * vsize, plain + (lo - rec->first) * vsize,
               (size_t)(hi - lo) * vsize);
    return TRUE;
}

gint prism_spill_record_cmp_internal(gconstpointer a, gconstpointer b)
{
    const PrismSpillRecord *x = a, *y = b;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    return x->file < y->file ? -1 : x->file > y->file;
}
