/*
 * h5z_codecs.c - Zstandard (32015) and LZ4 (32004) as HDF5 filters; the formats are in
 * h5z-codecs.h. A filter returns the size of the new buffer, or 0 on failure (HDF5 then
 * fails the read or write naming the filter). Buffers are malloc'ed and freed with free(),
 * as HDF5's release library does for filter buffers.
 */
#include "h5z-codecs.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#include <zstd.h>

/* Replace *buf (of *buf_size bytes) with @p out of @p n bytes. */
static size_t swap_buffer(void **buf, size_t *buf_size, void *out, size_t cap, size_t n)
{
    free(*buf);
    *buf = out;
    *buf_size = cap;
    return n;
}

/* One compression and one decompression context per process, reused for every chunk
 * (ZSTD_compress would allocate and free about a megabyte of tables per chunk). HDF5
 * calls filters one at a time (the library is not re-entrant; its thread-safe build
 * holds a global lock around every call), so they need no lock of their own. */
static ZSTD_CCtx *cctx;
static ZSTD_DCtx *dctx;

static size_t zstd_filter(unsigned int flags, size_t cd_nelmts, const unsigned int cd_values[],
                          size_t nbytes, size_t *buf_size, void **buf)
{
    if (flags & H5Z_FLAG_REVERSE) {
        unsigned long long n = ZSTD_getFrameContentSize(*buf, nbytes);
        if (n == ZSTD_CONTENTSIZE_UNKNOWN || n == ZSTD_CONTENTSIZE_ERROR || n > SIZE_MAX)
            return 0;
        void *out = malloc(n > 0 ? (size_t)n : 1);
        if (out == NULL)
            return 0;
        if (dctx == NULL)
            dctx = ZSTD_createDCtx();
        size_t got = dctx ? ZSTD_decompressDCtx(dctx, out, (size_t)n, *buf, nbytes)
                          : ZSTD_decompress(out, (size_t)n, *buf, nbytes);
        if (ZSTD_isError(got) || got != n) {
            free(out);
            return 0;
        }
        return swap_buffer(buf, buf_size, out, (size_t)n, got);
    }
    int level = cd_nelmts > 0 ? (int)cd_values[0] : ZSTD_CLEVEL_DEFAULT;
    size_t cap = ZSTD_compressBound(nbytes);
    void *out = malloc(cap);
    if (out == NULL)
        return 0;
    if (cctx == NULL)
        cctx = ZSTD_createCCtx();
    size_t got = cctx ? ZSTD_compressCCtx(cctx, out, cap, *buf, nbytes, level)
                      : ZSTD_compress(out, cap, *buf, nbytes, level);
    if (ZSTD_isError(got)) {
        free(out);
        return 0;
    }
    return swap_buffer(buf, buf_size, out, cap, got);
}

static void put_be(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = bytes - 1; i >= 0; i--, v >>= 8)
        p[i] = (unsigned char)(v & 0xff);
}

static uint64_t get_be(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v = v << 8 | p[i];
    return v;
}

#define LZ4_DEFAULT_BLOCK (1u << 30)

size_t prism_lz4_chunk_bound(size_t nbytes, size_t block)
{
    if (block == 0 || block > (size_t)LZ4_MAX_INPUT_SIZE)
        block = LZ4_MAX_INPUT_SIZE;
    if (block > nbytes)
        block = nbytes;
    size_t n_blocks = block > 0 ? (nbytes + block - 1) / block : 0;
    return 12 + n_blocks * (4 + (size_t)LZ4_compressBound((int)block));
}

