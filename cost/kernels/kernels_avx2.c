// SPDX-License-Identifier: MIT
/*
 * kernels_avx2.c - the cost kernel (kernels-impl.h) compiled for avx2. The ISA flags
 * come from kernels.cmake and apply to this file only. Nothing here is collective.
 */
#define PRISM_KSUFFIX avx2
#include "kernels-impl.h"
