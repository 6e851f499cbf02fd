// SPDX-License-Identifier: MIT
/* kernels_scalar.c - the cost kernel compiled for scalar (scaffold until the kernels land). */
int prism_kernels_scalar_placeholder_internal(void);
int prism_kernels_scalar_placeholder_internal(void)
{
    return 0;
}
