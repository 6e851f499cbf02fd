// SPDX-License-Identifier: MIT
/*
 * io_chunk.c - HDF5's filter pipeline of a landscape column, run outside HDF5: byte
 * shuffle (values wider than a byte), the codec (zstd 32015, lz4 32004, deflate 1), then
 * Fletcher32 (HDF5's variant: 16-bit big-endian words, the checksum appended
 * little-endian). The output is byte for byte what HDF5 stores for the chunk, so the
 * spill records are finished chunks that the final write hands to H5Dwrite_chunk
 * without decompressing them, and the same bytes decode the records that cannot be
 * copied (a chunk split between records). With PRISM_CODEC_NONE the chunk is the raw
 * values. One coder per thread (it owns its zstd contexts and scratch buffers).
 */
#include <string.h>

#include <lz4.h>
#include <zlib.h>
#include <zstd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <prism/core.h>

#include "filters/h5z-codecs.h"
#include "io-internal.h"

struct PrismChunkCoder {
    ZSTD_CCtx *cctx;
    ZSTD_DCtx *dctx;
    GByteArray *a, *b; /* padded / shuffled values, codec output */
};

PrismChunkCoder *prism_chunk_coder_new(void)
{
    PrismChunkCoder *cc = g_new0(PrismChunkCoder, 1);
    cc->a = g_byte_array_new();
    cc->b = g_byte_array_new();
    return cc;
}

void prism_chunk_coder_free(PrismChunkCoder *cc)
{
    if (cc == NULL)
        return;
    ZSTD_freeCCtx(cc->cctx);
    ZSTD_freeDCtx(cc->dctx);
    g_byte_array_unref(cc->a);
    g_byte_array_unref(cc->b);
    g_free(cc);
}

/* Byte transpose: byte k of value i goes to k * n + i (HDF5's shuffle). The vsize
 * output streams of a whole chunk lie n bytes apart (n = 65,536 by default), so writing
 * them value by value makes them evict each other from the cache (same sets); a tile of
 * TILE values is transposed in a small buffer first, then each of its rows is copied out. */
#define TILE 512

/* Rows of a tile: byte k of values at..m-1 (v points at value at) to tile[k][at..m-1].
 * Inlined with a constant VS, so the byte loop is unrolled. */
static inline __attribute__((always_inline)) void
to_tile(unsigned char (*tile)[TILE], const unsigned char *v, size_t at, size_t m, size_t vs)
{
    for (size_t i = at; i < m; i++, v += vs)
        for (size_t k = 0; k < vs; k++)
            tile[k][i] = v[k];
}

/* Transpose the 8 x 8 byte matrix of 8 values (x[i] = value i, its byte k at bits 8k):
 * afterwards x[k] holds byte k of values 0..7. Swap the off-diagonal 4 x 4 blocks, then
 * the 2 x 2 blocks inside each, then single bytes. */
static inline void transpose8(uint64_t x[8])
{
    for (int i = 0; i < 4; i++) {
        uint64_t t = ((x[i] >> 32) ^ x[i + 4]) & 0x00000000ffffffffull;
        x[i] ^= t << 32;
        x[i + 4] ^= t;
    }
    for (int i = 0; i < 8; i++) {
        if ((i & 2) == 0) {
            uint64_t t = ((x[i] >> 16) ^ x[i + 2]) & 0x0000ffff0000ffffull;
            x[i] ^= t << 16;
            x[i + 2] ^= t;
        }
    }
    for (int i = 0; i < 8; i += 2) {
        uint64_t t = ((x[i] >> 8) ^ x[i + 1]) & 0x00ff00ff00ff00ffull;
        x[i] ^= t << 8;
        x[i + 1] ^= t;
    }
}

/* The same for 4 values of 4 bytes. */
static inline void transpose4(uint32_t x[4])
{
    for (int i = 0; i < 2; i++) {
        uint32_t t = ((x[i] >> 16) ^ x[i + 2]) & 0x0000ffffu;
        x[i] ^= t << 16;
        x[i + 2] ^= t;
    }
    for (int i = 0; i < 4; i += 2) {
        uint32_t t = ((x[i] >> 8) ^ x[i + 1]) & 0x00ff00ffu;
        x[i] ^= t << 8;
        x[i + 1] ^= t;
    }
}

