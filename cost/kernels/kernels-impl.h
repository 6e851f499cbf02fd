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
 * in-flight activations and total), final (max over stages, step time, columns; and,
 * when PrismKLanes.stat asks, each lane's largest static bytes: the search's bound).
 * The formulas are derived in cost/README.md. Nothing here is collective or allocates.
 */
#include <stddef.h>
#include <stdint.h>

#include "kernels-model.h"
#include "kernels-nccl.h"

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
static inline double k_level(double x, const double *size, const double *v)
{
#if PRISM_K_LEVELS != 8
#error "k_level selects over exactly 8 levels"
#endif
    return x <= size[0]   ? v[0]
           : x <= size[1] ? v[1]
           : x <= size[2] ? v[2]
           : x <= size[3] ? v[3]
           : x <= size[4] ? v[4]
           : x <= size[5] ? v[5]
           : x <= size[6] ? v[6]
                          : v[7];
}

/* The bytes column of a level index: levels 0..2 their own, level 3 and outward the last
 * (of four) */
static inline double k_lv_col(double lvl)
{
    return lvl < 3.0 ? lvl : 3.0;
}

/* Seconds per byte of a collective whose group has a stride of @p rel_stride nodes
 * (stride / devices per node) on a level of @p ib_lvl s/B per device: a group with
 * k = 1/rel_stride > 1 members per node spreads its inter-node traffic over their k NICs,
 * bounded below by the intra-node link @p ib0 (knob nic_spread). rel_stride >= 1 (one
 * member per node, or nic_spread 0) returns ib_lvl bit for bit. Exact in every ISA
 * (compares and one product). */
static inline double k_nics(double ib_lvl, double rel_stride, double ib0)
{
    const double f = rel_stride < 1.0 ? rel_stride : 1.0;
    const double v = ib_lvl * f;
    return f < 1.0 && v < ib0 ? ib0 : v;
}

