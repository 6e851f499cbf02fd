/*
 * kernels-impl.h - the cost kernel, written once and compiled once per ISA.
 *
 * A kernel TU defines PRISM_KSUFFIX (scalar, avx2, avx512) and includes this file; the
 * result is prism_cost_kernel_<isa>(). The body is plain C over a batch of lanes:
 * straight-line double arithmetic with ternary selects (no libm, no fmin/fmax, no
 * conditional stores), in passes whose outer loops run over slots, compositions and
 * candidates (constant within a segment) and whose inner loops run over lanes, so every
 * inner loop vectorises. -ffp-contract=off and no -ffast-math make every ISA produce the
 * same bits as the scalar build. Every intermediate array lives in the workspace and is
 * a named term (`prism explain` reads them back after a one-lane run).
 *
 * Pass order per tile: lanes (dims -> divisors, network levels), slots (per layer
 * terms), compositions (per stage time and static memory), candidates (per stage
 * in-flight activations and total), final (max over stages, step time, columns).
 * The formulas are derived in cost/README.md. Nothing here is collective or allocates.
 */
#include <stddef.h>
#include <stdint.h>

#include "kernels-model.h"

#ifndef PRISM_KSUFFIX
#error "define PRISM_KSUFFIX before including kernels-impl.h"
#endif
#define PRISM_KCAT2(a, b) a##_##b
#define PRISM_KCAT(a, b) PRISM_KCAT2(a, b)

#if defined(__GNUC__) && !defined(__clang__)
#define PRISM_KLOOP _Pragma("GCC ivdep")
#else
#define PRISM_KLOOP
#endif

#define WS(idx) (ws + (size_t)(idx)*PRISM_K_TILE)

#if defined(__GNUC__)
#define PRISM_KINLINE inline __attribute__((always_inline))
#else
#define PRISM_KINLINE inline
#endif

/* Value of a network level for a group spanning @p x devices: the innermost level
 * whose size covers it (sizes are increasing; the last is +inf). */
static inline double k_level(double x, const double *size, double v0, double v1, double v2,
                             double v3)
{
    return x <= size[0] ? v0 : x <= size[1] ? v1 : x <= size[2] ? v2 : v3;
}

