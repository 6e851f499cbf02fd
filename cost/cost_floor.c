// SPDX-License-Identifier: MIT
/*
 * cost_floor.c - floors of the step time and the peak memory of every lane of a segment
 * that shares one GEMM key (tp, cp, mbs, ep, etp), for the search's exact pruning
 * (cost.h prism_evaluator_floors; search/README.md, "Pruning"). Nothing here is
 * collective.
 *
 * Within a segment (devices, pp, vpp, schedule, recompute, offload) the key fixes dp =
 * devices / (pp tp cp) and m = gbs / (dp mbs); a lane then differs from the others of its
 * key only in sp, zero, tp_overlap, dp_overlap, param_overlap and folding. The kernel
 * (kernels-impl.h) reads:
 *   - sp and tp_overlap in the slot terms (TP collectives and their exposure, the
 *     activations, the userbuffers): the floor runs every combination of the two;
 *   - zero only in the static bytes (smaller with more sharding: left to the static
 *     bound), the ZeRO-3 unit buffers and the ZeRO-3 exposure per micro-batch (dfs, dtl:
 *     both >= 0 and exactly 0 below ZeRO-3), the DP time and the optimizer step (>= 0);
 *   - dp_overlap and param_overlap only in the DP time (>= 0); folding nowhere (etp is in
 *     the key).
 * So a probe lane, the lane with zero = 0 and the DP overlaps on, run through the kernel
 * gives every term of the slowest stage's time per micro-batch (compute, recompute, the
 * TP collectives at the lane's sp and tp_overlap, the CP ring or all-to-all, the EP
 * all-to-all after what DualPipe or the shared experts hide, the pipeline's
 * point-to-point, the host gap, the exposed activation copies) that every lane of its
 * (GEMM key, sp, tp_overlap) has, and no more. The step is
 *     m m_share t_max + bubble + DP + optimizer + offload,
 * with the bubble max(0, bub_sum sum_c mult_c u_c - max_c u_c) bub_scale growing with
 * every stage's time when bub_sum mult_c >= 1 and no W passes fill it (bub_w = 0); the
 * time floor is the first two terms of the probe, the peak's floor its largest stage
 * candidate's activations + buffers (the static bytes add to it, summed first in the
 * kernel's order). Both 1e-9 below: the kernel's sums of the same values round the same
 * way, the margin only guards the claim. A probe costs what a lane's evaluation costs:
 * the search probes once per (GEMM key, sp, tp_overlap) of a segment and proves out the
 * ZeRO stages and DP overlap options behind it.
 */
#include <prism/cost.h>

#include <math.h>

#include "cost-internal.h"

/* One tile of probes: the kernel's workspace then holds their stage terms. */
static void floors_tile(PrismEvaluator *ev, const PrismCostSegment *seg, const PrismLanes *pr,
                        size_t off, size_t n, PrismCostOut *scratch, double *time, double *mem)
{
    const PrismKSegment *ks = &seg->k;
    PrismLanes l = *pr;
    const double **col[13] = {&l.tp,   &l.cp,  &l.dp,   &l.ep,    &l.sp,    &l.mbs,     &l.m,
                              &l.zero, &l.etp, &l.fold, &l.tp_ov, &l.dp_ov, &l.param_ov};
    for (int c = 0; c < 13; c++)
        if (*col[c] != NULL)
            *col[c] += off;
    if (l.gkey_id != NULL)
        l.gkey_id += off;
    if (l.skey_id != NULL)
        l.skey_id += off;
    l.n = n;
    prism_evaluator_run(ev, seg, &l, scratch);
    /* the workspace's arrays (kernels-model.h): lanes, slots, compositions, candidates,
     * final terms; one tile, the probes at 0 .. n */
    const size_t ns = ks->n_slots, nc = ks->n_comp;
    const double *comp0 = ev->ws + ((size_t)PRISM_KL_COUNT + ns * PRISM_KS_COUNT) * PRISM_K_TILE;
    const double *cand0 = comp0 + nc * PRISM_KC_COUNT * PRISM_K_TILE;
    const double *fin = cand0 + (size_t)ks->n_cand * PRISM_KD_COUNT * PRISM_K_TILE;
    const double *f_tmax = fin + (size_t)PRISM_KF_TMAX * PRISM_K_TILE;
    const double *f_usum = fin + (size_t)PRISM_KF_USUM * PRISM_K_TILE;
    const double *f_umax = fin + (size_t)PRISM_KF_UMAX * PRISM_K_TILE;
    gboolean grows = ks->bub_w == 0.0 && ks->bub_scale >= 0.0;
    for (uint32_t c = 0; c < nc && grows; c++)
        grows = ks->bub_sum * ks->mult[c] >= 1.0;
    for (size_t i = 0; i < n; i++) {
        const double mm = l.m[i] * ks->m_share;
        const double bx = ks->bub_sum * f_usum[i] - f_umax[i];
        const double bubble = grows && bx > 0.0 ? bx * ks->bub_scale : 0.0;
        const double t = (mm * f_tmax[i] + bubble) * (1.0 - 1e-9);
        double a = 0.0;
        for (uint32_t d = 0; d < ks->n_cand; d++) {
            const double *act = cand0 + ((size_t)d * PRISM_KD_COUNT + PRISM_KD_ACT) * PRISM_K_TILE;
            const double *buf =
                comp0 +
                ((size_t)ks->cand_comp[d] * PRISM_KC_COUNT + PRISM_KC_BUFFERS) * PRISM_K_TILE;
            const double x = act[i] + buf[i];
            a = x > a ? x : a;
        }
        a *= 1.0 - 1e-9;
        time[off + i] = t > 0.0 ? t : 0.0; /* NaN: 0 */
        mem[off + i] = a > 0.0 ? a : 0.0;
    }
}

void prism_evaluator_floors(PrismEvaluator *ev, const PrismCostSegment *seg,
                            const PrismLanes *probes, PrismCostOut *scratch, double *time,
                            double *mem)
{
    g_return_if_fail(ev != NULL && seg != NULL && probes != NULL && scratch != NULL);
    g_return_if_fail(probes->n <= ev->max_batch);
    for (size_t off = 0; off < probes->n; off += PRISM_K_TILE) {
        const size_t n = probes->n - off < PRISM_K_TILE ? probes->n - off : PRISM_K_TILE;
        floors_tile(ev, seg, probes, off, n, scratch, time, mem);
    }
}