static void k_lanes(const PrismKModel *km, const PrismKSegment *ks, const PrismKLanes *ln,
                    size_t off, size_t n, double *ws, int dpo)
{
    const double *restrict tp = ln->tp + off, *restrict cp = ln->cp + off;
    const double *restrict dp = ln->dp + off, *restrict ep = ln->ep + off;
    const double *restrict sp = ln->sp + off, *restrict mbs = ln->mbs + off;
    const double *restrict mm = ln->m + off, *restrict zero = ln->zero + off;
    const double *restrict etpv = ln->etp + off;
    /* per network level (every level the cluster declares; past its last, the last again
     * at size +inf): size, s/B of all-reduce, of all-gather / reduce-scatter (lvl_inv_bw_ag:
     * the all-reduce figure unless the cluster gives its own), latency, and the level's
     * index; copied to locals so the lane loop reads no memory it stores to */
    double sz[PRISM_K_LEVELS], lv_ib[PRISM_K_LEVELS], lv_ag[PRISM_K_LEVELS];
    double lv_la[PRISM_K_LEVELS], lv_id[PRISM_K_LEVELS];
    for (int j = 0; j < PRISM_K_LEVELS; j++) {
        sz[j] = km->lvl_size[j];
        lv_ib[j] = km->lvl_inv_bw[j];
        lv_ag[j] = km->lvl_inv_bw_ag[j];
        lv_la[j] = km->lvl_lat[j];
        lv_id[j] = (double)j;
    }
    const double ib0 = lv_ib[0], ag0 = lv_ag[0];
    /* bg: the bytes per gradient the DP/ZeRO collectives move (every use below) */
    const double seq = km->seq, bp = km->bytes_param, bg = km->bytes_grad_comm;
    const double hb = km->hidden_bytes, moe = km->moe_tok_bytes;
    const double agd = km->moe_allgather, hb_moe = moe > 0.0 ? hb / (moe > 0.0 ? moe : 1.0) : 0.0;
    const double pexp = km->pp_exposed, scat = km->pp_scatter;
    const double pipe = ks->pipelined, vpp = ks->vpp, ppn = ks->pp, pmsg = ks->pp_msgs;
    const double phost = ks->pp_host;
    const double ptm = ks->pp_tp_msgs, pth = ks->pp_tp_host, ptg = ks->pp_tp_gathers;
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
    double *shard = WS(PRISM_KL_SHARD), *repl = WS(PRISM_KL_REPL);
    double *dpbfr = WS(PRISM_KL_DP_BF_R), *dplvlr = WS(PRISM_KL_DP_LVL_R);
    double *dpfb = WS(PRISM_KL_DP_FB), *dpnw = WS(PRISM_KL_DP_NW);
    double *fsag = WS(PRISM_KL_FS_AG_A), *fsagl = WS(PRISM_KL_FS_AG_LAT);
    double *fsrs = WS(PRISM_KL_FS_RS_A), *fsrsl = WS(PRISM_KL_FS_RS_LAT);
    double *fsage = WS(PRISM_KL_FS_AGE_A), *fsagel = WS(PRISM_KL_FS_AGE_LAT);
    double *fsrse = WS(PRISM_KL_FS_RSE_A), *fsrsel = WS(PRISM_KL_FS_RSE_LAT);
    double *cpsa = WS(PRISM_KL_CP_STEP_A), *cpsl = WS(PRISM_KL_CP_STEP_LAT);
    double *cpaa = WS(PRISM_KL_CP_A2A_A), *cplb = WS(PRISM_KL_CP_LB);
    double *cpinv = WS(PRISM_KL_CP_INV), *fsonce = WS(PRISM_KL_FS_ONCE);
    double *tpl128 = WS(PRISM_KL_TP_LAT_LL128), *tplll = WS(PRISM_KL_TP_LAT_LL);
    double *tie = WS(PRISM_KL_TIE_SYNC);
    double *epsy = WS(PRISM_KL_EP_SYNC);
    const double msy = km->moe_sync, msh = km->moe_sync_host;
    const double tpar = km->tie_params, ton = tpar > 0.0 ? 1.0 : 0.0;
    const double zar = km->zero1_allreduce;
    /* NCCL's ring model (kernels-nccl.h; nccl_on 0: the levels' latency_us, no base) */
    const double non = km->nccl_on > 0.5 ? 1.0 : 0.0;
    const double nbs = non * km->nccl_base[PRISM_NCCL_SIMPLE];
    const double nb8 = km->nccl_base[PRISM_NCCL_LL128], nbl = km->nccl_base[PRISM_NCCL_LL];
    /* per level: the hop latency of each protocol, and the per-step latency of the
     * DP/ZeRO collectives (NCCL's Simple hop or the level's) */
    double lv_hs[PRISM_K_LEVELS], lv_h8[PRISM_K_LEVELS], lv_hl[PRISM_K_LEVELS];
    double lv_da[PRISM_K_LEVELS];
    for (int j = 0; j < PRISM_K_LEVELS; j++) {
        lv_hs[j] = km->nccl_hop[j][PRISM_NCCL_SIMPLE];
        lv_h8[j] = km->nccl_hop[j][PRISM_NCCL_LL128];
        lv_hl[j] = km->nccl_hop[j][PRISM_NCCL_LL];
        lv_da[j] = non > 0.5 ? lv_hs[j] : lv_la[j];
    }
    const double s0 = km->lvl_size[0], hsdp = km->hsdp, rsh = km->fsdp_reshard;
    const double nos = km->fsdp_pp_nosync * pipe; /* FSDP under a pipeline: no per-mb sync */
    const double lowp = km->zero3_lowp; /* 0: FSDP2 holds no 16-bit shard (the fp32 master) */
    const double is0 = 1.0 / s0;        /* 0 for a single-level cluster (s0 = +inf) */
    /* nic_spread: a group's stride in nodes is stride * nis (off: 1, so stride >= 1: one NIC) */
    const double nis = km->nic_spread > 0.5 ? is0 : 1.0;
    const double zz = km->cp_zigzag, sig = km->cp_skip, irun = km->cp_inv_run;
    PRISM_KLOOP
    for (size_t i = 0; i < n; i++) {
        const double t = tp[i], c = cp[i], d = dp[i], e = ep[i], m = mm[i], z = zero[i];
        const double x = etpv[i];
        const double it = 1.0 / t, ie = 1.0 / e;
        const double r = sp[i] > 0.5 ? it : 1.0;
        const double T = mbs[i] * seq / c;
        inv_tp[i] = it;
        rep[i] = r;
        tok[i] = T;
        /* parallel folding (strategy.h): the experts of a stage are cut etp x ep over its
         * t*c*d devices, so a device holds 1/(etp*ep) of them and their data-parallel
         * (ZeRO) group is edp = t*c*d/(etp*ep) devices at stride etp*ep */
        inv_ep[i] = 1.0 / (x * e);
        /* ZeRO over the dp x cp group (dense) and the edp group (experts). HSDP
         * shards the dense part within the node (the group's ranks on level 0: s0/t of
         * them, TP innermost) and replicates across: n_s shard ranks, n_r = n_d/n_s
         * replicas. ZeRO-3 without reshard-after-forward keeps the gathered parameters
         * from forward to backward: ZeRO-2 parameter memory. */
        const double n_d = d * c, in_d = 1.0 / n_d;
        const double n_e = (t * n_d) / (x * e), in_e = (x * e) / (t * n_d);
        const double node_dp = s0 * it > 1.0 ? s0 * it : 1.0;
        const double n_s = hsdp > 0.5 && z > 0.5 && node_dp < n_d ? node_dp : n_d;
        const double in_s = n_s < n_d ? (node_dp > 1.0 ? t * is0 : 1.0) : in_d;
        const double n_r = n_d * in_s, in_r = n_s * in_d;
        shard[i] = n_s;
        repl[i] = n_r;
        pdiv[i] = z > 2.5 && rsh > 0.5 ? in_s * lowp : 1.0;
        gdiv[i] = z > 1.5 ? in_s : 1.0;
        odiv[i] = z > 0.5 ? in_s : 1.0;
        pdive[i] = z > 2.5 ? in_e * lowp : 1.0;
        gdive[i] = z > 1.5 ? in_e : 1.0;
        odive[i] = z > 0.5 ? in_e : 1.0;
        /* TP: ring all-reduce 2(t-1)/t of the volume, 2(t-1) latency steps */
        const double x_tp = t;
        tpbf[i] = 2.0 * (t - 1.0) * it;
        {
            /* SP runs each all-reduce-equivalent as a reduce-scatter and an all-gather (the
             * level's gather figure), without SP one all-reduce; a group of t > s0 devices
             * has s0 members on each node and crosses on their s0 NICs like any NCCL ring
             * (nic_spread, stride 1), never faster than the node's own link */
            const double t_ar = k_nics(k_level(x_tp, sz, lv_ib), nis, ib0);
            const double t_ag = k_nics(k_level(x_tp, sz, lv_ag), nis, ag0);
            tpa[i] = 2.0 * (t - 1.0) * it * (sp[i] > 0.5 ? t_ag : t_ar);
        }
        tplat[i] = 2.0 * (t - 1.0) * k_level(x_tp, sz, lv_la);
        tplvl[i] = k_level(x_tp, sz, lv_id);
        {
            /* NCCL (kernels-nccl.h): one base latency per collective (the all-reduce, or
             * with SP its reduce-scatter and all-gather) and 2(t-1) ring steps at the
             * protocol's hop latency; off: every protocol gets the level's latency, so the
             * fastest is Simple at the old value exactly */
            /* a group of t > s0 spans nodes: of its ring steps only NCCL's count crosses
             * them (prism_k_nccl_tp_lat); inside a node the same 2(t-1) hops as before */
            const double nc = (t > 1.5 ? 1.0 : 0.0) * (sp[i] > 0.5 ? 2.0 : 1.0);
            const double nd_t = prism_k_nccl_nodes(t, 1.0, is0), spt = sp[i];
            const double ls = nc * nbs + prism_k_nccl_tp_lat(t, nd_t, spt, lv_hs[0],
                                                             k_level(x_tp, sz, lv_hs), 3.0);
            const double l8 = nc * nb8 + prism_k_nccl_tp_lat(t, nd_t, spt, lv_h8[0],
                                                             k_level(x_tp, sz, lv_h8), 1.0);
            const double ll = nc * nbl + prism_k_nccl_tp_lat(t, nd_t, spt, lv_hl[0],
                                                             k_level(x_tp, sz, lv_hl), 1.0);
            const double lo = tplat[i];
            tplat[i] = non > 0.5 ? ls : lo;
            tpl128[i] = non > 0.5 ? l8 : lo;
            tplll[i] = non > 0.5 ? ll : lo;
        }
        /* CP: ring over t x c devices, c - 1 exchanges per pass; all-to-all (Ulysses)
         * sends (c-1)/c of a tensor in c-1 messages. Causal ring without zig-zag: the
         * last rank computes c - skip of the c(1 - skip) mean blocks and paces the ring */
        const double x_cp = t * c, cib = k_level(x_cp, sz, lv_ib);
        const double cla = k_level(x_cp, sz, lv_la);
        cpbf[i] = c - 1.0;
        cpa[i] = (c - 1.0) * cib;
        cplat[i] = (c - 1.0) * cla;
        cplvl[i] = k_level(x_cp, sz, lv_id);
        cpsa[i] = cib;
        cpsl[i] = cla;
        const double ic = 1.0 / c;
        cpinv[i] = ic;
        cpaa[i] = (c - 1.0) * ic * cib;
        cplb[i] = zz > 0.5 || c < 1.5 || irun <= 0.0 ? 1.0 : (c - sig) * ic * irun;
        /* EP (cost/README.md, "Mixture of experts"), per routed token-slot of the device's
         * T/t tokens (each TP rank dispatches 1/t of them). All-to-all dispatcher: (e-1)/e
         * leave over the EP group (e devices at stride etp, spanning etp*e consecutive
         * devices), then the ETP group (etp consecutive devices) all-gathers its peers'
         * tokens, (etp-1) x T/t slots. All-gather dispatcher: every device gathers the
         * hidden states of all etp*e devices' tokens, (etp*e - 1) x T/t x h bytes, in
         * units of the routed slot (h / (top_k cf h)). The combine mirrors the dispatch. */
        const double x_ep = x * e;
        const double ib_ep = k_level(x_ep, sz, lv_ib);
        const double la_ep = k_level(x_ep, sz, lv_la);
        const double ib_x = k_level(x, sz, lv_ib);
        const double la_x = k_level(x, sz, lv_la);
        const double f_a2a = (e - 1.0) * ie * it, f_etp = (x - 1.0) * it;
        const double f_ag = (x_ep - 1.0) * it * hb_moe;
        const double ag = agd > 0.5 ? 1.0 : 0.0, a2 = 1.0 - ag;
        epbf[i] = a2 * (f_a2a + f_etp) + ag * f_ag;
        /* an EP group that spans nodes: each device's slots for the g - 1 peers on its own
         * node go over the node's links while those for the e - g others cross on its NIC,
         * concurrently (NCCL's all-to-all: one send/recv per peer; DeepEP's normal
         * kernels: NVLink and RDMA at once), so the slower share paces it; g = e inside a
         * node (the whole (e-1)/e at the node's links, as before) */
        const double g_n = x_ep > s0 ? (s0 > x ? s0 / x : 1.0) : e;
        const double a2a_in = (g_n - 1.0) * ie * it * ib0, a2a_out = (e - g_n) * ie * it * ib_ep;
        const double a2a_s = x_ep > s0 ? (a2a_in > a2a_out ? a2a_in : a2a_out) : f_a2a * ib_ep;
        epa[i] = a2 * (a2a_s + f_etp * ib_x) + ag * f_ag * ib_ep;
        eplat[i] = a2 * ((e - 1.0) * la_ep + (x - 1.0) * la_x) + ag * (x_ep - 1.0) * la_ep;
        eplvl[i] = k_level(x_ep, sz, lv_id);
        /* moe_count_sync (cost/README.md, EP): before any token moves, the all-to-all
         * dispatcher all-gathers its E token counts over the etp*e group (latency only:
         * NCCL's LL ring, one base and x_ep - 1 hops, those between nodes at the level's
         * hop, the node's hop floored by the network overhead as for TP) and reads them on
         * the host, the device idle until the next launch */
        {
            const double nd_e = prism_k_nccl_nodes(x_ep, 1.0, is0);
            const double h_in = prism_k_nccl_node_hop(nd_e, lv_hl[0], 1.0);
            const double l_nc =
                nbl + prism_k_nccl_ring_lat(x_ep, nd_e, 0.0, h_in, k_level(x_ep, sz, lv_hl));
            const double l_ag = non > 0.5 ? l_nc : (x_ep - 1.0) * la_ep;
            /* one device (etp*e = 1): no all-gather, the host read all the same */
            epsy[i] = msy * a2 * ((x_ep > 1.5 ? l_ag : 0.0) + msh);
        }
        /* DP: bytes per parameter per step and latency steps by ZeRO stage:
         * 0 all-reduce grads; 1 reduce-scatter grads + all-gather params;
         * 2 reduce-scatter every micro-batch + all-gather; 3 per micro-batch
         * reduce-scatter + all-gather in forward and backward */
        const double x_dp = t * c * d, x_s = t * n_s;
        /* shard-group volume per parameter per step; ZeRO-3 (every micro-batch: a gather
         * in forward, again in backward when resharded, a reduce-scatter) is priced per
         * unit in the slot pass, so its per-step time here is 0 */
        const double nag = z > 2.5 ? 1.0 + rsh : 1.0;
        const double vol = z < 0.5   ? 2.0 * bg
                           : z < 1.5 ? bg + bp
                           : z < 2.5 ? m * bg + bp
                                     : m * (bg + nag * bp);
        /* zero1_grad_allreduce: ZeRO-1's gradients all-reduced whole (2(n-1) steps, 2 bg
         * at the all-reduce figure) before the gather, one more bg than the reduce-scatter;
         * z1a = 0 leaves every term below with the same bits */
        const double z1a = z > 0.5 && z < 1.5 ? zar : 0.0;
        const double steps = z < 1.5 ? 2.0 + z1a : z < 2.5 ? m + 1.0 : (1.0 + nag) * m;
        /* HSDP: all-reduce of the n_s-th shard of the gradients across the replicas,
         * once per reduce-scatter */
        const double nred = z < 1.5 ? 1.0 : m;
        fsonce[i] = 0.0; /* per micro-batch (fsdp_pp_nosync below) */
        const double vol_r = z > 0.5 ? nred * 2.0 * bg * in_s : 0.0;
        /* nic_spread: a collective group with k = s0/stride members on each node crosses
         * the node boundary on k NICs at once (NCCL's channels run their rings through
         * different NICs): per device s/B of the NIC level times 1/k, never faster than
         * the node's own links (cost/README.md, "Collectives over several NICs per node").
         * The dense shard group has stride t, the expert data-parallel group x*e; the HSDP
         * replica group (stride t*n_s >= s0) is unchanged. */
        /* ZeRO >= 1 reduce-scatters and all-gathers (the level's gather figure), ZeRO-0
         * all-reduces */
        const double sib_ar = k_nics(k_level(x_s, sz, lv_ib), t * nis, ib0);
        const double sib_ag = k_nics(k_level(x_s, sz, lv_ag), t * nis, ag0);
        const double sib = z > 0.5 ? sib_ag : sib_ar;
        const double sla = k_level(x_s, sz, lv_da);
        const double dib = k_level(x_dp, sz, lv_ib);
        const double eib = k_nics(dib, x * e * nis, ib0);
        const double dla = k_level(x_dp, sz, lv_da);
        /* NCCL: one base latency per collective call of the step (0 when off): z0 the
         * all-reduce, z1 reduce-scatter + all-gather, z2 m reduce-scatters + a gather;
         * the HSDP replicas' nred all-reduces; ZeRO-3 one per unit and pass below */
        const double calls = z < 0.5 ? 1.0 : z < 1.5 ? 2.0 : m + 1.0;
        const double b_s = n_s > 1.5 ? nbs : 0.0, b_r = n_r > 1.5 ? nbs : 0.0;
        const double b_e = n_e > 1.5 ? nbs : 0.0;
        const double fs_s = (n_s - 1.0) * in_s, fs_r = (n_r - 1.0) * in_r;
        const double per_step = z > 2.5 ? 0.0 : 1.0;
        dpbf[i] = fs_s * vol + z1a * fs_s * bg;
        dpbfr[i] = fs_r * vol_r;
        dpa[i] = per_step * (fs_s * vol * sib + fs_r * vol_r * dib +
                             z1a * fs_s * bg * (2.0 * sib_ar - sib_ag));
        /* NCCL's count of the ring steps that cross nodes (kernels-nccl.h,
         * prism_k_nccl_ring_lat): of each collective's steps only those between nodes pay
         * the level's network hop, the rest the node's NVLink hop (lv_da[0]). The step's
         * collectives: z0 one all-reduce; z1 a reduce-scatter and a gather (with
         * zero1_grad_allreduce an all-reduce and a gather); z2 m reduce-scatters and a
         * gather; the HSDP replicas nred all-reduces. nccl_model 0 keeps every step at
         * the level's latency_us (the old expression, below). */
        const double n_ar = z < 0.5 ? 1.0 : z < 1.5 ? z1a : 0.0;
        const double n_rg = z < 0.5 ? 0.0 : z < 1.5 ? 2.0 - z1a : m + 1.0;
        const double nd_s = prism_k_nccl_nodes(n_s, t, is0);
        const double nd_r = prism_k_nccl_nodes(n_r, t * n_s, is0);
        const double nd_e = prism_k_nccl_nodes(n_e, x * e, is0);
        const double da0 = lv_da[0];
        const double lr_s = prism_k_nccl_ring_lat(n_s, nd_s, 0.0, da0, sla);
        const double la_s = prism_k_nccl_ring_lat(n_s, nd_s, 1.0, da0, sla);
        const double la_r = prism_k_nccl_ring_lat(n_r, nd_r, 1.0, da0, dla);
        const double lr_e = prism_k_nccl_ring_lat(n_e, nd_e, 0.0, da0, dla);
        const double la_e = prism_k_nccl_ring_lat(n_e, nd_e, 1.0, da0, dla);
        const double st_s = non > 0.5 ? n_ar * la_s + n_rg * lr_s : (n_s - 1.0) * steps * sla;
        const double st_r = non > 0.5 ? nred * la_r : (n_r - 1.0) * nred * 2.0 * dla;
        const double st_e = non > 0.5 ? n_ar * la_e + n_rg * lr_e : (n_e - 1.0) * steps * dla;
        dplat[i] = per_step * (st_s + st_r + (calls * b_s + nred * b_r));
        dpebf[i] = (n_e - 1.0) * in_e * vol;
        dpea[i] = per_step * (n_e - 1.0) * in_e * vol * eib;
        dpelat[i] = per_step * (st_e + calls * b_e);
        dplvl[i] = k_level(x_s, sz, lv_id);
        dplvlr[i] = k_level(x_dp, sz, lv_id);
        /* ZeRO-3 per unit and micro-batch (zero for other stages) */
        const double z3 = z > 2.5 ? 1.0 : 0.0;
        fsag[i] = z3 * bp * fs_s * sib;
        /* ZeRO-3's per-unit gathers and reduce-scatters (and the HSDP all-reduce) by
         * NCCL's count as above */
        const double f_s = non > 0.5 ? lr_s : (n_s - 1.0) * sla;
        const double f_r = non > 0.5 ? la_r : 2.0 * (n_r - 1.0) * dla;
        const double f_e = non > 0.5 ? lr_e : (n_e - 1.0) * dla;
        fsagl[i] = z3 * (f_s + b_s);
        fsrs[i] = z3 * (bg * fs_s * sib + 2.0 * bg * in_s * fs_r * dib);
        fsrsl[i] = z3 * (f_s + f_r + (b_s + b_r));
        fsage[i] = z3 * bp * (n_e - 1.0) * in_e * eib;
        fsagel[i] = z3 * (f_e + b_e);
        fsrse[i] = z3 * bg * (n_e - 1.0) * in_e * eib;
        fsrsel[i] = z3 * (f_e + b_e);
        /* PP: per micro-batch each stage sends vpp activations forward and vpp gradients
         * backward (seq1F1B: each in pp_msgs messages, one per sequence chunk); every
         * micro-batch crosses every stage boundary, so the slowest boundary paces it.
         * A boundary is point-to-point: each device sends to its peer t*c*d devices on,
         * over its own link. Inside a node when the whole pipeline is (level 0), else the
         * slowest boundary joins two nodes, one member (one NIC) on each: the level that
         * joins two nodes (cost/README.md, "Pipeline boundaries"), not the level of the
         * whole pipeline, whose figures describe collectives over all its nodes */
        const double x_pp = t * c * d * ppn;
        const double x_p2p = x_pp > s0 ? 2.0 * s0 : x_pp;
        const double v_pp = T * hb * (scat > 0.5 ? it : 1.0);
        ppbytes[i] = pipe * 2.0 * vpp * v_pp;
        /* DeepSpeed's partitioned transfer (pp_tp_partitioned; cost/README.md, "Pipeline
         * boundaries"), at t > 1 only: per transfer pp_tp_msgs more messages at the
         * boundary's latency, pp_tp_host s of host synchronisation, and pp_tp_gathers
         * all-gathers of the whole activation (T h bytes) over the t TP devices: (t-1)/t of
         * it at the TP group's all-gather figure, and one collective's latency (NCCL: the
         * Simple base and t - 1 ring steps; else t - 1 steps at the level's latency). Off:
         * 0, so the sum below gains +0.0, the same bits as without it. */
        double pp_tp;
        {
            const double on = t > 1.5 ? 1.0 : 0.0;
            const double nd_g = prism_k_nccl_nodes(t, 1.0, is0);
            const double h_g = prism_k_nccl_node_hop(nd_g, lv_hs[0], 3.0);
            const double l_nc =
                nbs + prism_k_nccl_ring_lat(t, nd_g, 0.0, h_g, k_level(t, sz, lv_hs));
            const double l_g = non > 0.5 ? l_nc : (t - 1.0) * k_level(t, sz, lv_la);
            const double ib_g = k_nics(k_level(t, sz, lv_ag), nis, ag0);
            const double g_s = (t - 1.0) * it * T * hb * ib_g + l_g;
            pp_tp = on * (k_level(x_p2p, sz, lv_la) * ptm + pth + ptg * g_s);
        }
        pptime[i] =
            pipe * 2.0 * vpp *
            (v_pp * k_level(x_p2p, sz, lv_ib) + k_level(x_p2p, sz, lv_la) * pmsg + phost + pp_tp) *
            pexp;
        /* no boundary at pp = 1: 0, as every [pp>1] term (explain only; the per-level
         * bytes take ppbytes, already 0 there) */
        pplvl[i] = pipe * k_level(x_p2p, sz, lv_id);
        ppbuf[i] = pipe * 2.0 * v_pp;
        /* tied embeddings under a pipeline (cost/README.md, "Tied embeddings under a
         * pipeline"): once per step, after the last backward, the first and the last stage
         * all-reduce the gradients of the matrix they share (each device its 1/t vocabulary
         * shard, in the gradient reduce dtype): a group of two, 2(2-1)/2 = 1 of the bytes
         * and 2 ring steps, nothing beside it. The pair sits in one node when the whole
         * pipeline does, else on two nodes, one member (one NIC) on each. */
        const double x_tie = x_p2p;
        tie[i] =
            pipe * ton *
            (tpar * it * bg * k_level(x_tie, sz, lv_ib) + nbs + 2.0 * k_level(x_tie, sz, lv_da));
        /* dispatch send + receive buffers: the etp-gathered routed slots (all-to-all) or
         * the etp*e-gathered hidden states (all-gather) */
        epbuf[i] = 2.0 * T * it * (a2 * x * moe + ag * x_ep * hb);
    }
    /* FSDP under a pipeline without per-micro-batch sync (fsdp_pp_nosync): the stage's
     * parameters stay gathered and its gradients accumulate unsharded in the reduce dtype
     * until one reduce-scatter after the last backward; one gather per step, no gather in
     * backward (the DP bytes: bg + bp per parameter instead of m (bg + (1 + rsh) bp), the
     * HSDP all-reduce once). A pass of its own: the lane loop above stays vectorised. */
    if (nos > 0.5) {
        PRISM_KLOOP
        for (size_t i = 0; i < n; i++) {
            const double m = mm[i], w = zero[i] > 2.5 ? 1.0 : 0.0, wc = 1.0 - w;
            const double f = (bg + bp) / (m * (bg + (1.0 + rsh) * bp));
            pdiv[i] = pdiv[i] * wc + w;
            gdiv[i] = gdiv[i] * wc + w;
            pdive[i] = pdive[i] * wc + w;
            gdive[i] = gdive[i] * wc + w;
            dpbf[i] *= wc + w * f;
            dpebf[i] *= wc + w * f;
            dpbfr[i] *= wc + w / m;
            fsonce[i] = w / m;
        }
    }
    /* the share of the per-step DP bytes issued during backward (gradient reduction;
     * ZeRO-0 all of it, with the HSDP all-reduce; the rest is the parameter gather) and
     * the backward windows carrying it: the bucketed overlap and the overlap dims
     * (dp_overlap for that share, param_overlap for the rest) read it. @p dpo: some lane
     * of the tile has one of them off; where both are on the share multiplies 0 (any
     * finite value gives the same bits), so the pass is skipped */
    if (km->dp_bucket > 0.0 || ks->detail || dpo) {
        PRISM_KLOOP
        for (size_t i = 0; i < n; i++) {
            const double z = zero[i], m = mm[i];
            /* ZeRO-1 with zero1_grad_allreduce: 2 bg of the 2 bg + bp (zar 0: bg + 0 = bg) */
            const double gz = bg + zar * bg;
            const double vb = z < 0.5 ? 1.0 : z < 1.5 ? gz / (gz + bp) : m * bg / (m * bg + bp);
            const double num = dpbf[i] * vb + dpbfr[i], den = dpbf[i] + dpbfr[i];
            dpfb[i] = den > 0.0 ? num / (den > 0.0 ? den : 1.0) : 0.0;
            dpnw[i] = z > 1.5 ? m : 1.0;
        }
    }
}