static void k_lanes(const PrismKModel *km, const PrismKSegment *ks, const PrismKLanes *ln,
                    size_t off, size_t n, double *ws)
{
    const double *restrict tp = ln->tp + off, *restrict cp = ln->cp + off;
    const double *restrict dp = ln->dp + off, *restrict ep = ln->ep + off;
    const double *restrict sp = ln->sp + off, *restrict mbs = ln->mbs + off;
    const double *restrict mm = ln->m + off, *restrict zero = ln->zero + off;
    const double sz[3] = {km->lvl_size[0], km->lvl_size[1], km->lvl_size[2]};
    const double ib0 = km->lvl_inv_bw[0], ib1 = km->lvl_inv_bw[1], ib2 = km->lvl_inv_bw[2],
                 ib3 = km->lvl_inv_bw[3];
    const double la0 = km->lvl_lat[0], la1 = km->lvl_lat[1], la2 = km->lvl_lat[2],
                 la3 = km->lvl_lat[3];
    const double seq = km->seq, bp = km->bytes_param, bg = km->bytes_grad;
    const double hb = km->hidden_bytes, moe = km->moe_tok_bytes;
    const double pexp = km->pp_exposed, scat = km->pp_scatter;
    const double pipe = ks->pipelined, vpp = ks->vpp, ppn = ks->pp, pmsg = ks->pp_msgs;
    double *inv_tp = WS(PRISM_KL_INV_TP), *rep = WS(PRISM_KL_REP), *tok = WS(PRISM_KL_TOKENS);
    double *inv_ep = WS(PRISM_KL_INV_EP);
    double *pdiv = WS(PRISM_KL_PDIV), *gdiv = WS(PRISM_KL_GDIV), *odiv = WS(PRISM_KL_ODIV);
    double *pdive = WS(PRISM_KL_PDIV_E), *gdive = WS(PRISM_KL_GDIV_E);
    double *odive = WS(PRISM_KL_ODIV_E);
    double *tpa = WS(PRISM_KL_TP_A), *tplat = WS(PRISM_KL_TP_LAT), *tpbf = WS(PRISM_KL_TP_BF);
    double *tplvl = WS(PRISM_KL_TP_LVL);
    double *cpa = WS(PRISM_KL_CP_A), *cplat = WS(PRISM_KL_CP_LAT), *cpbf = WS(PRISM_KL_CP_BF);
    double *cplvl = WS(PRISM_KL_CP_LVL);
    double *epa = WS(PRISM_KL_EP_A), *eplat = WS(PRISM_KL_EP_LAT), *epbf = WS(PRISM_KL_EP_BF);
    double *eplvl = WS(PRISM_KL_EP_LVL);
    double *dpa = WS(PRISM_KL_DP_A), *dplat = WS(PRISM_KL_DP_LAT), *dpbf = WS(PRISM_KL_DP_BF);
    double *dpea = WS(PRISM_KL_DPE_A), *dpelat = WS(PRISM_KL_DPE_LAT);
    double *dpebf = WS(PRISM_KL_DPE_BF), *dplvl = WS(PRISM_KL_DP_LVL);
    double *pptime = WS(PRISM_KL_PP_TIME), *ppbytes = WS(PRISM_KL_PP_BYTES);
    double *pplvl = WS(PRISM_KL_PP_LVL), *epbuf = WS(PRISM_KL_EP_BUF);
    double *ppbuf = WS(PRISM_KL_PP_BUF);
    PRISM_KLOOP
    for (size_t i = 0; i < n; i++) {
        const double t = tp[i], c = cp[i], d = dp[i], e = ep[i], m = mm[i], z = zero[i];
        const double it = 1.0 / t, ie = 1.0 / e;
        const double r = sp[i] > 0.5 ? it : 1.0;
        const double T = mbs[i] * seq / c;
        inv_tp[i] = it;
        rep[i] = r;
        tok[i] = T;
        inv_ep[i] = ie;
        /* ZeRO over the dp x cp group (dense) and its dp x cp / ep part (experts) */
        const double n_d = d * c, in_d = 1.0 / n_d;
        const double n_e = n_d * ie, in_e = e * in_d;
        pdiv[i] = z > 2.5 ? in_d : 1.0;
        gdiv[i] = z > 1.5 ? in_d : 1.0;
        odiv[i] = z > 0.5 ? in_d : 1.0;
        pdive[i] = z > 2.5 ? in_e : 1.0;
        gdive[i] = z > 1.5 ? in_e : 1.0;
        odive[i] = z > 0.5 ? in_e : 1.0;
        /* TP: ring all-reduce 2(t-1)/t of the volume, 2(t-1) latency steps */
        const double x_tp = t;
        tpbf[i] = 2.0 * (t - 1.0) * it;
        tpa[i] = 2.0 * (t - 1.0) * it * k_level(x_tp, sz, ib0, ib1, ib2, ib3);
        tplat[i] = 2.0 * (t - 1.0) * k_level(x_tp, sz, la0, la1, la2, la3);
        tplvl[i] = k_level(x_tp, sz, 0.0, 1.0, 2.0, 3.0);
        /* CP: ring over t x c devices, c - 1 exchanges per pass */
        const double x_cp = t * c;
        cpbf[i] = c - 1.0;
        cpa[i] = (c - 1.0) * k_level(x_cp, sz, ib0, ib1, ib2, ib3);
        cplat[i] = (c - 1.0) * k_level(x_cp, sz, la0, la1, la2, la3);
        cplvl[i] = k_level(x_cp, sz, 0.0, 1.0, 2.0, 3.0);
        /* EP: all-to-all over e devices at stride t; (e-1)/e of the tokens leave; each
         * TP rank dispatches 1/t of the tokens (sequence parallel) */
        const double x_ep = t * e;
        epbf[i] = (e - 1.0) * ie * it;
        epa[i] = (e - 1.0) * ie * it * k_level(x_ep, sz, ib0, ib1, ib2, ib3);
        eplat[i] = (e - 1.0) * k_level(x_ep, sz, la0, la1, la2, la3);
        eplvl[i] = k_level(x_ep, sz, 0.0, 1.0, 2.0, 3.0);
        /* DP: bytes per parameter per step and latency steps by ZeRO stage:
         * 0 all-reduce grads; 1 reduce-scatter grads + all-gather params;
         * 2 reduce-scatter every micro-batch + all-gather; 3 per micro-batch
         * reduce-scatter + all-gather in forward and backward */
        const double x_dp = t * c * d;
        const double vol = z < 0.5   ? 2.0 * bg
                           : z < 1.5 ? bg + bp
                           : z < 2.5 ? m * bg + bp
                                     : m * (bg + 2.0 * bp);
        const double steps = z < 1.5 ? 2.0 : z < 2.5 ? m + 1.0 : 3.0 * m;
        const double dib = k_level(x_dp, sz, ib0, ib1, ib2, ib3);
        const double dla = k_level(x_dp, sz, la0, la1, la2, la3);
        dpbf[i] = (n_d - 1.0) * in_d * vol;
        dpa[i] = (n_d - 1.0) * in_d * vol * dib;
        dplat[i] = (n_d - 1.0) * steps * dla;
        dpebf[i] = (n_e - 1.0) * in_e * vol;
        dpea[i] = (n_e - 1.0) * in_e * vol * dib;
        dpelat[i] = (n_e - 1.0) * steps * dla;
        dplvl[i] = k_level(x_dp, sz, 0.0, 1.0, 2.0, 3.0);
        /* PP: per micro-batch each stage sends vpp activations forward and vpp gradients
         * backward (seq1F1B: each in pp_msgs messages, one per sequence chunk); every
         * micro-batch crosses every stage boundary, so the slowest boundary (the level
         * joining the whole pipeline, t*c*d*pp devices) paces it */
        const double x_pp = t * c * d * ppn;
        const double v_pp = T * hb * (scat > 0.5 ? it : 1.0);
        ppbytes[i] = pipe * 2.0 * vpp * v_pp;
        pptime[i] = pipe * 2.0 * vpp *
                    (v_pp * k_level(x_pp, sz, ib0, ib1, ib2, ib3) +
                     k_level(x_pp, sz, la0, la1, la2, la3) * pmsg) *
                    pexp;
        pplvl[i] = k_level(x_pp, sz, 0.0, 1.0, 2.0, 3.0);
        ppbuf[i] = pipe * 2.0 * v_pp;
        epbuf[i] = 2.0 * T * it * moe;
    }
}

/* One slot's per-layer terms. @p detail (a constant after inlining) adds the terms only
 * explain and the per-layer API read (static bytes per layer, the time split by pass);
 * the search's hot path skips their stores. Both versions share every expression. */
