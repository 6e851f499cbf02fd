/*
 * h5z_plugin.c - prism's filters as HDF5 plugins (one filter per library, as HDF5's
 * plugin loader expects): built twice, with PRISM_PLUGIN_ZSTD or PRISM_PLUGIN_LZ4, into
 * build/h5plugins/libprism_h5zstd.so and libprism_h5lz4.so. Point HDF5_PLUGIN_PATH there
 * to read prism's files with h5dump, h5diff, h5py or any other HDF5 program (Debian has
 * no zstd plugin; its hdf5-filter-plugin has LZ4). No HDF5 library is linked: the
 * plugin serves the serial and the parallel library alike.
 */
#include <H5PLextern.h>

#include "h5z-codecs.h"

H5PL_type_t H5PLget_plugin_type(void)
{
    return H5PL_TYPE_FILTER;
}

const void *H5PLget_plugin_info(void)
{
#if defined(PRISM_PLUGIN_ZSTD)
    return prism_h5z_zstd_class();
#elif defined(PRISM_PLUGIN_LZ4)
    return prism_h5z_lz4_class();
#else
#error "define PRISM_PLUGIN_ZSTD or PRISM_PLUGIN_LZ4"
#endif
}