/* One slot's per-layer terms. @p detail (a constant after inlining) adds the terms only
 * explain and the per-layer API read (static bytes per layer, the time split by pass);
 * the search's hot path skips their stores. Both versions share every expression. */
static PRISM_KINLINE void k_slot_body(const PrismKModel *km, const PrismKSlot *sl,
                                      const PrismKLanes *ln, size_t off, size_t n, double *ws,
                                      double *out, const int detail, const int dpw, const int cpm,
                                      const int epm, const int rcm)
{
    const PrismKKind *K = &km->kinds[sl->kind];
    /* @p rcm: the slot's recompute mode, a constant in the specialised bodies (-1: read
     * it from the slot) */
    const uint32_t mode = rcm < 0 ? sl->mode : (uint32_t)rcm;
    const double full = mode == PRISM_K_RC_FULL ? 1.0 : 0.0;
    /* backward working set: full recompute rematerialises the layer; with bwd_ws every
     * layer's gradients take one micro-batch of its activations while it runs backward */
    const double ws_on = full > 0.5 || km->bwd_ws > 0.5 ? 1.0 : 0.0;
    const double sel = mode == PRISM_K_RC_SELECTIVE ? 1.0 : 0.0;
    const double keep_score = mode == PRISM_K_RC_NONE ? 1.0 : 0.0;
    const double p_tp = K->p_tp, p_kv = K->p_kv, p_rep = K->p_rep, p_exp = K->p_exp;
    const double g = K->g, inv_g = K->inv_g;
    const double a_rep = K->a_rep, a_tp = K->a_tp, a_kv = K->a_kv, a_sc = K->a_score;
    const double a_full = K->a_full, a_ck = K->a_ckpt;
    const double f_tp = K->f_tp, f_kv = K->f_kv, f_rep = K->f_rep, f_core = K->f_core;
    const double f_exp = K->f_exp;
    const double e_rep = K->e_rep, e_tp = K->e_tp, e_sc = K->e_score, e_full = K->e_full;
    const double e_sc_b = K->e_score_b;
    /* softmax_fusion_rule: the unfused softmax's extra terms and its per-lane test */
    const double sm_on = km->sm_on * (K->sm_heads > 0.0 ? 1.0 : 0.0), sm_all = km->sm_all;
    const double sm_h = K->sm_heads, sm_ib = km->sm_inv_bpb;
    const double e_fb = K->e_sm_fb, e_fb_b = K->e_sm_fb_b, a_fb = K->a_sm_fb;
    const double sm_lf = km->sm_launch_f * K->is_layer, sm_lb = km->sm_launch_b * K->is_layer;
    const double *restrict mbl = ln->mbs + off;
    const double e_moe = K->e_moe, e_sort = K->e_sort, n_exp = K->n_exp;
    const double *restrict etpl = ln->etp + off;
    const double hbm = km->inv_hbm, opt_tr = km->opt_traffic, acc_tr = km->accum_traffic;
    const double coll_f = K->tp_coll_fwd, coll_fsp = K->tp_coll_fwd_sp;
    const double coll_b = K->tp_coll_bwd, tpb = K->tp_bytes, coll_ssp = K->tp_coll_sel_sp;
    const double cp_tp = K->cp_tp, cp_kv = K->cp_kv;
    const double cp_pass1 = K->cp_none > 0.5 ? 0.0 : K->is_layer;
    const double cbu = km->cp_bwd_units; /* backward ring step: K/V + dK/dV units */
    const double moe = K->is_moe, epb = K->ep_bytes;
    const double bp = km->bytes_param, bg = km->bytes_grad, bo = km->bytes_opt;
    const double bwd = km->bwd_ratio, bpm = km->bytes_param_mem, xrel = km->exp_param_mem_rel;
    const double tpx = km->tp_exposed, epx = km->ep_exposed, tlc = km->tp_layout_copy;
    const double tpxb = km->tp_exposed_b, nsh = km->nccl_share;
    const int tp_split = tpxb != tpx; /* userbuffers: backward exposure differs */
    const double *restrict tp = ln->tp + off, *restrict sp = ln->sp + off;
    const double *restrict tov = ln->tov + off;
    const double *inv_tp = WS(PRISM_KL_INV_TP), *rep = WS(PRISM_KL_REP);
    const double *tok = WS(PRISM_KL_TOKENS), *inv_ep = WS(PRISM_KL_INV_EP);
    const double *pdiv = WS(PRISM_KL_PDIV), *gdiv = WS(PRISM_KL_GDIV);
    const double *odiv = WS(PRISM_KL_ODIV), *pdive = WS(PRISM_KL_PDIV_E);
    const double *gdive = WS(PRISM_KL_GDIV_E), *odive = WS(PRISM_KL_ODIV_E);
    const double *tpa = WS(PRISM_KL_TP_A), *tplat = WS(PRISM_KL_TP_LAT);
    const double *tpbf = WS(PRISM_KL_TP_BF);
    const double *tpl128 = WS(PRISM_KL_TP_LAT_LL128), *tplll = WS(PRISM_KL_TP_LAT_LL);
    /* the host floor: launches of one layer (0 for the embedding and the head) */
    const double hf = km->host_fwd * K->is_layer, hb = km->host_bwd * K->is_layer;
    const double hl = km->host_launch * K->is_layer;
    const double hsy = km->host_sync * K->is_layer; /* layer_host_syncs: per forward */
    const double hsf = km->host_sp_fwd * K->is_layer, hsb = km->host_sp_bwd * K->is_layer;
    double *o_hg = out + (size_t)PRISM_KS_HOST_GAP * PRISM_K_TILE;
    const double *cplat = WS(PRISM_KL_CP_LAT), *cpbf = WS(PRISM_KL_CP_BF);
    const double *epa = WS(PRISM_KL_EP_A), *eplat = WS(PRISM_KL_EP_LAT);
    const double *epbf = WS(PRISM_KL_EP_BF);
    const double *epsy = WS(PRISM_KL_EP_SYNC);
    const double *restrict cp = ln->cp + off;
    const double *cpsa = WS(PRISM_KL_CP_STEP_A), *cpsl = WS(PRISM_KL_CP_STEP_LAT);
    const double *cpaa = WS(PRISM_KL_CP_A2A_A), *cplb = WS(PRISM_KL_CP_LB);
    const double *cpinv = WS(PRISM_KL_CP_INV), *fsonce = WS(PRISM_KL_FS_ONCE);
    const double *fsag = WS(PRISM_KL_FS_AG_A), *fsagl = WS(PRISM_KL_FS_AG_LAT);
    const double *fsrs = WS(PRISM_KL_FS_RS_A), *fsrsl = WS(PRISM_KL_FS_RS_LAT);
    const double *fsage = WS(PRISM_KL_FS_AGE_A), *fsagel = WS(PRISM_KL_FS_AGE_LAT);
    const double *fsrse = WS(PRISM_KL_FS_RSE_A), *fsrsel = WS(PRISM_KL_FS_RSE_LAT);
    const double cp_qo = K->cp_qo, cp_kvh = K->cp_kvh, heads = K->heads;
    const double uly_on = km->cp_ulysses, cp_ov = km->cp_ov, rsh = km->fsdp_reshard;
    /* all-to-all CP where heads allow: cp_algo, or a kind that has no other (Mamba-2) */
    const double uly_k = uly_on > 0.5 || K->cp_a2a > 0.5 ? 1.0 : 0.0;
    /* selective: what is kept (as_*) and what runs again (sel_*), per the policy */
    const double as_rep = K->as_rep, as_tp = K->as_tp, as_kv = K->as_kv, as_full = K->as_full;
    const double spg = km->sp_gathered, a_spg = K->a_spg, as_spg = K->as_spg;
    const double sel_core = K->sel_core, sel_g = K->sel_gemm, sel_e = K->sel_ew;
    const double sf_tp = K->sf_tp, sf_kv = K->sf_kv, w_tp = K->w_tp, se_tp = K->se_tp;
    const double sh_on = km->shared_overlap;
    const double rc_core = full > 0.5 || (sel > 0.5 && sel_core > 0.5) ? 1.0 : 0.0; /* core again */
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
    double *o_gf = out + (size_t)PRISM_KS_GEMM_FWD * PRISM_K_TILE;
    double *o_gd = out + (size_t)PRISM_KS_GEMM_DGRAD * PRISM_K_TILE;
    double *o_gw = out + (size_t)PRISM_KS_GEMM_WGRAD * PRISM_K_TILE;
    double *o_cf = out + (size_t)PRISM_KS_CORE_FWD * PRISM_K_TILE;
    double *o_cb = out + (size_t)PRISM_KS_CORE_BWD * PRISM_K_TILE;
    double *o_c8 = out + (size_t)PRISM_KS_FP8_CAST * PRISM_K_TILE;
    double *o_c8b = out + (size_t)PRISM_KS_FP8_CAST_BWD * PRISM_K_TILE;
    /* the kind's GEMMs through the shape model (kernels-gemm.h), from the evaluator's
     * table of the lane's (tp, cp, mbs, ep): M = tokens of the micro-batch the GEMM sees
     * (SP gathers them back), N and K after tp sharding; copied into the slot's arrays
     * below, before the lane loop */
    const int32_t *restrict goff = ln->goff + off;
    const double *restrict tb = ln->gtab + (size_t)sl->kind * PRISM_KG_COUNT;
    const double cfi = km->core_fwd_inv, cbi = km->core_bwd_inv;
    const double c_by_f = K->c_bytes_f, c_by_b = K->c_bytes_b;
    double *o_dfs = out + (size_t)PRISM_KS_DP_FS * PRISM_K_TILE;
    double *o_dtl = out + (size_t)PRISM_KS_DP_TAIL * PRISM_K_TILE;
    double *o_fw = out + (size_t)PRISM_KS_CF * PRISM_K_TILE;
    double *o_fag = out + (size_t)PRISM_KS_FS_AG * PRISM_K_TILE;
    double *o_frs = out + (size_t)PRISM_KS_FS_RS * PRISM_K_TILE;
    double *o_cim = out + (size_t)PRISM_KS_CP_IMB * PRISM_K_TILE;
    double *o_culy = out + (size_t)PRISM_KS_CP_ULY * PRISM_K_TILE;
    /* the kind's GEMM times, copied out of the table (plain copy loops: the body then
     * reads them as arrays instead of gathering per lane); without FP8 casts (every entry
     * +0) the body selects 0.0 over the cast arrays, which only explain reads */
    const double has_cast = km->has_cast;
    for (size_t i = 0; i < n; i++) {
        const double *restrict e = tb + goff[i];
        o_gf[i] = e[PRISM_KG_FWD];
        o_gd[i] = e[PRISM_KG_DGRAD];
        o_gw[i] = e[PRISM_KG_WGRAD];
    }
    if (has_cast > 0.5 || detail) {
        for (size_t i = 0; i < n; i++) {
            const double *restrict e = tb + goff[i];
            o_c8[i] = e[PRISM_KG_CAST];
            o_c8b[i] = e[PRISM_KG_CAST_BWD];
        }
    }
    PRISM_KLOOP
    for (size_t i = 0; i < n; i++) {
        const double it = inv_tp[i], r = rep[i], T = tok[i];
        const double kvs = tp[i] <= g ? it : inv_g;
        /* static: parameters per device, then ZeRO divisors */
        const double ne = p_tp * it + p_kv * kvs + p_rep;
        const double ex = p_exp * inv_ep[i];
        o_ne[i] = ne;
        o_ex[i] = ex;
        if (detail) {
            o_par[i] = bpm * (ne * pdiv[i] + ex * pdive[i] * xrel);
            /* with DDP's bucket copy (ddp_grad_copy), as k_comp sums it */
            const double ddp_on =
                ln->zero[off + i] < 0.5 && ln->dp[off + i] * cp[i] > 1.5 ? km->ddp_copy : 0.0;
            o_grd[i] = (bg + ddp_on) * (ne * gdiv[i] + ex * gdive[i]);
            o_opt[i] = bo * (ne * odiv[i] + ex * odive[i]);
            o_ost[i] = (ne * odiv[i] + ex * odive[i]) * opt_tr * hbm;
        }
        o_gat[i] = bp * (ne + ex);
        /* activations per micro-batch (Korthikanti et al. 2022, generalised) */
        /* sp_saves_gathered: the column-parallel inputs are kept whole, not 1/t (r = 1
         * without SP: no change) */
        const double g_sp = spg * (1.0 - r);
        const double a_body = T * (a_rep * r + a_tp * it + a_kv * kvs + a_full + g_sp * a_spg);
        /* softmax_fusion_rule (cost/README.md, "The unfused softmax"): Megatron's fused
         * kernel needs mbs x heads/tp attention batches a multiple of 4 (exact: heads/t
         * rounded to a whole number via 2^52, then a power-of-two scale); 1 = unfused */
        double sm_fb = 0.0;
        if (sm_on > 0.5) {
            const double xh = sm_h * it;
            const double nh = (xh + 4503599627370496.0) - 4503599627370496.0;
            const double q = mbl[i] * nh * sm_ib;
            const double qr = (q + 4503599627370496.0) - 4503599627370496.0;
            sm_fb = sm_all > 0.5 || q != qr ? 1.0 : 0.0;
        }
        const double a_score = T * a_sc * it + sm_fb * (T * a_fb * it);
        const double a_keep = T * a_ck * r;
        const double a_sel = T * (as_rep * r + as_tp * it + as_kv * kvs + as_full + g_sp * as_spg);
        /* one select: sel and keep_score are 0/1 (a nested select stops the vectoriser) */
        o_act[i] = full > 0.5 ? a_keep : (a_sel * sel + a_body * keep_score) + keep_score * a_score;
        o_xtr[i] = ws_on * (a_body + a_score - a_keep + T * w_tp * it);
        /* compute: forward FLOPs per device at the GEMM rate plus memory-bound kernels at
         * the HBM rate; backward = bwd_ratio x forward (both) */
        const double fl = T * (f_tp * it + f_kv * kvs + f_rep + f_core * it + f_exp * it);
        const double rc =
            full > 0.5 ? fl
                       : sel * T * f_core * it * sel_core + sel * T * (sf_tp * it + sf_kv * kvs);
        const double ew_sc = T * e_sc * it * hbm + sm_fb * (T * e_fb * it * hbm);
        /* MoE dispatch traffic: permute/unpermute on the layer's T*r tokens, chunk sort and
         * unsort on the etp-gathered received rows when a device holds > 1 expert */
        double ew_rt = e_rep * r + e_tp * it + e_full;
        if (epm) { /* (a kind without routed experts adds exactly +0 here) */
            const double sort_on = n_exp * inv_ep[i] * etpl[i] > 1.5 ? etpl[i] : 0.0; /* E/ep */
            ew_rt = ew_rt + (e_moe + e_sort * sort_on) * r;
        }
        const double ew_body = T * ew_rt * hbm;
        const double ew = ew_body + ew_sc;
        /* backward: bwd_ratio x the forward's traffic, but the scores' own count (softmax
         * and dropout backward; +0 with flash attention, which keeps the bits) */
        const double ew_b = ew_body * bwd + T * e_sc_b * it * hbm + sm_fb * (T * e_fb_b * it * hbm);
        /* attention core at its own achieved fractions (flash attention: the FA2/FA3
         * figures of the device; without flash: batched GEMMs at the large-GEMM rate) */
        const double core = T * f_core * it;
        /* without flash attention the batched GEMMs stream the scores through HBM: the
         * slower of their FLOPs and those bytes (+0 bytes with flash: the FLOPs) */
        const double c_fc = core * cfi, c_bc = core * bwd * cbi;
        const double c_fm = T * c_by_f * it * hbm, c_bm = T * c_by_b * it * hbm;
        const double c_f = c_fm > c_fc ? c_fm : c_fc, c_b = c_bm > c_bc ? c_bm : c_bc;
        const double g_f = o_gf[i], g_d = o_gd[i];
        const double g_w = o_gw[i], g_c8 = has_cast > 0.5 ? o_c8[i] : 0.0;
        const double g_c8b = has_cast > 0.5 ? o_c8b[i] : 0.0;
        if (detail) {
            o_cf[i] = c_f;
            o_cb[i] = c_b;
        }
        /* FP8 casts: the forward's inputs and weights, the backward's output gradients */
        const double cf_s = g_f + c_f + ew + g_c8; /* one forward */
        const double cb_s = g_d + g_w + c_b + ew_b + g_c8b;
        /* gradient accumulation: every micro-batch reads and writes the device's gradient
         * buffer once per parameter (weight-gradient pass) */
        const double acc = (ne + ex) * acc_tr * hbm;
        if (detail) {
            o_ew[i] = ew + ew_b;
            o_acc[i] = acc;
        }
        o_cmp[i] = cf_s + cb_s + acc;
        const double rc_t = full > 0.5 ? cf_s
                                       : sel * ((c_f + ew_sc) * sel_core + sel_g * g_f +
                                                sel_e * (ew - ew_sc) + T * se_tp * it * hbm);
        o_rc[i] = rc_t;
        o_wg[i] = g_w + acc;
        o_fl[i] = fl * (1.0 + bwd) + rc;
        /* TP: all-reduce-equivalent collectives; full recompute repeats the forward */
        const double cf = coll_f + coll_fsp * sp[i];
        const double c_rs = sel * coll_ssp * sp[i]; /* selective recompute's collectives */
        const double v_tp = T * tpb;
        /* tp_layout_copy: with SP each collective also copies its full tensor through
         * HBM (not hidden by tp_overlap); 0 without TP */
        const double tp_on = it < 0.75 ? 1.0 : 0.0;
        /* tp_overlap = 0 (strategy.h R12): nothing hidden */
        const double tpx_l = tov[i] > 0.5 ? tpx : 1.0;
        const double tp_raw = prism_k_nccl_ring(km, v_tp * tpa[i], tplat[i], tpl128[i], tplll[i]);
        const double tp_lc = tlc * tp_on * sp[i] * v_tp * hbm;
        const double tp_one = tp_raw * tpx_l + tp_lc;
        o_tp[i] = (cf * (1.0 + full) + c_rs + coll_b) * tp_one;
        /* userbuffers: the backward collectives at their own exposure */
        const double tp_one_b = tp_split ? tp_raw * (tov[i] > 0.5 ? tpxb : 1.0) + tp_lc : tp_one;
        if (tp_split)
            o_tp[i] = (cf * (1.0 + full) + c_rs) * tp_one + coll_b * tp_one_b;
        o_tpb[i] = (cf * (1.0 + full) + c_rs + coll_b) * v_tp * tpbf[i];
        /* CP (cost/README.md, "Context parallelism"). Ring: c - 1 steps per pass; step
         * k's exchange of the next K/V chunk overlaps the attention core of chunk k, so
         * each step exposes max(0, comm - cp_overlap x core/c); backward moves K/V and
         * their gradients (2x) against bwd_ratio x the core; recompute (full, or the
         * selective core) runs the forward ring again. The slowest rank's core is
         * cp_lb x the mean (1 with zig-zag chunks); the excess is exposed time.
         * All-to-all (Ulysses, where heads/t divide by c): Q, K, V in and the output out
         * per forward, the same in backward, nothing to overlap with. */
        double cp_f = 0.0, cp_b = 0.0, im1 = 0.0, imb_b = 0.0, imb = 0.0, uly = 0.0;
        if (cpm) {
            const double c = cp[i], ic = cpinv[i];
            /* one forward / backward core at the attention core's own rate */
            const double core_f = c_f * cp_pass1, core_b = c_b * cp_pass1;
            if (cpm > 1) {
                /* heads/(t c) a whole number >= 1 (rounded via 2^52; 1e-9 absorbs the
                 * rounding of 1/t and 1/c) */
                const double xh = heads * it * ic;
                const double xr = (xh + 4503599627370496.0) - 4503599627370496.0;
                const double dx = xh - xr;
                uly = uly_k > 0.5 && c > 1.5 && xr >= 1.0 && dx < 1e-9 && dx > -1e-9 ? 1.0 : 0.0;
            }
            const double lb = uly > 0.5 ? 1.0 : cplb[i];
            const double v_cp = T * (cp_tp * it + cp_kv * kvs);
            const double step_f = v_cp * cpsa[i] + cpsl[i];
            const double step_b = cbu * (v_cp * cpsa[i]) + 2.0 * cpsl[i];
            const double cs_f = cp_ov * lb * core_f * ic, cs_b = cp_ov * lb * core_b * ic;
            const double ring_f = (c - 1.0) * (step_f > cs_f ? step_f - cs_f : 0.0);
            const double ring_b = (c - 1.0) * (step_b > cs_b ? step_b - cs_b : 0.0);
            im1 = (lb - 1.0) * core_f; /* per forward core pass */
            imb_b = (lb - 1.0) * core_b;
            imb = im1 * (1.0 + rc_core) + imb_b;
            cp_f = cp_pass1 * ring_f;
            cp_b = cp_pass1 * ring_b;
            double cpbytes = (1.0 + cbu + rc_core) * v_cp * cpbf[i];
            if (cpm > 1) {
                const double gt_kv = g * kvs; /* KV heads per TP rank */
                const double v_a2a =
                    T * (cp_qo * it + cp_tp * it + (gt_kv < c ? c * cp_kvh : cp_kv * kvs));
                const double a2a = cp_pass1 * (v_a2a * cpaa[i] + cplat[i]);
                cp_f = uly > 0.5 ? a2a : cp_f;
                cp_b = uly > 0.5 ? a2a : cp_b;
                cpbytes = uly > 0.5 ? (2.0 + rc_core) * v_a2a * (c - 1.0) * ic : cpbytes;
            }
            o_cp[i] = cp_f * (1.0 + rc_core) + cp_b + imb;
            o_cpb[i] = cp_pass1 * cpbytes;
        } else { /* no lane of the tile has cp > 1: every CP term is exactly 0 */
            o_cp[i] = 0.0;
            o_cpb[i] = 0.0;
        }
        /* EP: dispatch + combine all-to-all in forward, two more in backward; with
         * shared_expert_overlap the shared experts' GEMMs of a pass run beside its two
         * all-to-alls and hide up to their own time (0 when off: the same bits) */
        /* @p epm 0 (no routed experts: moe = 0, every EP term is +0) and 1 (shared
         * overlap off: sh_on = 0, nothing hidden) take the values the full path gives */
        double ep_one = 0.0, ep2 = 0.0, hid_f = 0.0, hid_b = 0.0, sy = 0.0;
        if (epm) {
            const double v_ep = T * epb;
            ep_one = moe * (v_ep * epa[i] + eplat[i]) * epx;
            ep2 = 2.0 * ep_one;
            if (epm > 1) {
                const double sh_f = sh_on * tb[goff[i] + PRISM_KG_SHARED_FWD];
                const double sh_b = sh_on * tb[goff[i] + PRISM_KG_SHARED_BWD];
                hid_f = ep2 < sh_f ? ep2 : sh_f;
                hid_b = ep2 < sh_b ? ep2 : sh_b;
            }
            /* moe_count_sync: the count exchange, forward (again under full recompute) */
            sy = moe * epsy[i];
            o_ep[i] =
                (4.0 + 2.0 * full) * ep_one - ((1.0 + full) * hid_f + hid_b) + (1.0 + full) * sy;
            o_epb[i] = (4.0 + 2.0 * full) * moe * v_ep * epbf[i];
        } else {
            o_ep[i] = 0.0;
            o_epb[i] = 0.0;
        }
        /* the host floor (cost/README.md, "Latency-bound work"): a layer's micro-batch
         * takes at least the host's time to launch its kernels, forward (again under full
         * recompute) and backward; the device time beyond it is its compute and exposed
         * communication. The host queues ahead of the device, so the pass ends at the
         * latest of: the device's own time, the host's, and a host-bound forward followed
         * by the device's backward (the device idles in the forward; its queue only fills
         * again in the backward): gap = max(0, host - dev, host_f - dev_f). The gap (+0
         * when the device is slower in both passes) is charged as compute */
        {
            /* and the TP collectives, one launch each (NCCL's channels are blocks of one
             * kernel), only at tp > 1 (Megatron's mappings return their input at world
             * size 1); with SP each all-reduce-equivalent is a reduce-scatter and an
             * all-gather: two launches */
            const double tpl = tp_on * (1.0 + sp[i]) * hl;
            /* the framework's own launches besides them under SP at tp > 1
             * (layer_kernels_sp_fwd/bwd: nanotron's per-shard GEMMs, its re-gathers) */
            const double tsp = tp_on * sp[i];
            const double hf_l = hf + cf * tpl + tsp * hsf + sm_fb * sm_lf;
            const double hb_l = hb + coll_b * tpl + tsp * hsb + sm_fb * sm_lb;
            /* moe_count_sync's wait (sy) holds the host as well as the device: on both */
            const double host = hf_l * (1.0 + full) + hb_l + (1.0 + full) * sy;
            const double dev = o_cmp[i] + rc_t + o_tp[i] + o_cp[i] + o_ep[i];
            const double dev_f = cf_s + cf * tp_one + cp_f + (ep2 - hid_f) + sy + im1;
            const double host_f = hf_l + sy;
            const double gap_all = host > dev ? host - dev : 0.0;
            const double gap_f = host_f > dev_f ? host_f - dev_f : 0.0;
            /* host synchronisations in the forward (layer_host_syncs): each drains the
             * queue, and the device waits for the sync and the next launch (+0 without) */
            const double gap = (gap_f > gap_all ? gap_f : gap_all) + hsy * (1.0 + full);
            o_cmp[i] = o_cmp[i] + gap;
            o_hg[i] = gap;
        }
        /* ZeRO-3 / FSDP per unit (one layer; cost/README.md): the all-gather of the next
         * unit overlaps this unit's forward, the backward's gather (when resharded) and
         * reduce-scatter overlap its backward (with recompute); a unit exposes
         * max(0, comm - compute) and, if it leads its stage, min(comm, compute) more
         * (the first gather / last reduce that nothing hides) */
        if (dpw) { /* else no lane is ZeRO-3 and no bucket window is needed: all 0 */
            const double fwd_comm = cf * tp_one + cp_f + (ep2 - hid_f) + sy + im1;
            const double bwd_comm = coll_b * tp_one_b + cp_b + (ep2 - hid_b) + imb_b;
            const double rc_comm =
                full * (cf * tp_one + (ep2 - hid_f) + sy) + c_rs * tp_one + rc_core * (cp_f + im1);
            const double w_f = cf_s + fwd_comm;
            const double w_b = cb_s + acc + bwd_comm + rc_t + rc_comm;
            double ag = ne * fsag[i] + fsagl[i], rs = ne * fsrs[i] + fsrsl[i];
            if (epm) {
                ag = ag + moe * (ex * fsage[i] + fsagel[i]);
                rs = rs + moe * (ex * fsrse[i] + fsrsel[i]);
            }
            const double cb = rsh * ag + rs;
            /* fsdp_pp_nosync under a pipeline (fsdp_once = 1/m): one gather per step,
             * hidden as before, none in backward, and the reduce-scatter of the
             * accumulated gradients after the last backward with nothing to hide it; per
             * micro-batch that is 1/m of it */
            const double f1 = fsonce[i], once = f1 > 0.0 ? 1.0 : 0.0;
            const double ag_x = ag > w_f ? ag - w_f : 0.0, ag_h = ag < w_f ? ag : w_f;
            const double e_pm = ag_x + (cb > w_b ? cb - w_b : 0.0);
            const double l_pm = ag_h + (cb < w_b ? cb : w_b);
            /* the hidden gathers / reduce-scatters slow the compute beside them by NCCL's
             * SMs (nsh = nccl_share; the leading unit's tail counted too: an upper bound) */
            o_dfs[i] = once * f1 * (ag_x + rs + ag_h * nsh) + (1.0 - once) * (e_pm + l_pm * nsh);
            o_dtl[i] = once * f1 * ag_h + (1.0 - once) * l_pm;
            if (dpw > 1) /* the bucketed DP overlap's forward window */
                o_fw[i] = w_f;
            /* the same time split by pass (detail implies dpw) */
            if (detail) {
                o_fwd[i] = w_f;
                o_bwd[i] = cb_s + acc + bwd_comm;
                o_rct[i] = rc_t + rc_comm;
                o_fag[i] = ag;
                o_frs[i] = cb;
                o_cim[i] = imb;
                o_culy[i] = uly;
            }
        }
    }
}