static PRISM_KINLINE void k_slot_body(const PrismKModel *km, const PrismKSlot *sl,
                                      const PrismKLanes *ln, size_t off, size_t n, double *ws,
                                      double *out, const int detail)
{
    const PrismKKind *K = &km->kinds[sl->kind];
    const double full = sl->mode == PRISM_K_RC_FULL ? 1.0 : 0.0;
    /* backward working set: full recompute rematerialises the layer; with bwd_ws every
     * layer's gradients take one micro-batch of its activations while it runs backward */
    const double ws_on = full > 0.5 || km->bwd_ws > 0.5 ? 1.0 : 0.0;
    const double sel = sl->mode == PRISM_K_RC_SELECTIVE ? 1.0 : 0.0;
    const double keep_score = sl->mode == PRISM_K_RC_NONE ? 1.0 : 0.0;
    const double p_tp = K->p_tp, p_kv = K->p_kv, p_rep = K->p_rep, p_exp = K->p_exp;
    const double g = K->g, inv_g = K->inv_g;
    const double a_rep = K->a_rep, a_tp = K->a_tp, a_kv = K->a_kv, a_sc = K->a_score;
    const double a_full = K->a_full, a_ck = K->a_ckpt;
    const double f_tp = K->f_tp, f_kv = K->f_kv, f_rep = K->f_rep, f_core = K->f_core;
    const double f_exp = K->f_exp;
    const double e_rep = K->e_rep, e_tp = K->e_tp, e_sc = K->e_score, e_full = K->e_full;
    const double hbm = km->inv_hbm, opt_tr = km->opt_traffic, acc_tr = km->accum_traffic;
    const double coll_f = K->tp_coll_fwd, coll_fsp = K->tp_coll_fwd_sp;
    const double coll_b = K->tp_coll_bwd, tpb = K->tp_bytes;
    const double cp_tp = K->cp_tp, cp_kv = K->cp_kv, cp_pass1 = K->is_layer;
    const double moe = K->is_moe, epb = K->ep_bytes;
    const double bp = km->bytes_param, bg = km->bytes_grad, bo = km->bytes_opt;
    const double rate = km->inv_rate, bwd = km->bwd_ratio;
    const double tpx = km->tp_exposed, cpx = km->cp_exposed, epx = km->ep_exposed;
    const double *restrict tp = ln->tp + off, *restrict sp = ln->sp + off;
    const double *inv_tp = WS(PRISM_KL_INV_TP), *rep = WS(PRISM_KL_REP);
    const double *tok = WS(PRISM_KL_TOKENS), *inv_ep = WS(PRISM_KL_INV_EP);
    const double *pdiv = WS(PRISM_KL_PDIV), *gdiv = WS(PRISM_KL_GDIV);
    const double *odiv = WS(PRISM_KL_ODIV), *pdive = WS(PRISM_KL_PDIV_E);
    const double *gdive = WS(PRISM_KL_GDIV_E), *odive = WS(PRISM_KL_ODIV_E);
    const double *tpa = WS(PRISM_KL_TP_A), *tplat = WS(PRISM_KL_TP_LAT);
    const double *tpbf = WS(PRISM_KL_TP_BF);
    const double *cpa = WS(PRISM_KL_CP_A), *cplat = WS(PRISM_KL_CP_LAT);
    const double *cpbf = WS(PRISM_KL_CP_BF);
    const double *epa = WS(PRISM_KL_EP_A), *eplat = WS(PRISM_KL_EP_LAT);
    const double *epbf = WS(PRISM_KL_EP_BF);
    double *o_par = out + (size_t)PRISM_KS_PARAMS * PRISM_K_TILE;
    double *o_grd = out + (size_t)PRISM_KS_GRADS * PRISM_K_TILE;
    double *o_opt = out + (size_t)PRISM_KS_OPT * PRISM_K_TILE;
    double *o_ne = out + (size_t)PRISM_KS_NE * PRISM_K_TILE;
    double *o_ex = out + (size_t)PRISM_KS_EX * PRISM_K_TILE;
    double *o_act = out + (size_t)PRISM_KS_ACT * PRISM_K_TILE;
    double *o_xtr = out + (size_t)PRISM_KS_EXTRA * PRISM_K_TILE;
    double *o_cmp = out + (size_t)PRISM_KS_COMPUTE * PRISM_K_TILE;
    double *o_rc = out + (size_t)PRISM_KS_RECOMP * PRISM_K_TILE;
    double *o_wg = out + (size_t)PRISM_KS_WGRAD * PRISM_K_TILE;
    double *o_tp = out + (size_t)PRISM_KS_TP * PRISM_K_TILE;
    double *o_cp = out + (size_t)PRISM_KS_CP * PRISM_K_TILE;
    double *o_ep = out + (size_t)PRISM_KS_EP * PRISM_K_TILE;
    double *o_fl = out + (size_t)PRISM_KS_FLOPS * PRISM_K_TILE;
    double *o_tpb = out + (size_t)PRISM_KS_TP_BYTES * PRISM_K_TILE;
    double *o_cpb = out + (size_t)PRISM_KS_CP_BYTES * PRISM_K_TILE;
    double *o_epb = out + (size_t)PRISM_KS_EP_BYTES * PRISM_K_TILE;
    double *o_gat = out + (size_t)PRISM_KS_GATHER * PRISM_K_TILE;
    double *o_fwd = out + (size_t)PRISM_KS_FWD * PRISM_K_TILE;
    double *o_bwd = out + (size_t)PRISM_KS_BWD * PRISM_K_TILE;
    double *o_rct = out + (size_t)PRISM_KS_RC_TIME * PRISM_K_TILE;
    double *o_ew = out + (size_t)PRISM_KS_ELEMWISE * PRISM_K_TILE;
    double *o_ost = out + (size_t)PRISM_KS_OPT_STEP * PRISM_K_TILE;
    double *o_acc = out + (size_t)PRISM_KS_GRAD_ACCUM * PRISM_K_TILE;
    PRISM_KLOOP
    for (size_t i = 0; i < n; i++) {
        const double it = inv_tp[i], r = rep[i], T = tok[i];
        const double kvs = tp[i] <= g ? it : inv_g;
        /* static: parameters per device, then ZeRO divisors */
        const double ne = p_tp * it + p_kv * kvs + p_rep;
        const double ex = p_exp * it * inv_ep[i];
        o_ne[i] = ne;
        o_ex[i] = ex;
        if (detail) {
            o_par[i] = bp * (ne * pdiv[i] + ex * pdive[i]);
            o_grd[i] = bg * (ne * gdiv[i] + ex * gdive[i]);
            o_opt[i] = bo * (ne * odiv[i] + ex * odive[i]);
            o_ost[i] = (ne * odiv[i] + ex * odive[i]) * opt_tr * hbm;
        }
        o_gat[i] = bp * (ne + ex);
        /* activations per micro-batch (Korthikanti et al. 2022, generalised) */
        const double a_body = T * (a_rep * r + a_tp * it + a_kv * kvs + a_full);
        const double a_score = T * a_sc * it;
        const double a_keep = T * a_ck * r;
        o_act[i] = full > 0.5 ? a_keep : a_body + keep_score * a_score;
        o_xtr[i] = ws_on * (a_body + a_score - a_keep);
        /* compute: forward FLOPs per device at the GEMM rate plus memory-bound kernels at
         * the HBM rate; backward = bwd_ratio x forward (both) */
        const double fl = T * (f_tp * it + f_kv * kvs + f_rep + f_core * it + f_exp * it);
        const double rc = full > 0.5 ? fl : sel * T * f_core * it;
        const double ew_sc = T * e_sc * it * hbm;
        const double ew = T * (e_rep * r + e_tp * it + e_full) * hbm + ew_sc;
        const double ew_rc = full > 0.5 ? ew : sel * ew_sc;
        const double cf_s = fl * rate + ew; /* one forward */
        /* gradient accumulation: every micro-batch reads and writes the device's gradient
         * buffer once per parameter (weight-gradient pass) */
        const double acc = (ne + ex) * acc_tr * hbm;
        if (detail) {
            o_ew[i] = ew * (1.0 + bwd);
            o_acc[i] = acc;
        }
        o_cmp[i] = cf_s * (1.0 + bwd) + acc;
        o_rc[i] = rc * rate + ew_rc;
        o_wg[i] = fl * bwd * 0.5 * rate + acc;
        o_fl[i] = fl * (1.0 + bwd) + rc;
        /* TP: all-reduce-equivalent collectives; full recompute repeats the forward */
        const double cf = coll_f + coll_fsp * sp[i];
        const double v_tp = T * tpb;
        const double tp_one = (v_tp * tpa[i] + tplat[i]) * tpx;
        o_tp[i] = (cf * (1.0 + full) + coll_b) * tp_one;
        o_tpb[i] = (cf * (1.0 + full) + coll_b) * v_tp * tpbf[i];
        /* CP: K/V ring, forward 1 pass, backward 2 (K/V and their gradients) */
        const double v_cp = T * (cp_tp * it + cp_kv * kvs);
        const double cp_one = cp_pass1 * (v_cp * cpa[i] + cplat[i]) * cpx;
        o_cp[i] = (3.0 + full) * cp_one;
        o_cpb[i] = (3.0 + full) * cp_pass1 * v_cp * cpbf[i];
        /* EP: dispatch + combine all-to-all in forward, two more in backward */
        const double v_ep = T * epb;
        const double ep_one = moe * (v_ep * epa[i] + eplat[i]) * epx;
        o_ep[i] = (4.0 + 2.0 * full) * ep_one;
        o_epb[i] = (4.0 + 2.0 * full) * moe * v_ep * epbf[i];
        /* the same time split by pass */
        if (detail) {
            const double fwd_comm = cf * tp_one + cp_one + 2.0 * ep_one;
            o_fwd[i] = cf_s + fwd_comm;
            o_bwd[i] = cf_s * bwd + acc + coll_b * tp_one + 2.0 * cp_one + 2.0 * ep_one;
            o_rct[i] = rc * rate + ew_rc + full * fwd_comm;
        }
    }
}

