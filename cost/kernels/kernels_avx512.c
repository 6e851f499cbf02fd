// SPDX-License-Identifier: MIT
/*
 * kernels_avx512.c - the cost kernel (kernels-impl.h) compiled for avx512. The ISA flags
 * come from kernels.cmake and apply to this file only. Nothing here is collective.
 */
#define PRISM_KSUFFIX avx512
#include "kernels-impl.h"