/* @p dpw: 1 some lane is ZeRO-3; 2 also the bucketed DP overlap's forward window (always
 * with detail); @p cpm: 0 no lane has cp > 1, 1 ring only, 2 ring or all-to-all
 * (cp_algo = 1). The body is specialised on these, on the kind's routed experts (epm) and
 * on the slot's recompute mode (a constant: the unused branches of its selects are not
 * computed). Each flag only skips work whose result is exactly 0 (or unused) for the
 * lanes of the tile, so every ISA and every specialisation give the same bits (the
 * general body, which computes everything, gives them too). */
static void k_slot(const PrismKModel *km, const PrismKSegment *ks, const PrismKSlot *sl,
                   const PrismKLanes *ln, size_t off, size_t n, double *ws, double *out, int dpw,
                   int cpm)
{
    /* the kind's routed experts: 0 none, 1 without the shared-expert overlap, 2 with it;
     * the embedding and the head have no attention core: their CP terms are +0 (cp_pass1 = 0
     * multiplies every one), as the cpm = 0 path writes */
    const PrismKKind *kk = &km->kinds[sl->kind];
    const int epm = kk->is_moe > 0.5 ? (km->shared_overlap > 0.5 ? 2 : 1) : 0;
    if (kk->is_layer < 0.5 || kk->cp_none > 0.5)
        cpm = 0;
    else if (kk->cp_a2a > 0.5 && cpm == 1) /* a kind whose CP is always all-to-all */
        cpm = 2;
#define K_SLOT_CASE(D, C, E, R)                                                                    \
    case (D)*18 + (C)*9 + (E)*3 + (R):                                                             \
        k_slot_body(km, sl, ln, off, n, ws, out, 0, D, C, E, R);                                   \
        break;
#define K_SLOT_MODES(D, C, E)                                                                      \
    K_SLOT_CASE(D, C, E, 0) K_SLOT_CASE(D, C, E, 1) K_SLOT_CASE(D, C, E, 2)
    /* Specialised bodies for the common flags (ZeRO-3 lanes or none, a ring or no CP, no
     * shared-expert overlap) and each recompute mode; the rare ones (explain, the bucket
     * window, activation offload, all-to-all CP, the shared-expert overlap) run the general
     * body, which computes every term (the flags only skip exact zeros; k_lanes fills every
     * lane term whatever the flags) */
    if (ks->detail) {
        k_slot_body(km, sl, ln, off, n, ws, out, 1, 2, 2, 2, -1);
    } else if (dpw > 1 || cpm > 1 || epm > 1 || sl->mode > PRISM_K_RC_FULL) {
        k_slot_body(km, sl, ln, off, n, ws, out, 0, 2, 2, 2, -1);
    } else {
        switch (dpw * 18 + cpm * 9 + epm * 3 + (int)sl->mode) {
            K_SLOT_MODES(0, 0, 0)
            K_SLOT_MODES(0, 0, 1)
            K_SLOT_MODES(0, 1, 0)
            K_SLOT_MODES(0, 1, 1)
            K_SLOT_MODES(1, 0, 0)
            K_SLOT_MODES(1, 0, 1)
            K_SLOT_MODES(1, 1, 0)
            K_SLOT_MODES(1, 1, 1)
        default:
            break;
        }
    }
#undef K_SLOT_MODES
#undef K_SLOT_CASE
    /* mb_host_syncs: the stages that load a micro-batch wait on its host synchronisations
     * (each drains the queue), once per micro-batch: the embedding's stage, and the
     * head's when pp > 1 (+0 elsewhere, and without the knob: the same bits) */
    const double mbh = km->mb_host * (kk->loads_first + kk->loads_last * ks->pipelined);
    if (mbh > 0.0) {
        double *o_cmp = out + (size_t)PRISM_KS_COMPUTE * PRISM_K_TILE;
        double *o_hg = out + (size_t)PRISM_KS_HOST_GAP * PRISM_K_TILE;
        PRISM_KLOOP
        for (size_t i = 0; i < n; i++) {
            o_cmp[i] = o_cmp[i] + mbh;
            o_hg[i] = o_hg[i] + mbh;
        }
    }
    if (ks->off_act > 0.5) {
        /* activation offload (cost/README.md, "Offloading"): the layer's kept activations
         * go to the host after its forward and come back before its backward, one
         * transfer each way over the host link; the forward copy overlaps the layer's
         * forward window (KS_CF: compute + exposed forward comm; the caller runs the
         * dpw = 2 body for such segments), the prefetch the rest of the layer's time
         * (backward, recompute, their exposed comm); each exposes max(0, transfer - it) */
        const double il = km->inv_host_link;
        const double *a = out + (size_t)PRISM_KS_ACT * PRISM_K_TILE;
        const double *cmp = out + (size_t)PRISM_KS_COMPUTE * PRISM_K_TILE;
        const double *rc = out + (size_t)PRISM_KS_RECOMP * PRISM_K_TILE;
        const double *tpc = out + (size_t)PRISM_KS_TP * PRISM_K_TILE;
        const double *cpc = out + (size_t)PRISM_KS_CP * PRISM_K_TILE;
        const double *epc = out + (size_t)PRISM_KS_EP * PRISM_K_TILE;
        const double *fwin = out + (size_t)PRISM_KS_CF * PRISM_K_TILE;
        double *o_ox = out + (size_t)PRISM_KS_OFFX * PRISM_K_TILE;
        PRISM_KLOOP
        for (size_t i = 0; i < n; i++) {
            const double tx = a[i] * il, fw = fwin[i];
            const double bw = cmp[i] + rc[i] + tpc[i] + cpc[i] + epc[i] - fw;
            o_ox[i] = (tx > fw ? tx - fw : 0.0) + (tx > bw ? tx - bw : 0.0);
        }
    } else if (ks->detail) { /* explain prints every term */
        double *o_ox = out + (size_t)PRISM_KS_OFFX * PRISM_K_TILE;
        for (size_t i = 0; i < n; i++)
            o_ox[i] = 0.0;
    }
}