static void k_slot(const PrismKModel *km, const PrismKSegment *ks, const PrismKSlot *sl,
                   const PrismKLanes *ln, size_t off, size_t n, double *ws, double *out)
{
    if (ks->detail)
        k_slot_body(km, sl, ln, off, n, ws, out, 1);
    else
        k_slot_body(km, sl, ln, off, n, ws, out, 0);
}

/* The per-stage sums: first slot of a composition writes, later slots add (one fused
 * pass over the lanes per slot, every summed term at once). */
static void k_comp_sum(double *cw, const double *sw, double cnt, int first, size_t n)
{
#define CWP(k) (cw + (size_t)(k)*PRISM_K_TILE)
#define SWP(k) (sw + (size_t)(k)*PRISM_K_TILE)
    double *c_ne = CWP(PRISM_KC_NE), *c_ex = CWP(PRISM_KC_EX);
    double *c_cmp = CWP(PRISM_KC_COMPUTE), *c_rc = CWP(PRISM_KC_RECOMP);
    double *c_wg = CWP(PRISM_KC_WGRAD), *c_tp = CWP(PRISM_KC_TP), *c_cp = CWP(PRISM_KC_CP);
    double *c_ep = CWP(PRISM_KC_EP), *c_fl = CWP(PRISM_KC_FLOPS);
    double *c_tpb = CWP(PRISM_KC_TP_BYTES), *c_cpb = CWP(PRISM_KC_CP_BYTES);
    double *c_epb = CWP(PRISM_KC_EP_BYTES);
    double *c_gat = CWP(PRISM_KC_GATHER);
    const double *s_ne = SWP(PRISM_KS_NE), *s_ex = SWP(PRISM_KS_EX);
    const double *s_cmp = SWP(PRISM_KS_COMPUTE), *s_rc = SWP(PRISM_KS_RECOMP);
    const double *s_wg = SWP(PRISM_KS_WGRAD), *s_tp = SWP(PRISM_KS_TP), *s_cp = SWP(PRISM_KS_CP);
    const double *s_ep = SWP(PRISM_KS_EP), *s_fl = SWP(PRISM_KS_FLOPS);
    const double *s_tpb = SWP(PRISM_KS_TP_BYTES), *s_cpb = SWP(PRISM_KS_CP_BYTES);
    const double *s_epb = SWP(PRISM_KS_EP_BYTES);
    const double *s_gat = SWP(PRISM_KS_GATHER);
#undef CWP
#undef SWP
    if (first) {
        PRISM_KLOOP
        for (size_t i = 0; i < n; i++) {
            c_ne[i] = cnt * s_ne[i];
            c_ex[i] = cnt * s_ex[i];
            c_cmp[i] = cnt * s_cmp[i];
            c_rc[i] = cnt * s_rc[i];
            c_wg[i] = cnt * s_wg[i];
            c_tp[i] = cnt * s_tp[i];
            c_cp[i] = cnt * s_cp[i];
            c_ep[i] = cnt * s_ep[i];
            c_fl[i] = cnt * s_fl[i];
            c_tpb[i] = cnt * s_tpb[i];
            c_cpb[i] = cnt * s_cpb[i];
            c_epb[i] = cnt * s_epb[i];
            c_gat[i] = s_gat[i];
        }
        return;
    }
    PRISM_KLOOP
    for (size_t i = 0; i < n; i++) {
        c_ne[i] += cnt * s_ne[i];
        c_ex[i] += cnt * s_ex[i];
        c_cmp[i] += cnt * s_cmp[i];
        c_rc[i] += cnt * s_rc[i];
        c_wg[i] += cnt * s_wg[i];
        c_tp[i] += cnt * s_tp[i];
        c_cp[i] += cnt * s_cp[i];
        c_ep[i] += cnt * s_ep[i];
        c_fl[i] += cnt * s_fl[i];
        c_tpb[i] += cnt * s_tpb[i];
        c_cpb[i] += cnt * s_cpb[i];
        c_epb[i] += cnt * s_epb[i];
        c_gat[i] = s_gat[i] > c_gat[i] ? s_gat[i] : c_gat[i];
    }
}

