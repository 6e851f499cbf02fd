// SPDX-License-Identifier: MIT
/* kernels_dispatch.c - runtime ISA selection (scaffold until the kernels land). */
#if defined(__AVX__) && !defined(PRISM_DISPATCH_ALLOW_AVX)
#error "kernels_dispatch.c must be compiled with baseline flags"
#endif
int prism_kernels_dispatch_placeholder_internal(void);
int prism_kernels_dispatch_placeholder_internal(void)
{
    return 0;
}