/* The per-stage sums: first slot of a composition writes, later slots add (one fused
 * pass over the lanes per slot, every summed term at once). */
static void k_comp_sum(double *cw, const double *sw, double cnt, int first, size_t n, int lean)
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
            c_gat[i] = s_gat[i];
        }
    } else {
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
            c_gat[i] = s_gat[i] > c_gat[i] ? s_gat[i] : c_gat[i];
        }
    }
    if (lean) /* the FLOPs and the bytes per level are report columns (PrismKLanes.lean) */
        return;
    if (first) {
        PRISM_KLOOP
        for (size_t i = 0; i < n; i++) {
            c_fl[i] = cnt * s_fl[i];
            c_tpb[i] = cnt * s_tpb[i];
            c_cpb[i] = cnt * s_cpb[i];
            c_epb[i] = cnt * s_epb[i];
        }
    } else {
        PRISM_KLOOP
        for (size_t i = 0; i < n; i++) {
            c_fl[i] += cnt * s_fl[i];
            c_tpb[i] += cnt * s_tpb[i];
            c_cpb[i] += cnt * s_cpb[i];
            c_epb[i] += cnt * s_epb[i];
        }
    }
}

/* The same for the ZeRO-3 / bucket-window terms (only when some lane needs them). */
static void k_comp_sum_dp(double *cw, const double *sw, double cnt, int first, size_t n,
                          int with_cf)
{
    double *c_dfs = cw + (size_t)PRISM_KC_DP_FS * PRISM_K_TILE;
    double *c_dtl = cw + (size_t)PRISM_KC_DP_TAIL * PRISM_K_TILE;
    double *c_cf = cw + (size_t)PRISM_KC_CF * PRISM_K_TILE;
    const double *s_dfs = sw + (size_t)PRISM_KS_DP_FS * PRISM_K_TILE;
    const double *s_dtl = sw + (size_t)PRISM_KS_DP_TAIL * PRISM_K_TILE;
    const double *s_cf = sw + (size_t)PRISM_KS_CF * PRISM_K_TILE;
    if (first) {
        PRISM_KLOOP
        for (size_t i = 0; i < n; i++) {
            c_dfs[i] = cnt * s_dfs[i];
            c_dtl[i] = s_dtl[i];
        }
    } else {
        PRISM_KLOOP
        for (size_t i = 0; i < n; i++) {
            c_dfs[i] += cnt * s_dfs[i];
            c_dtl[i] = s_dtl[i] > c_dtl[i] ? s_dtl[i] : c_dtl[i];
        }
    }
    if (!with_cf)
        return;
    if (first) {
        PRISM_KLOOP
        for (size_t i = 0; i < n; i++)
            c_cf[i] = cnt * s_cf[i];
    } else {
        PRISM_KLOOP
        for (size_t i = 0; i < n; i++)
            c_cf[i] += cnt * s_cf[i];
    }
}