static void k_comp(const PrismKModel *km, const PrismKSegment *ks, uint32_t c,
                   const PrismKLanes *ln, size_t off, size_t n, double *ws)
{
    const size_t ns = ks->n_slots;
    double *slot0 = WS(PRISM_KL_COUNT);
    double *cw = WS(PRISM_KL_COUNT + ns * PRISM_KS_COUNT + (size_t)c * PRISM_KC_COUNT);
#define CW(k) (cw + (size_t)(k)*PRISM_K_TILE)
    int first = 1;
    for (size_t s = 0; s < ns; s++) {
        const double cnt = ks->count[(size_t)c * ns + s];
        if (cnt == 0.0)
            continue;
        k_comp_sum(cw, slot0 + s * PRISM_KS_COUNT * PRISM_K_TILE, cnt, first, n);
        first = 0;
    }
    const double moe = ks->comp_moe[c], bw = ks->bub_w, hid = ks->hide, msh = ks->m_share;
    const double pre = km->zero3_prefetch, rt = km->runtime_bytes, dpx = km->dp_exposed;
    const double *restrict mm = ln->m + off, *restrict zero = ln->zero + off;
    const double *ppbuf = WS(PRISM_KL_PP_BUF), *epbuf = WS(PRISM_KL_EP_BUF);
    const double *pptime = WS(PRISM_KL_PP_TIME), *ppbytes = WS(PRISM_KL_PP_BYTES);
    const double *dpa = WS(PRISM_KL_DP_A), *dplat = WS(PRISM_KL_DP_LAT);
    const double *dpbf = WS(PRISM_KL_DP_BF), *dpea = WS(PRISM_KL_DPE_A);
    const double *dpelat = WS(PRISM_KL_DPE_LAT), *dpebf = WS(PRISM_KL_DPE_BF);
    const double *tplvl = WS(PRISM_KL_TP_LVL), *cplvl = WS(PRISM_KL_CP_LVL);
    const double *eplvl = WS(PRISM_KL_EP_LVL), *dplvl = WS(PRISM_KL_DP_LVL);
    const double *pplvl = WS(PRISM_KL_PP_LVL);
    const double *ne = CW(PRISM_KC_NE), *ex = CW(PRISM_KC_EX), *gat = CW(PRISM_KC_GATHER);
    const double *cmp = CW(PRISM_KC_COMPUTE), *rc = CW(PRISM_KC_RECOMP);
    const double *wg = CW(PRISM_KC_WGRAD), *tpt = CW(PRISM_KC_TP), *cpt = CW(PRISM_KC_CP);
    double *ept = CW(PRISM_KC_EP);
    const double *tpb = CW(PRISM_KC_TP_BYTES);
    const double *cpb = CW(PRISM_KC_CP_BYTES), *epb = CW(PRISM_KC_EP_BYTES);
    const double bp = km->bytes_param, bg = km->bytes_grad, bo = km->bytes_opt;
    const double opt_tr = km->opt_traffic, hbm = km->inv_hbm;
    const double *pdiv = WS(PRISM_KL_PDIV), *gdiv = WS(PRISM_KL_GDIV);
    const double *odiv = WS(PRISM_KL_ODIV), *pdive = WS(PRISM_KL_PDIV_E);
    const double *gdive = WS(PRISM_KL_GDIV_E), *odive = WS(PRISM_KL_ODIV_E);
    double *par = CW(PRISM_KC_PARAMS), *grd = CW(PRISM_KC_GRADS), *opt = CW(PRISM_KC_OPT);
    double *ost = CW(PRISM_KC_OPT_STEP);
    double *buf = CW(PRISM_KC_BUFFERS), *tim = CW(PRISM_KC_TIME), *unit = CW(PRISM_KC_UNIT);
    double *dpt = CW(PRISM_KC_DP), *b0 = CW(PRISM_KC_BYTES_L0), *b1 = CW(PRISM_KC_BYTES_L1);
    double *b2 = CW(PRISM_KC_BYTES_L2), *b3 = CW(PRISM_KC_BYTES_L3);
    PRISM_KLOOP
    for (size_t i = 0; i < n; i++) {
        const double m = mm[i] * msh;
        /* static bytes: the ZeRO shares are per strategy, so sum parameters first */
        par[i] = bp * (ne[i] * pdiv[i] + ex[i] * pdive[i]);
        grd[i] = bg * (ne[i] * gdiv[i] + ex[i] * gdive[i]);
        opt[i] = bo * (ne[i] * odiv[i] + ex[i] * odive[i]);
        ost[i] = (ne[i] * odiv[i] + ex[i] * odive[i]) * opt_tr * hbm;
        buf[i] = ppbuf[i] + moe * epbuf[i] + (zero[i] > 2.5 ? pre * gat[i] : 0.0) + rt;
        /* DualPipe(V): one micro-batch's EP all-to-all runs under the other micro-batch's
         * compute (overlapped forward & backward), hidden up to that compute; the stage's
         * EP term keeps the exposed rest (hid = 0: the same bits) */
        const double cr = cmp[i] + rc[i];
        const double ex_ep = ept[i] - hid * (ept[i] < cr ? ept[i] : cr);
        ept[i] = ex_ep;
        const double tt = cmp[i] + rc[i] + tpt[i] + cpt[i] + ex_ep + pptime[i];
        tim[i] = tt;
        unit[i] = tt - bw * wg[i];
        dpt[i] = (ne[i] * dpa[i] + dplat[i] + moe * (ex[i] * dpea[i] + dpelat[i])) * dpx;
        const double dpbytes = ne[i] * dpbf[i] + moe * ex[i] * dpebf[i];
        const double lt = tplvl[i], lc = cplvl[i], le = eplvl[i], ld = dplvl[i], lp = pplvl[i];
        b0[i] = m * ((lt == 0.0 ? tpb[i] : 0.0) + (lc == 0.0 ? cpb[i] : 0.0) +
                     (le == 0.0 ? epb[i] : 0.0) + (lp == 0.0 ? ppbytes[i] : 0.0)) +
                (ld == 0.0 ? dpbytes : 0.0);
        b1[i] = m * ((lt == 1.0 ? tpb[i] : 0.0) + (lc == 1.0 ? cpb[i] : 0.0) +
                     (le == 1.0 ? epb[i] : 0.0) + (lp == 1.0 ? ppbytes[i] : 0.0)) +
                (ld == 1.0 ? dpbytes : 0.0);
        b2[i] = m * ((lt == 2.0 ? tpb[i] : 0.0) + (lc == 2.0 ? cpb[i] : 0.0) +
                     (le == 2.0 ? epb[i] : 0.0) + (lp == 2.0 ? ppbytes[i] : 0.0)) +
                (ld == 2.0 ? dpbytes : 0.0);
        b3[i] = m * ((lt == 3.0 ? tpb[i] : 0.0) + (lc == 3.0 ? cpb[i] : 0.0) +
                     (le == 3.0 ? epb[i] : 0.0) + (lp == 3.0 ? ppbytes[i] : 0.0)) +
                (ld == 3.0 ? dpbytes : 0.0);
    }
#undef CW
}

