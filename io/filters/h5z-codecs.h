/*
 * h5z-codecs.h - the HDF5 filters prism registers in-process, with their public
 * registered IDs, so that any HDF5 reader with the standard plugins reads the files:
 *   32015 Zstandard: cd_values[0] = level (optional); a chunk is one zstd frame whose
 *         header carries the content size.
 *   32004 LZ4: cd_values[0] = block size in bytes (optional, 0 = the default 1 GiB); a
 *         chunk is: u64 original size (big endian), u32 block size (big endian), then per
 *         block a u32 stored size (big endian) and the block, LZ4-compressed or, when that
 *         is not smaller, stored raw (stored size == block size).
 * The same code builds the filter plugins (io/filters/h5z_plugin.c) that h5dump, h5py and
 * other readers load from HDF5_PLUGIN_PATH; it calls no HDF5 function itself, so one
 * plugin serves the serial and the parallel library.
 */
#ifndef PRISM_H5Z_CODECS_H
#define PRISM_H5Z_CODECS_H

#include <hdf5.h>

#define PRISM_H5Z_FILTER_LZ4 32004
#define PRISM_H5Z_FILTER_ZSTD 32015

#include <stddef.h>
#include <stdint.h>

/** The filter classes (static, never freed). */
const H5Z_class2_t *prism_h5z_zstd_class(void);
const H5Z_class2_t *prism_h5z_lz4_class(void);

/* The LZ4 chunk format itself, for code that encodes chunks outside HDF5's pipeline (the
 * spill records of io/, written as finished HDF5 chunks). @p block 0 = the default. */
/** Bytes an encoded chunk of @p nbytes can take at most. */
size_t prism_lz4_chunk_bound(size_t nbytes, size_t block);
/** Encode @p nbytes at @p src into @p dst (prism_lz4_chunk_bound bytes); returns the size. */
size_t prism_lz4_chunk_encode(const void *src, size_t nbytes, size_t block, void *dst);
/** The original size an encoded chunk declares (UINT64_MAX when too short). */
uint64_t prism_lz4_chunk_size(const void *src, size_t nbytes);
/** Decode into @p dst of exactly @p dst_size bytes; 0 on success, -1 when damaged. */
int prism_lz4_chunk_decode(const void *src, size_t nbytes, void *dst, size_t dst_size);

#endif /* PRISM_H5Z_CODECS_H */