static void k_comp(const PrismKModel *km, const PrismKSegment *ks, uint32_t c,
                   const PrismKLanes *ln, size_t off, size_t n, double *ws, int dpw)
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
        k_comp_sum(cw, slot0 + s * PRISM_KS_COUNT * PRISM_K_TILE, cnt, first, n, (int)ln->lean);
        if (dpw)
            k_comp_sum_dp(cw, slot0 + s * PRISM_KS_COUNT * PRISM_K_TILE, cnt, first, n, dpw > 1);
        first = 0;
    }
    if (!dpw) {
        double *z0 = CW(PRISM_KC_DP_FS), *z1 = CW(PRISM_KC_DP_TAIL);
        for (size_t i = 0; i < n; i++) {
            z0[i] = 0.0;
            z1[i] = 0.0;
        }
    }
    if (dpw < 2) { /* the forward window is read only by the bucketed overlap */
        double *z2 = CW(PRISM_KC_CF);
        for (size_t i = 0; i < n; i++)
            z2[i] = 0.0;
    }
    const double moe = ks->comp_moe[c], bw = ks->bub_w, hid = ks->hide, msh = ks->m_share;
    const double sth = ks->comp_step_host ? ks->comp_step_host[c] : 0.0;
    const double pre = km->zero3_prefetch, rt = km->runtime_bytes, dpx = km->dp_exposed;
    const double rsh = km->fsdp_reshard, bucket = km->dp_bucket, nsh = km->nccl_share;
    const double nos = km->fsdp_pp_nosync * ks->pipelined;
    const double bkt_on = bucket > 0.0 ? 1.0 : 0.0;
    /* zero_sync_exposed: with ZeRO >= 1 nothing of the DP time is hidden (as both overlap
     * dims off) */
    const double zex = km->zero_exposed;
    const double *dfs = CW(PRISM_KC_DP_FS), *dtl = CW(PRISM_KC_DP_TAIL), *cfw = CW(PRISM_KC_CF);
    const double *dpbfr = WS(PRISM_KL_DP_BF_R), *dplvlr = WS(PRISM_KL_DP_LVL_R);
    const double *dpfb = WS(PRISM_KL_DP_FB), *dpnw = WS(PRISM_KL_DP_NW);
    const double *restrict mm = ln->m + off, *restrict zero = ln->zero + off;
    const double *restrict tov = ln->tov + off, *restrict dov = ln->dov + off;
    const double *restrict pov = ln->pov + off, *restrict spl = ln->sp + off;
    const double *itp = WS(PRISM_KL_INV_TP), *tokl = WS(PRISM_KL_TOKENS);
    const double ubb = km->ub_bytes;
    const double gbb = km->gb_bytes;
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
    const double bp = km->bytes_param_mem, bg = km->bytes_grad, bo = km->bytes_opt;
    const double ddp = km->ddp_copy;
    const double *restrict gdp = ln->dp + off, *restrict gcp = ln->cp + off;
    const double xrel = km->exp_param_mem_rel;
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
        /* static bytes: the ZeRO shares are per strategy, so sum parameters first */
        par[i] = bp * (ne[i] * pdiv[i] + ex[i] * pdive[i] * xrel);
        /* the held gradients and DDP's bucket copy of them (ddp_grad_copy, with ZeRO-0 over
         * more than one replica): ddp = 0 leaves bg, the same bits */
        const double ddp_on = zero[i] < 0.5 && gdp[i] * gcp[i] > 1.5 ? ddp : 0.0;
        grd[i] = (bg + ddp_on) * (ne[i] * gdiv[i] + ex[i] * gdive[i]);
        opt[i] = bo * (ne[i] * odiv[i] + ex[i] * odive[i]);
        /* + step_layer_syncs' host synchronisations (+0 without: the same bits) */
        ost[i] = (ne[i] * odiv[i] + ex[i] * odive[i]) * opt_tr * hbm + sth;
        /* ZeRO-3 buffers: the gathered current + prefetched units (resharded; otherwise
         * every gathered unit is in params), the unit's unsharded gradients and its
         * reduce-scatter input in the reduce dtype */
        const double z3 = zero[i] > 2.5 ? 1.0 : 0.0;
        /* (fsdp_pp_nosync: the stage stays gathered in params and its gradients
         * accumulate in grads: no unit buffers) */
        /* TP overlap on (tp > 1, SP): the userbuffers, tp_overlap_buffers full-sequence
         * tensors of the micro-batch (0 when the knob is 0: the same bits) */
        const double ub = tov[i] > 0.5 && itp[i] < 0.75 && spl[i] > 0.5 ? ubb * tokl[i] : 0.0;
        buf[i] = ppbuf[i] + moe * epbuf[i] +
                 z3 * (1.0 - nos) * (rsh * pre + 1.0 + bg / bp) * gat[i] + rt + ub;
        /* persistent TP gather buffers (tp > 1, SP; 0 when the knob is 0: the same bits) */
        buf[i] += itp[i] < 0.75 && spl[i] > 0.5 ? gbb * tokl[i] : 0.0;
        /* DualPipe(V): one micro-batch's EP all-to-all runs under the other micro-batch's
         * compute (overlapped forward & backward), hidden up to that compute; the stage's
         * EP term keeps the exposed rest (hid = 0: the same bits) */
        const double cr = cmp[i] + rc[i];
        const double ex_ep = ept[i] - hid * (ept[i] < cr ? ept[i] : cr);
        ept[i] = ex_ep;
        const double tt = cmp[i] + rc[i] + tpt[i] + cpt[i] + ex_ep + pptime[i] + dfs[i] + dtl[i];
        tim[i] = tt;
        /* zero-bubble schedules fill the bubble with W passes (bub_w W per unit: ZB-H1 2,
         * ZB-V and DualPipe(V) 3), never below zero (a W pass longer than the rest, e.g.
         * gradient accumulation on few tokens) */
        const double u = tt - bw * wg[i];
        unit[i] = u > 0.0 ? u : 0.0;
        /* the overlap dims: dp_overlap hides the gradient share fb of the DP time,
         * param_overlap the parameter gather (both on: dpx exactly, the same bits) */
        const double zxs = zex > 0.5 && zero[i] > 0.5 ? 1.0 : 0.0; /* zero_sync_exposed */
        const double dxg = dov[i] > 0.5 && zxs < 0.5 ? dpx : 1.0;
        const double dxp = pov[i] > 0.5 && zxs < 0.5 ? dpx : 1.0;
        const double dxe = dxp + (dxg - dxp) * dpfb[i];
        const double dcs = ne[i] * dpa[i] + dplat[i] + moe * (ex[i] * dpea[i] + dpelat[i]);
        /* the hidden share slows the compute beside it by NCCL's SMs (nsh = nccl_share) */
        dpt[i] = dcs * dxe + dcs * (1.0 - dxe) * nsh;
    }
    /* the bytes per network level: report columns (skipped when lean). Levels 2 and 3
     * exist only on clusters of more than two levels (lvl_size[1], lvl_size[2] finite);
     * on the others no group reaches them and their bytes are exactly +0. There are four
     * columns: the last (level 3) holds the bytes of level 3 and of every level outside it */
#define K_LEVEL_BYTES(L)                                                                           \
    (m * ((lt == (L) ? tpb[i] : 0.0) + (lc == (L) ? cpb[i] : 0.0) + (le == (L) ? epb[i] : 0.0) +   \
          (lp == (L) ? ppbytes[i] : 0.0)) +                                                        \
     (ld == (L) ? dpbytes : 0.0) + (lr == (L) ? dpbytes_r : 0.0))
    for (int hi = 0; !ln->lean && hi < 2; hi++) {
        double *bx = hi ? b2 : b0, *by = hi ? b3 : b1;
        const double lx = hi ? 2.0 : 0.0, ly = lx + 1.0;
        const int has_x = !hi || 1.0 / km->lvl_size[1] > 0.0;
        const int has_y = !hi || 1.0 / km->lvl_size[2] > 0.0;
        if (!has_x) {
            for (size_t i = 0; i < n; i++) {
                bx[i] = 0.0;
                by[i] = 0.0;
            }
            continue;
        }
        PRISM_KLOOP
        for (size_t i = 0; i < n; i++) {
            const double m = mm[i] * msh;
            const double dpbytes = ne[i] * dpbf[i];
            const double dpbytes_r = ne[i] * dpbfr[i] + moe * ex[i] * dpebf[i];
            const double lt = k_lv_col(tplvl[i]), lc = k_lv_col(cplvl[i]);
            const double le = k_lv_col(eplvl[i]), ld = k_lv_col(dplvl[i]);
            const double lp = k_lv_col(pplvl[i]), lr = k_lv_col(dplvlr[i]);
            bx[i] = K_LEVEL_BYTES(lx);
            by[i] = has_y ? K_LEVEL_BYTES(ly) : 0.0;
        }
    }
#undef K_LEVEL_BYTES
    if (ks->off_opt > 0.5 || ks->off_act > 0.5 || ks->detail) {
        /* offloading (cost/README.md, "Offloading"; explain: zeros without). Optimizer: the state
         * leaves the device for the host (with a host copy of the gradient shard); per step the
         * gradients go down and the updated parameters come back over the host link, and
         * the update runs on the CPU at the host memory bandwidth (the same opt_traffic
         * bytes per parameter). Activations: the stage's exposed copies per micro-batch
         * add to its time. */
        const double oo = ks->off_opt, il = km->inv_host_link, ihm = km->inv_host_mem;
        const double xb = km->bytes_grad + km->bytes_param;
        double *host = CW(PRISM_KC_HOST), *xf = CW(PRISM_KC_XFER), *ox = CW(PRISM_KC_OFFX);
        for (size_t i = 0; i < n; i++)
            ox[i] = 0.0;
        if (ks->off_act > 0.5)
            for (size_t s = 0; s < ns; s++) {
                const double cnt = ks->count[(size_t)c * ns + s];
                if (cnt == 0.0)
                    continue;
                const double *sx = slot0 + (s * PRISM_KS_COUNT + PRISM_KS_OFFX) * PRISM_K_TILE;
                PRISM_KLOOP
                for (size_t i = 0; i < n; i++)
                    ox[i] += cnt * sx[i];
            }
        PRISM_KLOOP
        for (size_t i = 0; i < n; i++) {
            const double po = ne[i] * odiv[i] + ex[i] * odive[i];
            host[i] = oo * (opt[i] + bg * po);
            xf[i] = oo * po * xb * il;
            ost[i] = oo > 0.5 ? po * opt_tr * ihm : ost[i];
            opt[i] = oo > 0.5 ? 0.0 : opt[i];
            const double tt = tim[i] + ox[i];
            tim[i] = tt;
            const double u = tt - bw * wg[i];
            unit[i] = u > 0.0 ? u : 0.0;
        }
    }
    if (bkt_on > 0.5) {
        const double bkr = km->dp_bucket_rank;
        const double *restrict dpl = ln->dp + off, *restrict cpl = ln->cp + off;
        PRISM_KLOOP
        for (size_t i = 0; i < n; i++) {
            const double dcomm = ne[i] * dpa[i] + dplat[i] + moe * (ex[i] * dpea[i] + dpelat[i]);
            const double nw = dpnw[i], fb = dpfb[i];
            const double pst = ne[i] + ex[i];
            /* Megatron-Core's bucket: max(dp_bucket, dp_bucket_per_rank x dp x cp) params */
            const double bgr = bkr * dpl[i] * cpl[i];
            const double bkt = bgr > bucket ? bgr : bucket;
            const double q = pst > bkt ? bkt / (pst > bkt ? pst : 1.0) : 1.0;
            const double c_b = dcomm * fb / nw, c_f = dcomm * (1.0 - fb);
            const double w_f = cfw[i];
            const double w_b = cmp[i] + rc[i] + tpt[i] + cpt[i] + ept[i] - cfw[i];
            const double x_b0 = c_b - w_b > q * c_b ? c_b - w_b : q * c_b;
            const double x_f0 = c_f - w_f > q * c_f ? c_f - w_f : q * c_f;
            /* an overlap dim off, or ZeRO's collectives outside compute (zero_sync_exposed):
             * that share is exposed in full */
            const double zxs = zex > 0.5 && zero[i] > 0.5 ? 1.0 : 0.0;
            const double x_b = dov[i] > 0.5 && zxs < 0.5 ? x_b0 : c_b;
            const double x_f = pov[i] > 0.5 && zxs < 0.5 ? x_f0 : c_f;
            /* what is hidden slows the compute beside it by NCCL's SMs */
            dpt[i] = nw * x_b + x_f + (nw * (c_b - x_b) + (c_f - x_f)) * nsh;
        }
    }
#undef CW
}