static void k_cand(const PrismKSegment *ks, uint32_t d, const PrismKLanes *ln, size_t off, size_t n,
                   double *ws)
{
    const size_t ns = ks->n_slots;
    const uint32_t c = ks->cand_comp[d];
    double *slot0 = WS(PRISM_KL_COUNT);
    double *cw = WS(PRISM_KL_COUNT + ns * PRISM_KS_COUNT + (size_t)c * PRISM_KC_COUNT);
    double *dw = WS(PRISM_KL_COUNT + ns * PRISM_KS_COUNT + (size_t)ks->n_comp * PRISM_KC_COUNT +
                    (size_t)d * PRISM_KD_COUNT);
    double *restrict act = dw + (size_t)PRISM_KD_ACT * PRISM_K_TILE;
    double *restrict work = dw + (size_t)PRISM_KD_WORK * PRISM_K_TILE;
    double *restrict tot = dw + (size_t)PRISM_KD_TOTAL * PRISM_K_TILE;
    const double *restrict mm = ln->m + off;
    const double cap = ks->m_cap, mid = ks->m_mid, wsc = ks->work_scale;
    for (size_t i = 0; i < n; i++) {
        act[i] = 0.0;
        work[i] = 0.0;
    }
    for (size_t s = 0; s < ns; s++) {
        const size_t at = (size_t)d * ns + s;
        const double wa = ks->w_a[at], wb = ks->w_b[at], wc = ks->w_cap[at];
        const double wm = ks->w_mid[at], wo = ks->w_one[at];
        const double *restrict sa =
            slot0 + ((size_t)s * PRISM_KS_COUNT + PRISM_KS_ACT) * PRISM_K_TILE;
        if (wa != 0.0 || wb != 0.0 || wc != 0.0 || wm != 0.0) {
            PRISM_KLOOP
            for (size_t i = 0; i < n; i++) {
                const double w = mm[i] <= cap ? wc : mm[i] <= mid ? wm : wa + wb * mm[i];
                const double lim = wo * mm[i];
                act[i] += (w < lim ? w : lim) * sa[i];
            }
        }
        if (ks->cand_work[at]) {
            const double *restrict sx =
                slot0 + ((size_t)s * PRISM_KS_COUNT + PRISM_KS_EXTRA) * PRISM_K_TILE;
            PRISM_KLOOP
            for (size_t i = 0; i < n; i++)
                work[i] = sx[i] > work[i] ? sx[i] : work[i];
        }
    }
    const double *par = cw + (size_t)PRISM_KC_PARAMS * PRISM_K_TILE;
    const double *grd = cw + (size_t)PRISM_KC_GRADS * PRISM_K_TILE;
    const double *opt = cw + (size_t)PRISM_KC_OPT * PRISM_K_TILE;
    const double *buf = cw + (size_t)PRISM_KC_BUFFERS * PRISM_K_TILE;
    PRISM_KLOOP
    for (size_t i = 0; i < n; i++) {
        act[i] += work[i] * wsc;
        tot[i] = par[i] + grd[i] + opt[i] + act[i] + buf[i];
    }
}

