// SPDX-License-Identifier: MIT
/* kernels_avx2.c - the cost kernel compiled for avx2 (scaffold until the kernels land). */
int prism_kernels_avx2_placeholder_internal(void);
int prism_kernels_avx2_placeholder_internal(void)
{
    return 0;
}
