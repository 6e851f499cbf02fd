// SPDX-License-Identifier: MIT
/*
 * kernels_dispatch.c - runtime ISA selection for the cost kernel.
 *
 * Compiled with baseline flags only (never -mavx*), so asking for an ISA the CPU lacks
 * is a GError, never a SIGILL. "auto" picks the widest ISA that is both compiled in
 * (PRISM_HAVE_KERNEL_<ISA>, set by kernels.cmake) and supported by this CPU
 * (__builtin_cpu_supports). PRISM_ISA overrides the default when the caller passes
 * NULL. Tables are static and never freed; nothing here is collective.
 */
#if defined(__AVX__) && !defined(PRISM_DISPATCH_ALLOW_AVX)
#error "kernels_dispatch.c must be compiled with baseline flags"
#endif
#include <prism/cost.h>

#include <string.h>

#include <prism/core.h>

#include "cost-internal.h"

typedef struct IsaEntry {
    const char *name;
    PrismKernelTable table;
    gboolean compiled;
} IsaEntry;

#ifndef PRISM_HAVE_KERNEL_AVX2
#define PRISM_HAVE_KERNEL_AVX2 0
#endif
#ifndef PRISM_HAVE_KERNEL_AVX512
#define PRISM_HAVE_KERNEL_AVX512 0
#endif

/* Only reference kernels that were compiled; the others are NULL. */
#if PRISM_HAVE_KERNEL_AVX2
#define AVX2_FN prism_cost_kernel_avx2
#else
#define AVX2_FN NULL
#endif
#if PRISM_HAVE_KERNEL_AVX512
#define AVX512_FN prism_cost_kernel_avx512
#else
#define AVX512_FN NULL
#endif

/* Narrowest first: "auto" walks this table backwards. */
static const IsaEntry isas[] = {
    {"scalar", {"scalar", prism_cost_kernel_scalar}, TRUE},
    {"avx2", {"avx2", AVX2_FN}, PRISM_HAVE_KERNEL_AVX2},
    {"avx512", {"avx512", AVX512_FN}, PRISM_HAVE_KERNEL_AVX512},
};

static gboolean cpu_runs(size_t i)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    switch (i) {
    case 0:
        return TRUE;
    case 1:
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case 2:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
    default:
        return FALSE;
    }
#else
    /* another architecture (aarch64: Grace nodes): __builtin_cpu_supports is x86-only in
     * GCC 12, and kernels.cmake builds no x86 kernel there; the scalar kernel runs */
    return i == 0;
#endif
}

size_t prism_kernel_isa_count(void)
{
    size_t n = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(isas); i++)
        n += isas[i].compiled;
    return n;
}

const char *prism_kernel_isa_name(size_t i)
{
    for (size_t k = 0; k < G_N_ELEMENTS(isas); k++)
        if (isas[k].compiled && i-- == 0)
            return isas[k].name;
    return NULL;
}

gboolean prism_kernel_isa_supported(const char *isa)
{
    for (size_t i = 0; i < G_N_ELEMENTS(isas); i++)
        if (g_ascii_strcasecmp(isa, isas[i].name) == 0)
            return isas[i].compiled && cpu_runs(i);
    return FALSE;
}

const PrismKernelTable *prism_kernel_table_scalar_internal(void)
{
    return &isas[0].table;
}

const PrismKernelTable *prism_kernel_table_get(const char *isa, GError **error)
{
    const char *want = isa;
    const char *origin = "--isa";
    if (want == NULL || *want == '\0') {
        want = g_getenv("PRISM_ISA");
        origin = "PRISM_ISA";
    }
    if (want == NULL || *want == '\0' || g_ascii_strcasecmp(want, "auto") == 0) {
        for (size_t i = G_N_ELEMENTS(isas); i-- > 0;)
            if (isas[i].compiled && cpu_runs(i))
                return &isas[i].table;
        return &isas[0].table;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(isas); i++) {
        if (g_ascii_strcasecmp(want, isas[i].name) != 0)
            continue;
        if (!isas[i].compiled) {
            GString *have = g_string_new(NULL);
            for (size_t k = 0; k < G_N_ELEMENTS(isas); k++)
                if (isas[k].compiled)
                    g_string_append_printf(have, "%s%s", have->len ? ", " : "", isas[k].name);
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                        "%s=%s: this build has no %s kernel (compiled: %s)", origin, want,
                        isas[i].name, have->str);
            g_string_free(have, TRUE);
            return NULL;
        }
        if (!cpu_runs(i)) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                        "%s=%s: this CPU does not support %s (use auto, or one of the "
                        "supported ISAs)",
                        origin, want, isas[i].name);
            return NULL;
        }
        return &isas[i].table;
    }
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                "%s=%s: unknown ISA (allowed: auto, scalar, avx2, avx512)", origin, want);
    return NULL;
}

const char *prism_kernel_table_name(const PrismKernelTable *kt)
{
    return kt->name;
}