#if defined(__SSE2__)
/* One step of a byte transpose in SSE2 registers: registers x and y are interleaved
 * byte by byte, the low halves into x, the high halves into y. A round applies it to
 * the 4 pairs of registers a, a | 2^s (bit s of a clear); in the address (register bits,
 * byte bits) of each byte a round moves the top byte bit into register bit s and
 * register bit s into the bottom byte bit. Written out, so the registers stay registers. */
#define SSE_ZIP(x, y)                                                                              \
    do {                                                                                           \
        __m128i lo_ = _mm_unpacklo_epi8(x, y), hi_ = _mm_unpackhi_epi8(x, y);                      \
        x = lo_;                                                                                   \
        y = hi_;                                                                                   \
    } while (0)
#define SSE_ROUND0(r)                                                                              \
    do {                                                                                           \
        SSE_ZIP(r[0], r[1]);                                                                       \
        SSE_ZIP(r[2], r[3]);                                                                       \
        SSE_ZIP(r[4], r[5]);                                                                       \
        SSE_ZIP(r[6], r[7]);                                                                       \
    } while (0)
#define SSE_ROUND1(r)                                                                              \
    do {                                                                                           \
        SSE_ZIP(r[0], r[2]);                                                                       \
        SSE_ZIP(r[1], r[3]);                                                                       \
        SSE_ZIP(r[4], r[6]);                                                                       \
        SSE_ZIP(r[5], r[7]);                                                                       \
    } while (0)
#define SSE_ROUND2(r)                                                                              \
    do {                                                                                           \
        SSE_ZIP(r[0], r[4]);                                                                       \
        SSE_ZIP(r[1], r[5]);                                                                       \
        SSE_ZIP(r[2], r[6]);                                                                       \
        SSE_ZIP(r[3], r[7]);                                                                       \
    } while (0)

/* 16 values of 8 bytes (register q holds values 2q, 2q + 1): after rounds on bits 2, 1,
 * 0, 2, register j holds byte k = ((j & 3) << 1) | (j >> 2) of the 16 values, in order. */
static inline void sse_block8(unsigned char (*tile)[TILE], size_t i, const unsigned char *v)
{
    __m128i r[8];
    for (int q = 0; q < 8; q++)
        r[q] = _mm_loadu_si128((const __m128i *)(const void *)(v + 16 * q));
    SSE_ROUND2(r);
    SSE_ROUND1(r);
    SSE_ROUND0(r);
    SSE_ROUND2(r);
#define SSE_OUT(j, k, at) _mm_storeu_si128((__m128i *)(void *)&tile[k][at], r[j])
    SSE_OUT(0, 0, i);
    SSE_OUT(1, 2, i);
    SSE_OUT(2, 4, i);
    SSE_OUT(3, 6, i);
    SSE_OUT(4, 1, i);
    SSE_OUT(5, 3, i);
    SSE_OUT(6, 5, i);
    SSE_OUT(7, 7, i);
}

/* 32 values of 4 bytes (register q holds values 4q..4q+3): after rounds on bits 1, 0,
 * 1, 0, register j holds byte j & 3 of values 16 (j >> 2) .. 16 (j >> 2) + 15. */
static inline void sse_block4(unsigned char (*tile)[TILE], size_t i, const unsigned char *v)
{
    __m128i r[8];
    for (int q = 0; q < 8; q++)
        r[q] = _mm_loadu_si128((const __m128i *)(const void *)(v + 16 * q));
    SSE_ROUND1(r);
    SSE_ROUND0(r);
    SSE_ROUND1(r);
    SSE_ROUND0(r);
    SSE_OUT(0, 0, i);
    SSE_OUT(1, 1, i);
    SSE_OUT(2, 2, i);
    SSE_OUT(3, 3, i);
    SSE_OUT(4, 0, i + 16);
    SSE_OUT(5, 1, i + 16);
    SSE_OUT(6, 2, i + 16);
    SSE_OUT(7, 3, i + 16);
#undef SSE_OUT
}
#endif

