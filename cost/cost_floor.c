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
 * time floor is the first two terms of the probe.
 *
 * The peak is the largest candidate total (((params + grads) + optimizer) + activations)
 * + buffers, a composition's static bytes (the lane's zero: the static key's, learnt
 * once per key by prism_evaluator_run_parts) plus its candidate's activations (the
 * probe's: zero and the DP overlaps do not enter them) plus the composition's buffers
 * (the probe's at zero 0, exact below ZeRO-3 and a floor at it: the unit buffers only
 * add). Per composition the floor keeps the largest activations of its candidates
 * (adding x rounds monotonically in x, so (s + max act) + buf is the largest of the
 * candidates' sums) and its buffers; prism_floor_peak sums them with the lane's static
 * bytes in the kernel's order, which makes the floor the peak itself below ZeRO-3: the
 * memory verdict of such a lane is known without evaluating it. Both floors 1e-9 below:
 * the kernel's sums of the same values round the same way, the margin only guards the
 * claim. A probe costs what a lane's evaluation costs: the search probes once per (GEMM
 * key, sp, tp_overlap) of a segment and proves out the
 * ZeRO stages and DP overlap options behind it.
 */
#include <prism/cost.h>

#include <math.h>

#include "cost-internal.h"

/* The workspace's composition and candidate arrays after a run (kernels-model.h: lanes,
 * slots, compositions, candidates, final terms), for the tile just evaluated. */
static const double *ws_comp(const PrismEvaluator *ev, const PrismKSegment *ks)
{
    return ev->ws + ((size_t)PRISM_KL_COUNT + ks->n_slots * PRISM_KS_COUNT) * PRISM_K_TILE;
}

/* Lanes off .. off + n of @p src (one tile) in @p l. */
static void tile_lanes(const PrismLanes *src, size_t off, size_t n, PrismLanes *l)
{
    *l = *src;
    const double **col[13] = {&l->tp,   &l->cp,  &l->dp,   &l->ep,    &l->sp,    &l->mbs,     &l->m,
                              &l->zero, &l->etp, &l->fold, &l->tp_ov, &l->dp_ov, &l->param_ov};
    for (int c = 0; c < 13; c++)
        if (*col[c] != NULL)
            *col[c] += off;
    if (l->gkey_id != NULL)
        l->gkey_id += off;
    if (l->skey_id != NULL)
        l->skey_id += off;
    l->n = n;
}

/* One tile of probes: the kernel's workspace then holds their stage terms. */
static void floors_tile(PrismEvaluator *ev, const PrismCostSegment *seg, const PrismLanes *pr,
                        size_t off, size_t n, PrismCostOut *scratch, double *time, double *parts)
{
    const PrismKSegment *ks = &seg->k;
    PrismLanes l;
    tile_lanes(pr, off, n, &l);
    /* the kernel's final pass forms only the stage-time figures read below
     * (PrismKLanes.lean 2): no output column of a probe is read */
    ev->floors = TRUE;
    prism_evaluator_run(ev, seg, &l, scratch);
    ev->floors = FALSE;
    const size_t nc = ks->n_comp;
    const double *comp0 = ws_comp(ev, ks);
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
        time[off + i] = t > 0.0 ? t : 0.0; /* NaN: 0 */
    }
    /* per composition: the largest activations of its candidates and its buffers, both
     * >= 0 (NaN: 0), or both -inf when it has no candidate; the candidates' maximum is
     * formed in a tile array and each part written once */
    const size_t n2 = 2 * nc;
    double amax[PRISM_K_TILE];
    for (uint32_t c = 0; c < nc; c++) {
        gboolean any = FALSE;
        for (uint32_t d = 0; d < ks->n_cand; d++) {
            if (ks->cand_comp[d] != c)
                continue;
            const double *act = cand0 + ((size_t)d * PRISM_KD_COUNT + PRISM_KD_ACT) * PRISM_K_TILE;
            for (size_t i = 0; i < n; i++) {
                const double a = any && amax[i] > 0.0 ? amax[i] : 0.0;
                amax[i] = act[i] > a ? act[i] : a;
            }
            any = TRUE;
        }
        const double *buf = comp0 + ((size_t)c * PRISM_KC_COUNT + PRISM_KC_BUFFERS) * PRISM_K_TILE;
        double *pt = parts + off * n2 + 2 * c;
        for (size_t i = 0; i < n; i++) {
            pt[i * n2] = any ? amax[i] : -INFINITY;
            pt[i * n2 + 1] = any ? (buf[i] > 0.0 ? buf[i] : 0.0) : -INFINITY;
        }
    }
}

void prism_evaluator_floors(PrismEvaluator *ev, const PrismCostSegment *seg,
                            const PrismLanes *probes, PrismCostOut *scratch, double *time,
                            double *parts)
{
    g_return_if_fail(ev != NULL && seg != NULL && probes != NULL && scratch != NULL);
    g_return_if_fail(probes->n <= ev->max_batch);
    for (size_t off = 0; off < probes->n; off += PRISM_K_TILE) {
        const size_t n = probes->n - off < PRISM_K_TILE ? probes->n - off : PRISM_K_TILE;
        floors_tile(ev, seg, probes, off, n, scratch, time, parts);
    }
}

uint32_t prism_cost_segment_n_parts(const PrismCostSegment *seg)
{
    return seg->k.n_comp;
}

void prism_evaluator_run_parts(PrismEvaluator *ev, const PrismCostSegment *seg,
                               const PrismLanes *lanes, PrismCostOut *out, double *stat,
                               double *sparts)
{
    g_return_if_fail(ev != NULL && seg != NULL && lanes != NULL && out != NULL);
    g_return_if_fail(lanes->n <= ev->max_batch && stat != NULL && sparts != NULL);
    const PrismKSegment *ks = &seg->k;
    const size_t nc = ks->n_comp;
    for (size_t off = 0; off < lanes->n; off += PRISM_K_TILE) {
        const size_t n = lanes->n - off < PRISM_K_TILE ? lanes->n - off : PRISM_K_TILE;
        PrismLanes l;
        tile_lanes(lanes, off, n, &l);
        PrismCostOut o;
        for (int c = 0; c < PRISM_COL_COUNT; c++)
            o.col[c] = out->col[c] != NULL ? out->col[c] + off : NULL;
        prism_evaluator_run_static(ev, seg, &l, &o, stat + off);
        /* each composition's static bytes, summed as k_final's stat and k_cand's total */
        const double *comp0 = ws_comp(ev, ks);
        for (size_t c = 0; c < nc; c++) {
            const double *par = comp0 + (c * PRISM_KC_COUNT + PRISM_KC_PARAMS) * PRISM_K_TILE;
            const double *grd = comp0 + (c * PRISM_KC_COUNT + PRISM_KC_GRADS) * PRISM_K_TILE;
            const double *opt = comp0 + (c * PRISM_KC_COUNT + PRISM_KC_OPT) * PRISM_K_TILE;
            for (size_t i = 0; i < n; i++)
                sparts[(off + i) * nc + c] = par[i] + grd[i] + opt[i];
        }
    }
}