/* grad_lowp_kept (cost/README.md, "Memory"): a micro-batch's backward ends with the
 * model-dtype gradients G of every parameter of the stage (whatever the ZeRO stage: the
 * backward produces them all) held beside the fp32 buffer, while
 * the other in-flight micro-batches' activations stay, and no layer's backward working
 * set: the stage peaks at max(A + X, A - A_one + G) = A + X + max(0, G - A_one - X), A its
 * in-flight activations, A_one one micro-batch's, X the working set (@p work scaled).
 * Adds max(0, G - A_one - X) to act. */
static void k_cand_kept(const PrismKModel *km, const PrismKSegment *ks, uint32_t d, size_t n,
                        const double *slot0, const double *cw, double *restrict act,
                        const double *work, double wsc)
{
    double one[PRISM_K_TILE];
    const size_t ns = ks->n_slots;
    const double *ne = cw + (size_t)PRISM_KC_NE * PRISM_K_TILE;
    const double *ex = cw + (size_t)PRISM_KC_EX * PRISM_K_TILE;
    const double gkp = km->grad_kept;
    const int off = ks->off_act > 0.5;
    for (size_t i = 0; i < n; i++)
        one[i] = 0.0;
    for (size_t s = 0; s < ns; s++) {
        const double wo = ks->w_one[(size_t)d * ns + s];
        if (wo == 0.0)
            continue;
        const double *restrict sa =
            slot0 + ((size_t)s * PRISM_KS_COUNT + PRISM_KS_ACT) * PRISM_K_TILE;
        for (size_t i = 0; i < n; i++)
            one[i] += wo * sa[i];
    }
    for (size_t i = 0; i < n; i++) {
        const double g = gkp * (ne[i] + ex[i]);
        /* activation offload keeps a few layers on the device, not micro-batches: at the
         * end of a backward it may hold none of them (A_one = A) */
        const double o = off || one[i] > act[i] ? act[i] : one[i];
        const double x = g - o - work[i] * wsc;
        act[i] += x > 0.0 ? x : 0.0;
    }
}

/* zero1_gather_copies (cost/README.md, "Memory"): after the optimizer step ZeRO-1/2 (over
 * more than one rank) gathers the updated parameters through flat buffers: a copy of the
 * rank's shard and gather_copies unsharded copies of the stage's N parameters, while the
 * persistent state stays and the step's activations are freed. The stage's peak is the
 * larger of the schedule's and that phase's, P + bytes_p N (copies + 1/shard): act becomes
 * max(act, the buffers), transient like it, and the total is summed again. */
static void k_cand_gather(const PrismKModel *km, const PrismKLanes *ln, size_t off, size_t n,
                          const double *shard, const double *cw, double *restrict act,
                          double *restrict tot)
{
    const double *ne = cw + (size_t)PRISM_KC_NE * PRISM_K_TILE;
    const double *ex = cw + (size_t)PRISM_KC_EX * PRISM_K_TILE;
    const double *par = cw + (size_t)PRISM_KC_PARAMS * PRISM_K_TILE;
    const double *grd = cw + (size_t)PRISM_KC_GRADS * PRISM_K_TILE;
    const double *opt = cw + (size_t)PRISM_KC_OPT * PRISM_K_TILE;
    const double *buf = cw + (size_t)PRISM_KC_BUFFERS * PRISM_K_TILE;
    const double bp = km->gather_p, cp = km->gather_copies;
    for (size_t i = 0; i < n; i++) {
        const double z = ln->zero[off + i], sh = shard[i];
        const double g =
            z > 0.5 && z < 2.5 && sh > 1.5 ? bp * (ne[i] + ex[i]) * (cp + 1.0 / sh) : 0.0;
        const double a = g > act[i] ? g : act[i];
        act[i] = a;
        tot[i] = par[i] + grd[i] + opt[i] + a + buf[i];
    }
}

static void k_cand(const PrismKModel *km, const PrismKSegment *ks, uint32_t d,
                   const PrismKLanes *ln, size_t off, size_t n, double *ws)
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
    /* grad_lowp_kept: one micro-batch's activations of the stage (the layers it holds of one
     * micro-batch, at most m of them), which its backward frees while the model-dtype
     * gradients fill up (k_cand_kept) */
    const double gkp = km->grad_kept;
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
    if (ks->off_opt > 0.5 || ks->off_act > 0.5 || ks->detail) {
        /* host bytes: the offloaded optimizer state (k_comp) and, with activation
         * offload, every in-flight activation; the device then keeps off_keep layers of
         * one micro-batch (the layer running and the one in transfer), at most what it
         * would keep without offload */
        const double *hst = cw + (size_t)PRISM_KC_HOST * PRISM_K_TILE;
        double *restrict host = dw + (size_t)PRISM_KD_HOST * PRISM_K_TILE;
        if (ks->off_act > 0.5) {
            double *restrict big = dw + (size_t)PRISM_KD_KEEP * PRISM_K_TILE;
            for (size_t i = 0; i < n; i++)
                big[i] = 0.0;
            for (size_t s = 0; s < ns; s++) {
                if (ks->count[(size_t)c * ns + s] == 0.0)
                    continue;
                const double *restrict sa =
                    slot0 + ((size_t)s * PRISM_KS_COUNT + PRISM_KS_ACT) * PRISM_K_TILE;
                PRISM_KLOOP
                for (size_t i = 0; i < n; i++)
                    big[i] = sa[i] > big[i] ? sa[i] : big[i];
            }
            const double keep = km->off_keep;
            PRISM_KLOOP
            for (size_t i = 0; i < n; i++) {
                const double kept = keep * big[i];
                host[i] = hst[i] + act[i];
                act[i] = act[i] < kept ? act[i] : kept;
            }
        } else {
            double *restrict big = dw + (size_t)PRISM_KD_KEEP * PRISM_K_TILE;
            for (size_t i = 0; i < n; i++) {
                host[i] = hst[i];
                big[i] = 0.0;
            }
        }
    }
    if (gkp > 0.0)
        k_cand_kept(km, ks, d, n, slot0, cw, act, work, wsc);
    PRISM_KLOOP
    for (size_t i = 0; i < n; i++) {
        act[i] += work[i] * wsc;
        tot[i] = par[i] + grd[i] + opt[i] + act[i] + buf[i];
    }
    if (km->gather_p > 0.0)
        k_cand_gather(km, ln, off, n, WS(PRISM_KL_SHARD), cw, act, tot);
}

/* The NCCL communicators a lane's device holds buffers for: each of its tp, cp, dp, ep
 * and pp groups of more than one rank (@p ppg: 1 when pp > 1). */
static inline double k_comms(double tp, double cp, double dp, double ep, double ppg)
{
    return (tp > 1.5 ? 1.0 : 0.0) + (cp > 1.5 ? 1.0 : 0.0) + (dp > 1.5 ? 1.0 : 0.0) +
           (ep > 1.5 ? 1.0 : 0.0) + ppg;
}

/* The persistent bytes of the peak stage (PRISM_KF_PSTAT): parameters, gradients and
 * optimizer state, which the caching allocator holds in segments of their own (no reserve),
 * of the first candidate, then of each strictly larger one (the peak's own selection). */
static inline void k_pstat_first(const double *restrict par, const double *restrict grd,
                                 const double *restrict opt, double *restrict f_pst, size_t n)
{
    PRISM_KLOOP
    for (size_t i = 0; i < n; i++)
        f_pst[i] = par[i] + grd[i] + opt[i];
}

static inline void k_pstat_next(const double *restrict par, const double *restrict grd,
                                const double *restrict opt, const double *restrict tot,
                                const double *restrict peak, double *restrict f_pst, size_t n)
{
    PRISM_KLOOP
    for (size_t i = 0; i < n; i++) {
        const double st = par[i] + grd[i] + opt[i];
        f_pst[i] = tot[i] > peak[i] ? st : f_pst[i];
    }
}

/* FSDP2's all-gather pool of each lane (PRISM_KF_GPOOL; cost/README.md, "FSDP2's
 * all-gather pool"): at ZeRO-3, gather_units x the largest unit's gathered bytes, the
 * maximum over every composition of zero3_gather_max (the whole model's largest unit, as
 * prism_cost_memory_kinds takes it); 0 for other lanes or with the knob at 0. */
static void k_gather_pool(const PrismKModel *km, const PrismKSegment *ks, const PrismKLanes *ln,
                          size_t off, size_t n, const double *comp0, double *f_gp)
{
    const double units = km->gather_units;
    if (!(units > 0.0)) {
        for (size_t i = 0; i < n; i++)
            f_gp[i] = 0.0;
        return;
    }
    const double *g0 = comp0 + (size_t)PRISM_KC_GATHER * PRISM_K_TILE;
    PRISM_KLOOP
    for (size_t i = 0; i < n; i++)
        f_gp[i] = g0[i];
    for (uint32_t c = 1; c < ks->n_comp; c++) {
        const double *g = comp0 + ((size_t)c * PRISM_KC_COUNT + PRISM_KC_GATHER) * PRISM_K_TILE;
        PRISM_KLOOP
        for (size_t i = 0; i < n; i++)
            f_gp[i] = g[i] > f_gp[i] ? g[i] : f_gp[i];
    }
    const double *restrict z = ln->zero + off;
    PRISM_KLOOP
    for (size_t i = 0; i < n; i++)
        f_gp[i] = z[i] > 2.5 ? units * f_gp[i] : 0.0;
}

/* The final pass of a floors' run (PrismKLanes.lean 2, cost_floor.c): only the slowest
 * stage's time and the bubble units' sum and maximum (PRISM_KF_TMAX, _USUM, _UMAX), by
 * k_final's own loops (the same bits); no output column is written. */
static void k_final_floors(const PrismKSegment *ks, size_t n, double *ws)
{
    const size_t ns = ks->n_slots, nc = ks->n_comp;
    const double *comp0 = WS(PRISM_KL_COUNT + ns * PRISM_KS_COUNT);
    double *fin = WS(PRISM_KL_COUNT + ns * PRISM_KS_COUNT + nc * PRISM_KC_COUNT +
                     (size_t)ks->n_cand * PRISM_KD_COUNT);
    double *f_tmax = fin + (size_t)PRISM_KF_TMAX * PRISM_K_TILE;
    double *f_usum = fin + (size_t)PRISM_KF_USUM * PRISM_K_TILE;
    double *f_umax = fin + (size_t)PRISM_KF_UMAX * PRISM_K_TILE;
    for (uint32_t c = 0; c < nc; c++) {
        const double mu = ks->mult[c];
        const double *tim = comp0 + ((size_t)c * PRISM_KC_COUNT + PRISM_KC_TIME) * PRISM_K_TILE;
        const double *unit = comp0 + ((size_t)c * PRISM_KC_COUNT + PRISM_KC_UNIT) * PRISM_K_TILE;
        if (c == 0) {
            PRISM_KLOOP
            for (size_t i = 0; i < n; i++) {
                f_tmax[i] = tim[i];
                f_usum[i] = mu * unit[i];
                f_umax[i] = unit[i];
            }
            continue;
        }
        PRISM_KLOOP
        for (size_t i = 0; i < n; i++) {
            const int gt = tim[i] > f_tmax[i];
            f_tmax[i] = gt ? tim[i] : f_tmax[i];
            f_usum[i] += mu * unit[i];
            f_umax[i] = unit[i] > f_umax[i] ? unit[i] : f_umax[i];
        }
    }
}