size_t prism_lz4_chunk_encode(const void *src, size_t nbytes, size_t block, void *dst)
{
    const unsigned char *in = src;
    unsigned char *out = dst;
    if (block == 0 || block > (size_t)LZ4_MAX_INPUT_SIZE)
        block = LZ4_MAX_INPUT_SIZE;
    if (block > nbytes)
        block = nbytes;
    put_be(out, nbytes, 8);
    put_be(out + 8, block, 4);
    size_t pos = 12;
    for (size_t done = 0; done < nbytes;) {
        size_t bs = nbytes - done < block ? nbytes - done : block;
        int got = LZ4_compress_default((const char *)in + done, (char *)out + pos + 4, (int)bs,
                                       LZ4_compressBound((int)bs));
        if (got <= 0 || (size_t)got >= bs) { /* not smaller: store the block raw */
            memcpy(out + pos + 4, in + done, bs);
            got = (int)bs;
        }
        put_be(out + pos, (uint64_t)got, 4);
        pos += 4 + (size_t)got;
        done += bs;
    }
    return pos;
}

uint64_t prism_lz4_chunk_size(const void *src, size_t nbytes)
{
    return nbytes < 12 ? UINT64_MAX : get_be(src, 8);
}

int prism_lz4_chunk_decode(const void *src, size_t nbytes, void *dst, size_t dst_size)
{
    const unsigned char *in = src;
    unsigned char *out = dst;
    if (nbytes < 12)
        return -1;
    uint64_t orig = get_be(in, 8);
    uint64_t block = get_be(in + 8, 4);
    if (orig != dst_size || (block == 0 && orig > 0))
        return -1;
    size_t pos = 12, done = 0;
    while (done < orig) {
        size_t bs = (size_t)(orig - done < block ? orig - done : block);
        if (pos + 4 > nbytes)
            return -1;
        size_t stored = (size_t)get_be(in + pos, 4);
        pos += 4;
        if (stored > nbytes - pos)
            return -1;
        if (stored == bs) {
            memcpy(out + done, in + pos, bs);
        } else {
            int got = LZ4_decompress_safe((const char *)in + pos, (char *)out + done, (int)stored,
                                          (int)bs);
            if (got < 0 || (size_t)got != bs)
                return -1;
        }
        pos += stored;
        done += bs;
    }
    return 0;
}

static size_t lz4_filter(unsigned int flags, size_t cd_nelmts, const unsigned int cd_values[],
                         size_t nbytes, size_t *buf_size, void **buf)
{
    if (flags & H5Z_FLAG_REVERSE) {
        uint64_t orig = prism_lz4_chunk_size(*buf, nbytes);
        if (orig > SIZE_MAX)
            return 0;
        unsigned char *out = malloc(orig > 0 ? (size_t)orig : 1);
        if (out == NULL)
            return 0;
        if (prism_lz4_chunk_decode(*buf, nbytes, out, (size_t)orig) != 0) {
            free(out);
            return 0;
        }
        return swap_buffer(buf, buf_size, out, (size_t)orig, (size_t)orig);
    }
    size_t block = cd_nelmts > 0 && cd_values[0] > 0 ? cd_values[0] : LZ4_DEFAULT_BLOCK;
    size_t cap = prism_lz4_chunk_bound(nbytes, block);
    unsigned char *out = malloc(cap);
    if (out == NULL)
        return 0;
    size_t pos = prism_lz4_chunk_encode(*buf, nbytes, block, out);
    return swap_buffer(buf, buf_size, out, cap, pos);
}

static const H5Z_class2_t zstd_class = {
    H5Z_CLASS_T_VERS, (H5Z_filter_t)PRISM_H5Z_FILTER_ZSTD, 1, 1, "zstd (prism)", NULL, NULL,
    zstd_filter};
static const H5Z_class2_t lz4_class = {
    H5Z_CLASS_T_VERS, (H5Z_filter_t)PRISM_H5Z_FILTER_LZ4, 1, 1, "lz4 (prism)", NULL, NULL,
    lz4_filter};

const H5Z_class2_t *prism_h5z_zstd_class(void)
{
    return &zstd_class;
}

const H5Z_class2_t *prism_h5z_lz4_class(void)
{
    return &lz4_class;
}
