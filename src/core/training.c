// SPDX-License-Identifier: MIT
/*
 * training.c - dtypes, optimizers and the training setup. Nothing here is collective.
 */
#include <prism/training.h>

#include <prism/core.h>

/* fp8: FP8 linear GEMMs with delayed scaling (Transformer Engine's default recipe: the scale
 * comes from an amax history); fp8-cs: current per-tensor scaling (the amax of the tensor
 * being cast, torchao's "tensorwise" and TE's Float8CurrentScaling); mxfp8: OCP MX block
 * scaling (one E8M0 scale per 32 elements, Blackwell tensor cores); nvfp4: NVIDIA's FP4
 * (E2M1 elements, one E4M3 scale per 16 elements: 0.5 + 1/16 = 9/16 byte per element, and
 * one FP32 scale per tensor; NVIDIA, "Pretraining Large Language Models with NVFP4",
 * arXiv:2509.25149, section 2); mxfp4: OCP MX FP4 (E2M1 elements, one E8M0 scale per 32
 * elements: 0.5 + 1/32 = 17/32 byte per element; OCP Microscaling Formats (MX)
 * Specification v1.0, September 2023, its concrete MX-compliant formats: MXFP4 = FP4 E2M1
 * elements, block size 32, E8M0 shared scale). */
static const char *const dtype_names[PRISM_DTYPE_COUNT] = {"fp32",   "bf16",  "fp16",  "fp8",
                                                           "fp8-cs", "mxfp8", "nvfp4", "mxfp4"};
static const double dtype_bytes[PRISM_DTYPE_COUNT] = {4.0, 2.0, 2.0,        1.0,
                                                      1.0, 1.0, 9.0 / 16.0, 17.0 / 32.0};
static const char *const optimizer_names[PRISM_OPTIMIZER_COUNT] = {"adam", "sgd"};

const char *prism_dtype_name(PrismDtype dtype)
{
    return (unsigned)dtype < PRISM_DTYPE_COUNT ? dtype_names[dtype] : "?";
}

double prism_dtype_bytes(PrismDtype dtype)
{
    return (unsigned)dtype < PRISM_DTYPE_COUNT ? dtype_bytes[dtype] : 0.0;
}

gboolean prism_dtype_parse(const char *text, PrismDtype *out, GError **error)
{
    for (int i = 0; i < PRISM_DTYPE_COUNT; i++)
        if (g_ascii_strcasecmp(text, dtype_names[i]) == 0) {
            *out = (PrismDtype)i;
            return TRUE;
        }
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                "unknown dtype '%s' (allowed: fp32, bf16, fp16, fp8, fp8-cs, mxfp8, nvfp4, mxfp4)",
                text);
    return FALSE;
}

gboolean prism_dtype_is_fp8(PrismDtype dtype)
{
    return dtype == PRISM_DTYPE_FP8 || dtype == PRISM_DTYPE_FP8_CS || dtype == PRISM_DTYPE_MXFP8;
}

gboolean prism_dtype_is_lowp(PrismDtype dtype)
{
    return prism_dtype_is_fp8(dtype) || prism_dtype_is_fp4(dtype);
}

gboolean prism_dtype_is_fp4(PrismDtype dtype)
{
    return dtype == PRISM_DTYPE_NVFP4 || dtype == PRISM_DTYPE_MXFP4;
}

const char *prism_optimizer_name(PrismOptimizer opt)
{
    return (unsigned)opt < PRISM_OPTIMIZER_COUNT ? optimizer_names[opt] : "?";
}

gboolean prism_optimizer_parse(const char *text, PrismOptimizer *out, GError **error)
{
    for (int i = 0; i < PRISM_OPTIMIZER_COUNT; i++)
        if (g_ascii_strcasecmp(text, optimizer_names[i]) == 0) {
            *out = (PrismOptimizer)i;
            return TRUE;
        }
    if (g_ascii_strcasecmp(text, "adamw") == 0) {
        *out = PRISM_OPTIMIZER_ADAM;
        return TRUE;
    }
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                "unknown optimizer '%s' (allowed: adam, adamw, sgd)", text);
    return FALSE;
}

void prism_training_default(PrismTraining *out)
{
    out->gbs = 1536;
    out->seq = 2048;
    out->dtype = PRISM_DTYPE_BF16;
    out->optimizer = PRISM_OPTIMIZER_ADAM;
    out->mem_budget_bytes = 0.0;
}

gboolean prism_training_validate(const PrismTraining *t, GError **error)
{
    if (t->gbs == 0 || t->gbs > (1u << 30)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "--gbs: %" G_GUINT64_FORMAT " must be between 1 and 2^30", t->gbs);
        return FALSE;
    }
    if (t->seq == 0 || t->seq > (1u << 24)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "--seq: %" G_GUINT64_FORMAT " must be between 1 and 2^24", t->seq);
        return FALSE;
    }
    if (t->mem_budget_bytes < 0) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "--mem-budget: must be positive");
        return FALSE;
    }
    return TRUE;
}