static void shuffle(unsigned char *restrict dst, const unsigned char *restrict src, size_t n,
                    size_t vsize)
{
    unsigned char tile[8][TILE];
    for (size_t i0 = 0; i0 < n; i0 += TILE) {
        size_t m = n - i0 < TILE ? n - i0 : TILE, i = 0;
        const unsigned char *v = src + i0 * vsize;
#if defined(__SSE2__)
        /* SSE2 (every x86-64): 128 bytes per block, 4 rounds of byte interleaves. */
        if (vsize == 8)
            for (; i + 16 <= m; i += 16, v += 128)
                sse_block8(tile, i, v);
        else if (vsize == 4)
            for (; i + 32 <= m; i += 32, v += 128)
                sse_block4(tile, i, v);
#endif
        /* Word transposes (little-endian hosts: byte k is bits 8k..8k+7 of the word). */
        if (vsize == 8 && G_BYTE_ORDER == G_LITTLE_ENDIAN) {
            for (; i + 8 <= m; i += 8, v += 64) {
                uint64_t x[8];
                memcpy(x, v, sizeof x);
                transpose8(x);
                for (int k = 0; k < 8; k++)
                    memcpy(&tile[k][i], &x[k], 8);
            }
        } else if (vsize == 4 && G_BYTE_ORDER == G_LITTLE_ENDIAN) {
            for (; i + 4 <= m; i += 4, v += 16) {
                uint32_t x[4];
                memcpy(x, v, sizeof x);
                transpose4(x);
                for (int k = 0; k < 4; k++)
                    memcpy(&tile[k][i], &x[k], 4);
            }
        } else if (vsize == 2) {
            to_tile(tile, v, 0, m, 2);
            i = m;
        }
        to_tile(tile, v, i, m, vsize); /* the rest, byte by byte */
        for (size_t k = 0; k < vsize; k++)
            memcpy(dst + k * n + i0, tile[k], m);
    }
}

static void unshuffle(unsigned char *restrict dst, const unsigned char *restrict src, size_t n,
                      size_t vsize)
{
    unsigned char tile[8][TILE];
    for (size_t i0 = 0; i0 < n; i0 += TILE) {
        size_t m = n - i0 < TILE ? n - i0 : TILE;
        for (size_t k = 0; k < vsize; k++)
            memcpy(tile[k], src + k * n + i0, m);
        unsigned char *v = dst + i0 * vsize;
        for (size_t i = 0; i < m; i++, v += vsize)
            for (size_t k = 0; k < vsize; k++)
                v[k] = tile[k][i];
    }
}

uint32_t prism_chunk_fletcher32(const void *data, size_t len)
{
    /* Fletcher's checksum over 16-bit words taken big-endian (a trailing odd byte is the
     * high half of a last word), sums folded to 16 bits before they can overflow. */
    const unsigned char *p = data;
    uint32_t s1 = 0, s2 = 0;
    size_t words = len / 2;
    while (words > 0) {
        size_t run = words > 360 ? 360 : words;
        words -= run;
        for (size_t i = 0; i < run; i++, p += 2) {
            s1 += (uint32_t)p[0] << 8 | p[1];
            s2 += s1;
        }
        s1 = (s1 & 0xffff) + (s1 >> 16);
        s2 = (s2 & 0xffff) + (s2 >> 16);
    }
    if (len % 2) {
        s1 += (uint32_t)p[0] << 8;
        s2 += s1;
        s1 = (s1 & 0xffff) + (s1 >> 16);
        s2 = (s2 & 0xffff) + (s2 >> 16);
    }
    s1 = (s1 & 0xffff) + (s1 >> 16);
    s2 = (s2 & 0xffff) + (s2 >> 16);
    return s2 << 16 | s1;
}

