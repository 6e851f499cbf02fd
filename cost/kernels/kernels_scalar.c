// SPDX-License-Identifier: MIT
/*
 * kernels_scalar.c - the cost kernel (kernels-impl.h) compiled for scalar. The ISA flags
 * come from kernels.cmake and apply to this file only. Nothing here is collective.
 */
#define PRISM_KSUFFIX scalar
#include "kernels-impl.h"