static void k_final(const PrismKModel *km, const PrismKSegment *ks, const PrismKLanes *ln,
                    size_t off, size_t n, double *const *out, double *ws)
{
    const size_t ns = ks->n_slots, nc = ks->n_comp;
    double *comp0 = WS(PRISM_KL_COUNT + ns * PRISM_KS_COUNT);
    double *cand0 = comp0 + nc * PRISM_KC_COUNT * PRISM_K_TILE;
#define CT(c, k) (comp0 + ((size_t)(c)*PRISM_KC_COUNT + (size_t)(k)) * PRISM_K_TILE)
#define DT(d, k) (cand0 + ((size_t)(d)*PRISM_KD_COUNT + (size_t)(k)) * PRISM_K_TILE)
    double *o_par = out[PRISM_KO_MEM_PARAMS] + off, *o_grd = out[PRISM_KO_MEM_GRADS] + off;
    double *o_opt = out[PRISM_KO_MEM_OPTIMIZER] + off;
    double *o_act = out[PRISM_KO_MEM_ACTIVATIONS] + off;
    double *o_buf = out[PRISM_KO_MEM_COMM_BUFFERS] + off, *o_peak = out[PRISM_KO_MEM_PEAK] + off;
    double *o_stage = out[PRISM_KO_PEAK_STAGE] + off;
    /* memory: the first candidate, then strictly larger ones (ties keep the lower
     * stage: candidates are in stage order) */
    {
        const uint32_t c = ks->cand_comp[0];
        const double st = ks->cand_stage[0];
        const double *par = CT(c, PRISM_KC_PARAMS), *grd = CT(c, PRISM_KC_GRADS);
        const double *opt = CT(c, PRISM_KC_OPT), *buf = CT(c, PRISM_KC_BUFFERS);
        const double *act = DT(0, PRISM_KD_ACT), *tot = DT(0, PRISM_KD_TOTAL);
        PRISM_KLOOP
        for (size_t i = 0; i < n; i++) {
            o_par[i] = par[i];
            o_grd[i] = grd[i];
            o_opt[i] = opt[i];
            o_act[i] = act[i];
            o_buf[i] = buf[i];
            o_peak[i] = tot[i];
            o_stage[i] = st;
        }
    }
    for (uint32_t d = 1; d < ks->n_cand; d++) {
        const uint32_t c = ks->cand_comp[d];
        const double st = ks->cand_stage[d];
        const double *par = CT(c, PRISM_KC_PARAMS), *grd = CT(c, PRISM_KC_GRADS);
        const double *opt = CT(c, PRISM_KC_OPT), *buf = CT(c, PRISM_KC_BUFFERS);
        const double *act = DT(d, PRISM_KD_ACT), *tot = DT(d, PRISM_KD_TOTAL);
        PRISM_KLOOP
        for (size_t i = 0; i < n; i++) {
            const int gt = tot[i] > o_peak[i];
            o_par[i] = gt ? par[i] : o_par[i];
            o_grd[i] = gt ? grd[i] : o_grd[i];
            o_opt[i] = gt ? opt[i] : o_opt[i];
            o_act[i] = gt ? act[i] : o_act[i];
            o_buf[i] = gt ? buf[i] : o_buf[i];
            o_stage[i] = gt ? st : o_stage[i];
            o_peak[i] = gt ? tot[i] : o_peak[i];
        }
    }
    /* time: the slowest stage sets the steady state; sum and max of the bubble units
     * over all stages (each composition weighted by its stage count) */
    double *o_cmp = out[PRISM_KO_TIME_COMPUTE] + off, *o_rc = out[PRISM_KO_TIME_RECOMPUTE] + off;
    double *o_tp = out[PRISM_KO_TIME_TP_COMM] + off, *o_cp = out[PRISM_KO_TIME_CP_COMM] + off;
    double *o_ep = out[PRISM_KO_TIME_EP_COMM] + off, *o_dp = out[PRISM_KO_TIME_DP_COMM] + off;
    double *o_pp = out[PRISM_KO_TIME_PP_COMM] + off, *o_bub = out[PRISM_KO_TIME_BUBBLE] + off;
    double *o_step = out[PRISM_KO_TIME_STEP] + off, *o_fl = out[PRISM_KO_FLOPS_PER_DEVICE] + off;
    double *o_b0 = out[PRISM_KO_BYTES_L0] + off, *o_b1 = out[PRISM_KO_BYTES_L1] + off;
    double *o_b2 = out[PRISM_KO_BYTES_L2] + off, *o_b3 = out[PRISM_KO_BYTES_L3] + off;
    double *o_ost = out[PRISM_KO_TIME_OPTIMIZER] + off;
    const double *pptime = WS(PRISM_KL_PP_TIME);
    double *fin = cand0 + (size_t)ks->n_cand * PRISM_KD_COUNT * PRISM_K_TILE;
    double *f_tmax = fin + (size_t)PRISM_KF_TMAX * PRISM_K_TILE;
    double *f_usum = fin + (size_t)PRISM_KF_USUM * PRISM_K_TILE;
    double *f_umax = fin + (size_t)PRISM_KF_UMAX * PRISM_K_TILE;
    double *f_dp = fin + (size_t)PRISM_KF_DPMAX * PRISM_K_TILE;
    {
        const double mu = ks->mult[0];
        const double *tim = CT(0, PRISM_KC_TIME), *unit = CT(0, PRISM_KC_UNIT);
        const double *cmp = CT(0, PRISM_KC_COMPUTE), *rc = CT(0, PRISM_KC_RECOMP);
        const double *tpt = CT(0, PRISM_KC_TP), *cpt = CT(0, PRISM_KC_CP);
        const double *ept = CT(0, PRISM_KC_EP), *dpt = CT(0, PRISM_KC_DP);
        const double *fl = CT(0, PRISM_KC_FLOPS), *ost = CT(0, PRISM_KC_OPT_STEP);
        const double *b0 = CT(0, PRISM_KC_BYTES_L0), *b1 = CT(0, PRISM_KC_BYTES_L1);
        const double *b2 = CT(0, PRISM_KC_BYTES_L2), *b3 = CT(0, PRISM_KC_BYTES_L3);
        PRISM_KLOOP
        for (size_t i = 0; i < n; i++) {
            o_ost[i] = ost[i];
            f_tmax[i] = tim[i];
            f_usum[i] = mu * unit[i];
            f_umax[i] = unit[i];
            f_dp[i] = dpt[i];
            o_cmp[i] = cmp[i];
            o_rc[i] = rc[i];
            o_tp[i] = tpt[i];
            o_cp[i] = cpt[i];
            o_ep[i] = ept[i];
            o_fl[i] = fl[i];
            o_b0[i] = mu * b0[i];
            o_b1[i] = mu * b1[i];
            o_b2[i] = mu * b2[i];
            o_b3[i] = mu * b3[i];
        }
    }
    for (uint32_t c = 1; c < nc; c++) {
        const double mu = ks->mult[c];
        const double *tim = CT(c, PRISM_KC_TIME), *unit = CT(c, PRISM_KC_UNIT);
        const double *cmp = CT(c, PRISM_KC_COMPUTE), *rc = CT(c, PRISM_KC_RECOMP);
        const double *tpt = CT(c, PRISM_KC_TP), *cpt = CT(c, PRISM_KC_CP);
        const double *ept = CT(c, PRISM_KC_EP), *dpt = CT(c, PRISM_KC_DP);
        const double *fl = CT(c, PRISM_KC_FLOPS), *ost = CT(c, PRISM_KC_OPT_STEP);
        const double *b0 = CT(c, PRISM_KC_BYTES_L0), *b1 = CT(c, PRISM_KC_BYTES_L1);
        const double *b2 = CT(c, PRISM_KC_BYTES_L2), *b3 = CT(c, PRISM_KC_BYTES_L3);
        PRISM_KLOOP
        for (size_t i = 0; i < n; i++) {
            const int gt = tim[i] > f_tmax[i];
            o_ost[i] = ost[i] > o_ost[i] ? ost[i] : o_ost[i];
            o_cmp[i] = gt ? cmp[i] : o_cmp[i];
            o_rc[i] = gt ? rc[i] : o_rc[i];
            o_tp[i] = gt ? tpt[i] : o_tp[i];
            o_cp[i] = gt ? cpt[i] : o_cp[i];
            o_ep[i] = gt ? ept[i] : o_ep[i];
            f_tmax[i] = gt ? tim[i] : f_tmax[i];
            f_usum[i] += mu * unit[i];
            f_umax[i] = unit[i] > f_umax[i] ? unit[i] : f_umax[i];
            f_dp[i] = dpt[i] > f_dp[i] ? dpt[i] : f_dp[i];
            o_fl[i] = fl[i] > o_fl[i] ? fl[i] : o_fl[i];
            o_b0[i] += mu * b0[i];
            o_b1[i] += mu * b1[i];
            o_b2[i] += mu * b2[i];
            o_b3[i] += mu * b3[i];
        }
    }
    const double bsc = ks->bub_scale, bsum = ks->bub_sum, msh = ks->m_share;
    const double inv_p = ks->inv_pp;
    const double mfu_num = ks->mfu_num, hfu_num = ks->hfu_num;
    const double tokens = km->gbs * km->seq, budget = km->budget;
    const double *restrict mm = ln->m + off;
    double *o_mfu = out[PRISM_KO_MFU] + off, *o_hfu = out[PRISM_KO_HFU] + off;
    double *o_tok = out[PRISM_KO_TOKENS_PER_S] + off;
    double *o_feas = out[PRISM_KO_FEASIBLE] + off, *o_why = out[PRISM_KO_REASON] + off;
    PRISM_KLOOP
    for (size_t i = 0; i < n; i++) {
        const double m = mm[i] * msh;
        const double bx = bsum * f_usum[i] - f_umax[i];
        const double bubble = (bx > 0.0 ? bx : 0.0) * bsc;
        const double step = m * f_tmax[i] + bubble + f_dp[i] + o_ost[i];
        const double inv_step = 1.0 / step;
        o_cmp[i] = m * o_cmp[i];
        o_rc[i] = m * o_rc[i];
        o_tp[i] = m * o_tp[i];
        o_cp[i] = m * o_cp[i];
        o_ep[i] = m * o_ep[i];
        o_pp[i] = m * pptime[i];
        o_bub[i] = bubble;
        o_dp[i] = f_dp[i];
        o_step[i] = step;
        o_mfu[i] = mfu_num * inv_step;
        o_hfu[i] = hfu_num * inv_step;
        o_tok[i] = tokens * inv_step;
        o_fl[i] = m * o_fl[i];
        o_b0[i] = o_b0[i] * inv_p;
        o_b1[i] = o_b1[i] * inv_p;
        o_b2[i] = o_b2[i] * inv_p;
        o_b3[i] = o_b3[i] * inv_p;
        const double stat = o_par[i] + o_grd[i] + o_opt[i];
        const double peak = o_peak[i];
        o_feas[i] = peak <= budget ? 1.0 : 0.0;
        o_why[i] = peak <= budget             ? 0.0
                   : stat > budget            ? 1.0
                   : stat + o_act[i] > budget ? 2.0
                                              : 3.0;
    }
#undef CT
#undef DT
}

