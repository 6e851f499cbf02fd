// SPDX-License-Identifier: MIT
/*
 * cost_memory.c - the caching allocator's setup and the count of NCCL communicators, for
 * memory as each source measures it (cost.h, prism_cost_memory_kinds and
 * prism_cost_allocated_limit, which live in cost_eval.c beside the layer terms their gather
 * pool prices): the allocated peak the kernels model, the allocator's reserved memory and
 * the device-level figure nvidia-smi shows, which feasibility is decided on. Pure; nothing
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
double prism_cost_communicators_internal(const PrismStrategy *s)
{
    return (s->tp > 1 ? 1.0 : 0.0) + (s->cp > 1 ? 1.0 : 0.0) + (s->dp > 1 ? 1.0 : 0.0) +
           (s->ep > 1 ? 1.0 : 0.0) + (s->pp > 1 ? 1.0 : 0.0);
}