static void k_final(const PrismKModel *km, const PrismKSegment *ks, const PrismKLanes *ln,
                    size_t off, size_t n, double *const *out, double *ws)
{
    if (ln->lean > 1) {
        k_final_floors(ks, n, ws);
        return;
    }
    const int lean = (int)ln->lean; /* report columns left unwritten (PrismKLanes.lean) */
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
    double *f_pst = cand0 + (size_t)ks->n_cand * PRISM_KD_COUNT * PRISM_K_TILE +
                    (size_t)PRISM_KF_PSTAT * PRISM_K_TILE;
    /* memory: the first candidate, then strictly larger ones (ties keep the lower
     * stage: candidates are in stage order) */
    {
        const uint32_t c = ks->cand_comp[0];
        const double st = ks->cand_stage[0];
        const double *par = CT(c, PRISM_KC_PARAMS), *grd = CT(c, PRISM_KC_GRADS);
        const double *opt = CT(c, PRISM_KC_OPT), *buf = CT(c, PRISM_KC_BUFFERS);
        const double *act = DT(0, PRISM_KD_ACT), *tot = DT(0, PRISM_KD_TOTAL);
        if (!lean) {
            PRISM_KLOOP
            for (size_t i = 0; i < n; i++) {
                o_par[i] = par[i];
                o_grd[i] = grd[i];
                o_opt[i] = opt[i];
                o_act[i] = act[i];
                o_buf[i] = buf[i];
                o_stage[i] = st;
            }
        }
        PRISM_KLOOP
        for (size_t i = 0; i < n; i++)
            o_peak[i] = tot[i];
        k_pstat_first(par, grd, opt, f_pst, n);
    }
    for (uint32_t d = 1; d < ks->n_cand; d++) {
        const uint32_t c = ks->cand_comp[d];
        const double st = ks->cand_stage[d];
        const double *par = CT(c, PRISM_KC_PARAMS), *grd = CT(c, PRISM_KC_GRADS);
        const double *opt = CT(c, PRISM_KC_OPT), *buf = CT(c, PRISM_KC_BUFFERS);
        const double *act = DT(d, PRISM_KD_ACT), *tot = DT(d, PRISM_KD_TOTAL);
        if (!lean) { /* the breakdown of the peak stage (before the peak moves on) */
            PRISM_KLOOP
            for (size_t i = 0; i < n; i++) {
                const int gt = tot[i] > o_peak[i];
                o_par[i] = gt ? par[i] : o_par[i];
                o_grd[i] = gt ? grd[i] : o_grd[i];
                o_opt[i] = gt ? opt[i] : o_opt[i];
                o_act[i] = gt ? act[i] : o_act[i];
                o_buf[i] = gt ? buf[i] : o_buf[i];
                o_stage[i] = gt ? st : o_stage[i];
            }
        }
        k_pstat_next(par, grd, opt, tot, o_peak, f_pst, n);
        PRISM_KLOOP
        for (size_t i = 0; i < n; i++)
            o_peak[i] = tot[i] > o_peak[i] ? tot[i] : o_peak[i];
    }
    if (ln->stat != NULL) {
        double *o_st = ln->stat + off;
        for (uint32_t d = 0; d < ks->n_cand; d++) {
            const uint32_t c = ks->cand_comp[d];
            const double *par = CT(c, PRISM_KC_PARAMS), *grd = CT(c, PRISM_KC_GRADS);
            const double *opt = CT(c, PRISM_KC_OPT);
            PRISM_KLOOP
            for (size_t i = 0; i < n; i++) {
                const double st = par[i] + grd[i] + opt[i];
                o_st[i] = d == 0 || st > o_st[i] ? st : o_st[i];
            }
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
    double *o_off = out[PRISM_KO_TIME_OFFLOAD] + off, *o_host = out[PRISM_KO_MEM_HOST] + off;
    const double *pptime = WS(PRISM_KL_PP_TIME), *tie = WS(PRISM_KL_TIE_SYNC);
    double *fin = cand0 + (size_t)ks->n_cand * PRISM_KD_COUNT * PRISM_K_TILE;
    double *f_tmax = fin + (size_t)PRISM_KF_TMAX * PRISM_K_TILE;
    double *f_usum = fin + (size_t)PRISM_KF_USUM * PRISM_K_TILE;
    double *f_umax = fin + (size_t)PRISM_KF_UMAX * PRISM_K_TILE;
    double *f_dp = fin + (size_t)PRISM_KF_DPMAX * PRISM_K_TILE;
    double *f_fs = fin + (size_t)PRISM_KF_FSDP * PRISM_K_TILE;
    double *f_ox = fin + (size_t)PRISM_KF_OFFX * PRISM_K_TILE;
    double *f_tx = fin + (size_t)PRISM_KF_TOFF * PRISM_K_TILE;
    {
        const double mu = ks->mult[0];
        const double *tim = CT(0, PRISM_KC_TIME), *unit = CT(0, PRISM_KC_UNIT);
        const double *cmp = CT(0, PRISM_KC_COMPUTE), *rc = CT(0, PRISM_KC_RECOMP);
        const double *tpt = CT(0, PRISM_KC_TP), *cpt = CT(0, PRISM_KC_CP);
        const double *ept = CT(0, PRISM_KC_EP), *dpt = CT(0, PRISM_KC_DP);
        const double *fl = CT(0, PRISM_KC_FLOPS), *ost = CT(0, PRISM_KC_OPT_STEP);
        const double *b0 = CT(0, PRISM_KC_BYTES_L0), *b1 = CT(0, PRISM_KC_BYTES_L1);
        const double *b2 = CT(0, PRISM_KC_BYTES_L2), *b3 = CT(0, PRISM_KC_BYTES_L3);
        const double *dfs = CT(0, PRISM_KC_DP_FS), *dtl = CT(0, PRISM_KC_DP_TAIL);
        if (!lean) {
            PRISM_KLOOP
            for (size_t i = 0; i < n; i++) {
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
        PRISM_KLOOP
        for (size_t i = 0; i < n; i++) {
            o_ost[i] = ost[i];
            f_fs[i] = dfs[i] + dtl[i];
            f_tmax[i] = tim[i];
            f_usum[i] = mu * unit[i];
            f_umax[i] = unit[i];
            f_dp[i] = dpt[i];
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
        const double *dfs = CT(c, PRISM_KC_DP_FS), *dtl = CT(c, PRISM_KC_DP_TAIL);
        if (!lean) { /* the slowest stage's time split (before f_tmax moves on) */
            PRISM_KLOOP
            for (size_t i = 0; i < n; i++) {
                const int gt = tim[i] > f_tmax[i];
                o_cmp[i] = gt ? cmp[i] : o_cmp[i];
                o_rc[i] = gt ? rc[i] : o_rc[i];
                o_tp[i] = gt ? tpt[i] : o_tp[i];
                o_cp[i] = gt ? cpt[i] : o_cp[i];
                o_ep[i] = gt ? ept[i] : o_ep[i];
                o_fl[i] = fl[i] > o_fl[i] ? fl[i] : o_fl[i];
                o_b0[i] += mu * b0[i];
                o_b1[i] += mu * b1[i];
                o_b2[i] += mu * b2[i];
                o_b3[i] += mu * b3[i];
            }
        }
        PRISM_KLOOP
        for (size_t i = 0; i < n; i++) {
            const int gt = tim[i] > f_tmax[i];
            f_fs[i] = gt ? dfs[i] + dtl[i] : f_fs[i];
            o_ost[i] = ost[i] > o_ost[i] ? ost[i] : o_ost[i];
            f_tmax[i] = gt ? tim[i] : f_tmax[i];
            f_usum[i] += mu * unit[i];
            f_umax[i] = unit[i] > f_umax[i] ? unit[i] : f_umax[i];
            f_dp[i] = dpt[i] > f_dp[i] ? dpt[i] : f_dp[i];
        }
    }
    /* offloading: host bytes (max over the stage states), the optimizer's host-link
     * transfers (max over stages: like the CPU update, proportional to the stage's
     * optimizer shard, so both maxima sit on the same stage) and the slowest stage's
     * exposed activation copies per micro-batch (already in its time) */
    if (ks->off_opt > 0.5 || ks->off_act > 0.5) {
        for (size_t i = 0; i < n; i++)
            o_host[i] = 0.0;
        for (uint32_t d = 0; d < ks->n_cand; d++) {
            const double *h = DT(d, PRISM_KD_HOST);
            PRISM_KLOOP
            for (size_t i = 0; i < n; i++)
                o_host[i] = h[i] > o_host[i] ? h[i] : o_host[i];
        }
        const double *xf0 = CT(0, PRISM_KC_XFER), *ox0 = CT(0, PRISM_KC_OFFX);
        const double *t0 = CT(0, PRISM_KC_TIME);
        PRISM_KLOOP
        for (size_t i = 0; i < n; i++) {
            o_off[i] = xf0[i];
            f_ox[i] = ox0[i];
            f_tx[i] = t0[i];
        }
        for (uint32_t c = 1; c < nc; c++) {
            const double *xf = CT(c, PRISM_KC_XFER), *ox = CT(c, PRISM_KC_OFFX);
            const double *tim = CT(c, PRISM_KC_TIME);
            PRISM_KLOOP
            for (size_t i = 0; i < n; i++) {
                const int gt = tim[i] > f_tx[i];
                f_ox[i] = gt ? ox[i] : f_ox[i];
                f_tx[i] = gt ? tim[i] : f_tx[i];
                o_off[i] = xf[i] > o_off[i] ? xf[i] : o_off[i];
            }
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            o_host[i] = 0.0;
            o_off[i] = 0.0;
            f_ox[i] = 0.0;
        }
    }
    const double bsc = ks->bub_scale, bsum = ks->bub_sum, msh = ks->m_share;
    const double inv_p = ks->inv_pp;
    const double mfu_num = ks->mfu_num, hfu_num = ks->hfu_num;
    const double tokens = km->gbs * km->seq, budget = km->budget, hbudget = km->host_budget;
    const double *restrict mm = ln->m + off;
    double *o_mfu = out[PRISM_KO_MFU] + off, *o_hfu = out[PRISM_KO_HFU] + off;
    double *o_tok = out[PRISM_KO_TOKENS_PER_S] + off;
    double *o_feas = out[PRISM_KO_FEASIBLE] + off, *o_why = out[PRISM_KO_REASON] + off;
    /* the device-level figure (kernels-model.h mem_reserve): the peak is the allocated one;
     * the allocator's reserve applies to its transient part, peak - f_pst */
    const double rsv = km->mem_reserve, mfx = km->mem_fixed, ngb = km->nccl_group;
    const double ppg = inv_p < 0.75 ? 1.0 : 0.0;
    const double *restrict ltp = ln->tp + off, *restrict lcp = ln->cp + off;
    const double *restrict ldp = ln->dp + off, *restrict lep = ln->ep + off;
    double *f_gp = fin + (size_t)PRISM_KF_GPOOL * PRISM_K_TILE;
    k_gather_pool(km, ks, ln, off, n, comp0, f_gp);
    PRISM_KLOOP
    for (size_t i = 0; i < n; i++) {
        const double m = mm[i] * msh;
        const double bx = bsum * f_usum[i] - f_umax[i];
        const double bubble = (bx > 0.0 ? bx : 0.0) * bsc;
        const double step = m * f_tmax[i] + bubble + f_dp[i] + tie[i] + o_ost[i] + o_off[i];
        const double inv_step = 1.0 / step;
        o_pp[i] = m * pptime[i];
        o_bub[i] = bubble;
        o_dp[i] = f_dp[i] + m * f_fs[i] + tie[i];
        o_step[i] = step;
        o_mfu[i] = mfu_num * inv_step;
        o_hfu[i] = hfu_num * inv_step;
        o_tok[i] = tokens * inv_step;
        o_off[i] = o_off[i] + m * f_ox[i];
        /* the host's verdict as arithmetic on 0/1 (a combined condition in the select
         * chain is control flow to GCC and stops this loop vectorising: AVX2 -50 %);
         * exact: hout = 1 only when the device fits and the host does not (reason 4) */
        const double fixed = mfx + ngb * k_comms(ltp[i], lcp[i], ldp[i], lep[i], ppg) + f_gp[i];
        const double pk = o_peak[i];
        const double fits = pk + (pk - f_pst[i]) * rsv + fixed <= budget ? 1.0 : 0.0;
        const double hout = o_host[i] > hbudget ? fits : 0.0;
        o_feas[i] = fits - hout;
    }
    if (lean) /* the time split, FLOPs, bytes per level and the reason are report columns */
        return;
    PRISM_KLOOP
    for (size_t i = 0; i < n; i++) {
        const double m = mm[i] * msh;
        o_cmp[i] = m * o_cmp[i];
        o_rc[i] = m * o_rc[i];
        o_tp[i] = m * o_tp[i];
        o_cp[i] = m * o_cp[i];
        o_ep[i] = m * o_ep[i];
        o_fl[i] = m * o_fl[i];
        o_b0[i] = o_b0[i] * inv_p;
        o_b1[i] = o_b1[i] * inv_p;
        o_b2[i] = o_b2[i] * inv_p;
        o_b3[i] = o_b3[i] * inv_p;
        const double stat = o_par[i] + o_grd[i] + o_opt[i];
        const double fixed = mfx + ngb * k_comms(ltp[i], lcp[i], ldp[i], lep[i], ppg) + f_gp[i];
        const double pk = o_peak[i];
        const double peak = pk + (pk - f_pst[i]) * rsv + fixed;
        const double sa = stat + o_act[i];
        const double why = peak <= budget                            ? 0.0
                           : stat + fixed > budget                   ? 1.0
                           : sa + (sa - stat) * rsv + fixed > budget ? 2.0
                                                                     : 3.0;
        const double fits = peak <= budget ? 1.0 : 0.0;
        const double hout = o_host[i] > hbudget ? fits : 0.0;
        o_why[i] = why + 4.0 * hout;
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
        /* tile flags: work whose result is exactly 0 for every lane is skipped */
        int any_z3 = 0, any_cp = 0, any_dpo = 0;
        for (size_t i = 0; i < len; i++) {
            any_z3 |= lanes->zero[off + i] > 2.5;
            any_cp |= lanes->cp[off + i] > 1.5;
            any_dpo |= (lanes->dov[off + i] < 0.5) | (lanes->pov[off + i] < 0.5);
        }
        k_lanes(km, ks, lanes, off, len, ws, any_dpo);
        const int dpw = km->dp_bucket > 0.0 || ks->detail || ks->off_act > 0.5 ? 2 : any_z3 ? 1 : 0;
        const int cpm = !any_cp ? 0 : km->cp_ulysses > 0.5 ? 2 : 1;
        for (uint32_t s = 0; s < ks->n_slots; s++)
            k_slot(km, ks, &ks->slots[s], lanes, off, len, ws,
                   ws + (size_t)PRISM_KL_COUNT * PRISM_K_TILE + s * slot_stride, dpw, cpm);
        for (uint32_t c = 0; c < ks->n_comp; c++)
            k_comp(km, ks, c, lanes, off, len, ws, dpw);
        for (uint32_t d = 0; d < ks->n_cand; d++)
            k_cand(km, ks, d, lanes, off, len, ws);
        k_final(km, ks, lanes, off, len, out, ws);
    }
}

#undef WS
#undef PRISM_KLOOP
#undef PRISM_KCAT
#undef PRISM_KCAT2
