// SPDX-License-Identifier: MIT
/* kernels_avx512.c - the cost kernel compiled for avx512 (scaffold until the kernels land). */
int prism_kernels_avx512_placeholder_internal(void);
int prism_kernels_avx512_placeholder_internal(void)
{
    return 0;
}