gboolean prism_chunk_encode(PrismChunkCoder *cc, PrismCodec codec, int level, const void *src,
                            size_t n, size_t n_enc, size_t vsize, const void **out, size_t *size,
                            GError **error)
{
    size_t raw = n_enc * vsize;
    const unsigned char *in = src;
    if (n_enc > n) { /* an edge chunk: HDF5 stores it whole, the rows past the end zero */
        g_byte_array_set_size(cc->a, (guint)raw);
        memcpy(cc->a->data, src, n * vsize);
        memset(cc->a->data + n * vsize, 0, raw - n * vsize);
        in = cc->a->data;
    }
    if (codec == PRISM_CODEC_NONE) {
        *out = in;
        *size = raw;
        return TRUE;
    }
    if (vsize > 1) {
        g_byte_array_set_size(cc->b, (guint)raw);
        shuffle(cc->b->data, in, n_enc, vsize);
        GByteArray *t = cc->a; /* the shuffled values become the codec's input */
        cc->a = cc->b;
        cc->b = t;
        in = cc->a->data;
    }
    size_t got = 0;
    gboolean ok = TRUE;
    switch (codec) {
    case PRISM_CODEC_ZSTD: {
        size_t cap = ZSTD_compressBound(raw);
        g_byte_array_set_size(cc->b, (guint)(cap + 4));
        if (cc->cctx == NULL)
            cc->cctx = ZSTD_createCCtx();
        got = cc->cctx ? ZSTD_compressCCtx(cc->cctx, cc->b->data, cap, in, raw, level) : 0;
        ok = cc->cctx != NULL && !ZSTD_isError(got);
        break;
    }
    case PRISM_CODEC_LZ4:
        g_byte_array_set_size(cc->b, (guint)(prism_lz4_chunk_bound(raw, 0) + 4));
        got = prism_lz4_chunk_encode(in, raw, 0, cc->b->data);
        break;
    case PRISM_CODEC_DEFLATE: {
        uLongf len = compressBound((uLong)raw);
        g_byte_array_set_size(cc->b, (guint)(len + 4));
        ok = compress2(cc->b->data, &len, in, (uLong)raw, level) == Z_OK;
        got = len;
        break;
    }
    default:
        ok = FALSE;
    }
    if (!ok) {
        g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERNAL,
                    "%s compression of a %zu-byte chunk failed", prism_codec_name(codec), raw);
        return FALSE;
    }
    uint32_t f = prism_chunk_fletcher32(cc->b->data, got);
    unsigned char *t = cc->b->data + got;
    for (int k = 0; k < 4; k++, f >>= 8)
        t[k] = (unsigned char)(f & 0xff);
    *out = cc->b->data;
    *size = got + 4;
    return TRUE;
}

size_t prism_chunk_bound(PrismCodec codec, size_t raw)
{
    if (codec == PRISM_CODEC_NONE)
        return raw;
    /* the largest of zstd's, lz4's and zlib's bounds, + Fletcher32 */
    size_t z = ZSTD_compressBound(raw), l = prism_lz4_chunk_bound(raw, 0);
    size_t d = compressBound((uLong)raw);
    return MAX(MAX(z, l), d) + 4;
}

gboolean prism_chunk_decode(PrismChunkCoder *cc, PrismCodec codec, const void *src, size_t size,
                            size_t n_enc, size_t vsize, void *dst)
{
    size_t raw = n_enc * vsize;
    if (codec == PRISM_CODEC_NONE) {
        if (size != raw)
            return FALSE;
        memcpy(dst, src, raw);
        return TRUE;
    }
    if (size < 4)
        return FALSE;
    const unsigned char *t = (const unsigned char *)src + size - 4;
    uint32_t want =
        (uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 | (uint32_t)t[3] << 24;
    size -= 4;
    if (prism_chunk_fletcher32(src, size) != want)
        return FALSE;
    unsigned char *plain = dst;
    if (vsize > 1) {
        g_byte_array_set_size(cc->a, (guint)raw);
        plain = cc->a->data;
    }
    gboolean ok = FALSE;
    switch (codec) {
    case PRISM_CODEC_ZSTD: {
        if (cc->dctx == NULL)
            cc->dctx = ZSTD_createDCtx();
        size_t got = cc->dctx ? ZSTD_decompressDCtx(cc->dctx, plain, raw, src, size) : 0;
        ok = cc->dctx != NULL && !ZSTD_isError(got) && got == raw;
        break;
    }
    case PRISM_CODEC_LZ4:
        ok = prism_lz4_chunk_decode(src, size, plain, raw) == 0;
        break;
    case PRISM_CODEC_DEFLATE: {
        uLongf len = (uLongf)raw;
        ok = uncompress(plain, &len, src, (uLong)size) == Z_OK && len == raw;
        break;
    }
    default:
        break;
    }
    if (ok && vsize > 1)
        unshuffle(dst, plain, n_enc, vsize);
    return ok;
}