void PRISM_KCAT(prism_cost_kernel, PRISM_KSUFFIX)(const PrismKModel *km, const PrismKSegment *ks,
                                                  const PrismKLanes *lanes, size_t n,
                                                  double *const *out, double *ws);

void PRISM_KCAT(prism_cost_kernel, PRISM_KSUFFIX)(const PrismKModel *km, const PrismKSegment *ks,
                                                  const PrismKLanes *lanes, size_t n,
                                                  double *const *out, double *ws)
{
    const size_t slot_stride = (size_t)PRISM_KS_COUNT * PRISM_K_TILE;
    for (size_t off = 0; off < n; off += PRISM_K_TILE) {
        const size_t len = n - off < PRISM_K_TILE ? n - off : PRISM_K_TILE;
        k_lanes(km, ks, lanes, off, len, ws);
        for (uint32_t s = 0; s < ks->n_slots; s++)
            k_slot(km, ks, &ks->slots[s], lanes, off, len, ws,
                   ws + (size_t)PRISM_KL_COUNT * PRISM_K_TILE + s * slot_stride);
        for (uint32_t c = 0; c < ks->n_comp; c++)
            k_comp(km, ks, c, lanes, off, len, ws);
        for (uint32_t d = 0; d < ks->n_cand; d++)
            k_cand(ks, d, lanes, off, len, ws);
        k_final(km, ks, lanes, off, len, out, ws);
    }
}

#undef WS
#undef PRISM_KLOOP
#undef PRISM_KCAT
#undef PRISM_KCAT2
