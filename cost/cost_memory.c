// SPDX-License-Identifier: MIT
/*
 * cost_memory.c - memory as each source measures it (cost.h, prism_cost_memory_kinds):
 * the allocated peak the kernels model, the caching allocator's reserved memory and the
 * device-level figure nvidia-smi shows, which feasibility is decided on. Pure; nothing
 * here is collective.
 */
#include <prism/cost.h>

#include "cost-internal.h"

/* PyTorch's caching allocator with expandable segments maps its segments in pages of
 * these sizes: the last page of the large and of the small pool may stay unfilled
 * (c10/cuda/CUDACachingAllocator.cpp, v2.1-v2.5: kLargeBuffer, kSmallBuffer). */
#define ALLOC_LARGE_PAGE 20971520.0
#define ALLOC_SMALL_PAGE 2097152.0

void prism_cost_memory_setup_internal(const double *kn, double *scale, double *fixed,
                                      double *nccl_group, double *reserve)
{
    const gboolean exp = kn[PRISM_KNOB_EXPANDABLE_SEGMENTS] > 0.5;
    *reserve = exp ? 0.0 : kn[PRISM_KNOB_ALLOCATOR_RESERVE];
    *scale = 1.0 + *reserve;
    *fixed = (exp ? ALLOC_LARGE_PAGE + ALLOC_SMALL_PAGE : 0.0) + kn[PRISM_KNOB_CUDA_CONTEXT];
    /* a ring connects each rank to two peers (the previous and the next) per channel */
    *nccl_group = 2.0 * kn[PRISM_KNOB_NCCL_CHANNELS] * kn[PRISM_KNOB_NCCL_CONN_BYTES];
}

/* The groups of more than one rank of @p s that hold NCCL buffers (kernels-impl.h
 * k_comms: the same count). */
static double communicators(const PrismStrategy *s)
{
    return (s->tp > 1 ? 1.0 : 0.0) + (s->cp > 1 ? 1.0 : 0.0) + (s->dp > 1 ? 1.0 : 0.0) +
           (s->ep > 1 ? 1.0 : 0.0) + (s->pp > 1 ? 1.0 : 0.0);
}

/* ZeRO-3's all-gather stream pool (knob fsdp_gather_pool): the gathered bytes of the
 * model's largest unit for strategy @p s (0 below ZeRO-3 or with the knob 0). Each
 * distinct layer kind is priced once by the scalar kernel (prism_cost_layer_terms); the
 * largest unit of the whole model, whichever stage holds it (the kernels' PRISM_KF_GPOOL
 * takes the same maximum). */
double prism_cost_gather_largest_internal(const PrismCostModel *cm, const PrismStrategy *s)
{
    if (!(cm->knobs.v[PRISM_KNOB_FSDP_GATHER_POOL] > 0.0) || s->zero < 3)
        return 0.0;
    const PrismModel *model = cm->model;
    g_autofree gboolean *seen = g_new0(gboolean, cm->n_kinds);
    double largest = 0.0;
    for (uint32_t l = 0, q = 0; l < model->n_layers; l++) {
        const PrismLayerKind lk = model->layers[l].kind;
        const gboolean block = lk == PRISM_LAYER_BLOCK || lk == PRISM_LAYER_MTP;
        /* blocks by their split kind; the embedding and the head once each */
        if (block) {
            const uint32_t kind = cm->layer_kind[q++];
            if (seen[kind])
                continue;
            seen[kind] = TRUE;
        }
        PrismLayerTerms t;
        if (prism_cost_layer_terms(cm, s, l, &t, NULL) && t.gather_bytes > largest)
            largest = t.gather_bytes;
    }
    return largest;
}

/* fsdp_gather_pool x @p largest (0 below ZeRO-3), in the kernels' order (k_gather_pool). */
static double gather_pool(const PrismCostModel *cm, const PrismStrategy *s, double largest)
{
    const double units = cm->knobs.v[PRISM_KNOB_FSDP_GATHER_POOL];
    return units > 0.0 && s->zero >= 3 ? units * largest : 0.0;
}

void prism_cost_memory_kinds_internal(const PrismCostModel *cm, const PrismStrategy *s,
                                      double allocated, double persistent, double largest,
                                      PrismMemKinds *out)
{
    const PrismKModel *k = &cm->k;
    const double *kn = cm->knobs.v;
    const double pages = k->mem_fixed - kn[PRISM_KNOB_CUDA_CONTEXT];
    /* the reserve on the transient bytes only: persistent state sits in segments of its
     * own (kernels-impl.h k_final, the same arithmetic in the same order) */
    const double res = allocated + (allocated - persistent) * k->mem_reserve;
    out->allocated = allocated;
    out->gather_pool = gather_pool(cm, s, largest);
    out->reserved = res + pages + out->gather_pool;
    out->context = kn[PRISM_KNOB_CUDA_CONTEXT];
    out->nccl = k->nccl_group * communicators(s);
    /* the kernel's arithmetic, in its order (k_final: fixed = mem_fixed + NCCL + pool):
     * the same bits as its verdict */
    out->device = res + (k->mem_fixed + out->nccl + out->gather_pool);
}

void prism_cost_memory_kinds(const PrismCostModel *cm, const PrismStrategy *s, double allocated,
                             double persistent, PrismMemKinds *out)
{
    prism_cost_memory_kinds_internal(cm, s, allocated, persistent,
                                     prism_cost_gather_largest_internal(cm, s), out);
}

double prism_cost_allocated_limit(const PrismCostModel *cm, const PrismStrategy *s)
{
    const PrismKModel *k = &cm->k;
    const double pool = gather_pool(cm, s, prism_cost_gather_largest_internal(cm, s));
    return (k->budget - (k->mem_fixed + k->nccl_group * communicators(s) + pool)) / k->mem_scale;
}
