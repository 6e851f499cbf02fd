// SPDX-License-Identifier: MIT
/*
 * cost_eval.c - the evaluation framework: output column table, evaluators (workspace +
 * kernel table), one-strategy evaluation through the scalar reference, and per-layer
 * terms.
 *
 * An evaluator is not thread-safe (one per worker); models and segments are read-only.
 * Nothing here is collective.
 */
#include <prism/cost.h>

#include <string.h>

#include <prism/core.h>

#include "cost-internal.h"

/* The kernel writes columns by PRISM_KO_* index: keep both enums in step. */
G_STATIC_ASSERT((int)PRISM_KO_COUNT == (int)PRISM_COL_COUNT);
G_STATIC_ASSERT((int)PRISM_KO_MEM_PEAK == (int)PRISM_COL_MEM_PEAK);
G_STATIC_ASSERT((int)PRISM_KO_TIME_STEP == (int)PRISM_COL_TIME_STEP);
G_STATIC_ASSERT((int)PRISM_KO_BYTES_L0 == (int)PRISM_COL_BYTES_L0);
G_STATIC_ASSERT((int)PRISM_KO_FEASIBLE == (int)PRISM_COL_FEASIBLE);
G_STATIC_ASSERT((int)PRISM_KO_REASON == (int)PRISM_COL_REASON);
G_STATIC_ASSERT((int)PRISM_KO_TIME_OPTIMIZER == (int)PRISM_COL_TIME_OPTIMIZER);
G_STATIC_ASSERT((int)PRISM_KO_TIME_OFFLOAD == (int)PRISM_COL_TIME_OFFLOAD);
G_STATIC_ASSERT((int)PRISM_KO_MEM_HOST == (int)PRISM_COL_MEM_HOST);

/* Storage: f64 for the objectives and memory; f32 for mfu, hfu and tokens/s (they are
 * step_time rescaled by per-setup constants, recomputable exactly from the f64 step_time;
 * 24-bit mantissas are far below the model's error and save ~10 B/row in a landscape). */
static const PrismColInfo cols[PRISM_COL_COUNT] = {
    [PRISM_COL_MEM_PARAMS] = {"params_mem", "bytes", "parameters on the peak stage",
                              PRISM_STORE_F64},
    [PRISM_COL_MEM_GRADS] = {"grads_mem", "bytes", "gradients on the peak stage", PRISM_STORE_F64},
    [PRISM_COL_MEM_OPTIMIZER] = {"optimizer_mem", "bytes",
                                 "optimizer state (master copy + moments) on the peak stage",
                                 PRISM_STORE_F64},
    [PRISM_COL_MEM_ACTIVATIONS] = {"activations_mem", "bytes",
                                   "in-flight activations on the peak stage", PRISM_STORE_F64},
    [PRISM_COL_MEM_COMM_BUFFERS] = {"buffers_mem", "bytes",
                                    "communication buffers + framework workspace, peak stage",
                                    PRISM_STORE_F64},
    [PRISM_COL_MEM_PEAK] = {"peak_mem", "bytes", "peak memory per device (max over stages)",
                            PRISM_STORE_F64},
    [PRISM_COL_PEAK_STAGE] = {"peak_stage", "index", "pipeline stage that sets the peak",
                              PRISM_STORE_U16},
    [PRISM_COL_TIME_COMPUTE] = {"compute_time", "s",
                                "forward + backward compute per step (slowest stage)",
                                PRISM_STORE_F64},
    [PRISM_COL_TIME_RECOMPUTE] = {"recompute_time", "s", "recompute per step (slowest stage)",
                                  PRISM_STORE_F64},
    [PRISM_COL_TIME_TP_COMM] = {"tp_time", "s", "exposed TP communication per step",
                                PRISM_STORE_F64},
    [PRISM_COL_TIME_CP_COMM] = {"cp_time", "s", "exposed CP communication per step",
                                PRISM_STORE_F64},
    [PRISM_COL_TIME_EP_COMM] = {"ep_time", "s", "exposed EP all-to-all per step", PRISM_STORE_F64},
    [PRISM_COL_TIME_DP_COMM] = {"dp_time", "s", "exposed DP / ZeRO communication per step",
                                PRISM_STORE_F64},
    [PRISM_COL_TIME_PP_COMM] = {"pp_time", "s", "exposed pipeline point-to-point per step",
                                PRISM_STORE_F64},
    [PRISM_COL_TIME_BUBBLE] = {"bubble_time", "s", "pipeline bubble per step", PRISM_STORE_F64},
    [PRISM_COL_TIME_STEP] = {"step_time", "s", "time per training step", PRISM_STORE_F64},
    [PRISM_COL_MFU] = {"mfu", "fraction", "model FLOPs / (step time x devices x peak)",
                       PRISM_STORE_F32},
    [PRISM_COL_HFU] = {"hfu", "fraction", "model + recompute FLOPs / (step time x devices x peak)",
                       PRISM_STORE_F32},
    [PRISM_COL_TOKENS_PER_S] = {"tokens_per_s", "1/s", "tokens per second, whole job",
                                PRISM_STORE_F32},
    [PRISM_COL_FLOPS_PER_DEVICE] = {"flops_per_device", "FLOP",
                                    "executed FLOPs per device per step (busiest stage)",
                                    PRISM_STORE_F64},
    [PRISM_COL_BYTES_L0] = {"bytes_l0", "bytes",
                            "bytes sent per device per step on network level 0 (mean over "
                            "stages)",
                            PRISM_STORE_F64},
    [PRISM_COL_BYTES_L1] = {"bytes_l1", "bytes", "bytes per device per step on level 1",
                            PRISM_STORE_F64},
    [PRISM_COL_BYTES_L2] = {"bytes_l2", "bytes", "bytes per device per step on level 2",
                            PRISM_STORE_F64},
    [PRISM_COL_BYTES_L3] = {"bytes_l3", "bytes", "bytes per device per step on level 3",
                            PRISM_STORE_F64},
    [PRISM_COL_FEASIBLE] = {"feasible", "bool", "1 = the device-level figure fits the budget",
                            PRISM_STORE_U8},
    [PRISM_COL_REASON] = {"reason", "code",
                          "0 ok, 1 static memory, 2 activations, 3 buffers exceed the budget, "
                          "4 the offloaded bytes exceed the host memory per device",
                          PRISM_STORE_U8},
    [PRISM_COL_TIME_OPTIMIZER] = {"optimizer_time", "s",
                                  "optimizer update per step (slowest stage)", PRISM_STORE_F64},
    [PRISM_COL_TIME_OFFLOAD] = {"offload_time", "s",
                                "exposed host-link transfers per step (offload: optimizer "
                                "gradients + parameters, unhidden activation copies)",
                                PRISM_STORE_F64},
    [PRISM_COL_MEM_HOST] = {"host_mem", "bytes",
                            "host memory per device holding offloaded state (max over stages)",
                            PRISM_STORE_F64},
};

static const char *const reason_names[PRISM_REASON_COUNT] = {"ok", "mem_static", "mem_activations",
                                                             "mem_buffers", "mem_host"};

/* JSON paths of explain --json accepted as column aliases. */
static const struct {
    const char *alias;
    PrismCostCol col;
} aliases[] = {
    {"memory.params", PRISM_COL_MEM_PARAMS},
    {"memory.grads", PRISM_COL_MEM_GRADS},
    {"memory.optimizer", PRISM_COL_MEM_OPTIMIZER},
    {"memory.activations", PRISM_COL_MEM_ACTIVATIONS},
    {"memory.comm_buffers", PRISM_COL_MEM_COMM_BUFFERS},
    {"memory.peak", PRISM_COL_MEM_PEAK},
    {"time.compute", PRISM_COL_TIME_COMPUTE},
    {"time.recompute", PRISM_COL_TIME_RECOMPUTE},
    {"time.tp_comm", PRISM_COL_TIME_TP_COMM},
    {"time.cp_comm", PRISM_COL_TIME_CP_COMM},
    {"time.ep_comm", PRISM_COL_TIME_EP_COMM},
    {"time.dp_comm", PRISM_COL_TIME_DP_COMM},
    {"time.pp_comm", PRISM_COL_TIME_PP_COMM},
    {"time.bubble", PRISM_COL_TIME_BUBBLE},
    {"time.step", PRISM_COL_TIME_STEP},
    {"time.optimizer", PRISM_COL_TIME_OPTIMIZER},
    {"time.offload", PRISM_COL_TIME_OFFLOAD},
    {"memory.host", PRISM_COL_MEM_HOST},
};

const PrismColInfo *prism_col_info(PrismCostCol col)
{
    return (unsigned)col < PRISM_COL_COUNT ? &cols[col] : NULL;
}

gboolean prism_col_lookup(const char *name, PrismCostCol *out, GError **error)
{
    const char *names[PRISM_COL_COUNT];
    for (int i = 0; i < PRISM_COL_COUNT; i++) {
        names[i] = cols[i].name;
        if (g_ascii_strcasecmp(name, cols[i].name) == 0) {
            *out = (PrismCostCol)i;
            return TRUE;
        }
    }
    for (size_t i = 0; i < G_N_ELEMENTS(aliases); i++)
        if (g_ascii_strcasecmp(name, aliases[i].alias) == 0) {
            *out = aliases[i].col;
            return TRUE;
        }
    g_autofree char *close = prism_close_names(name, names, PRISM_COL_COUNT, 3);
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                "unknown column '%s' (closest: %s)", name, close);
    return FALSE;
}

const char *prism_reason_name(PrismReason reason)
{
    return (unsigned)reason < PRISM_REASON_COUNT ? reason_names[reason] : "?";
}

PrismEvaluator *prism_evaluator_new(const PrismCostModel *cm, const PrismKernelTable *kt,
                                    size_t max_batch)
{
    g_return_val_if_fail(cm != NULL && kt != NULL && max_batch > 0, NULL);
    PrismEvaluator *ev = g_new0(PrismEvaluator, 1);
    ev->cm = cm;
    ev->kt = kt;
    ev->max_batch = max_batch;
    ev->ones = g_new(double, max_batch);
    for (size_t i = 0; i < max_batch; i++)
        ev->ones[i] = 1.0;
    return ev;
}

void prism_evaluator_set_lean(PrismEvaluator *ev, gboolean lean)
{
    g_return_if_fail(ev != NULL);
    ev->lean = lean != FALSE;
}

gboolean prism_cost_col_lean(PrismCostCol c)
{
    switch (c) {
    case PRISM_COL_MEM_PEAK:
    case PRISM_COL_TIME_DP_COMM:
    case PRISM_COL_TIME_PP_COMM:
    case PRISM_COL_TIME_BUBBLE:
    case PRISM_COL_TIME_STEP:
    case PRISM_COL_MFU:
    case PRISM_COL_HFU:
    case PRISM_COL_TOKENS_PER_S:
    case PRISM_COL_FEASIBLE:
    case PRISM_COL_TIME_OPTIMIZER:
    case PRISM_COL_TIME_OFFLOAD:
    case PRISM_COL_MEM_HOST:
        return TRUE;
    default:
        return FALSE;
    }
}

void prism_evaluator_free(PrismEvaluator *ev)
{
    if (ev == NULL)
        return;
    if (!ev->ws_borrowed)
        prism_aligned_free(ev->ws);
    g_free(ev->gtab);
    g_free(ev->gkey);
    g_free(ev->ghash);
    for (size_t i = 0; i < G_N_ELEMENTS(ev->gmap); i++)
        g_free(ev->gmap[i].off);
    g_free(ev->goff);
    g_free(ev->ones);
    g_free(ev);
}

/* The GEMM table key: (tp, cp, mbs, ep, etp), what fixes every GEMM shape of a lane. */
enum { GKEY = 5 };

static size_t gkey_hash(const double *key)
{
    guint64 h = 1469598103934665603ull;
    for (int j = 0; j < GKEY; j++) {
        h ^= (guint64)key[j];
        h *= 1099511628211ull;
    }
    return (size_t)(h ^ (h >> 29));
}

/* Offset of @p key's entries in ev->gtab, computing the entry on first use. */
static int32_t gtab_find(PrismEvaluator *ev, const double key[GKEY])
{
    const size_t stride = (size_t)ev->cm->n_kinds * PRISM_KG_COUNT;
    if (2 * (ev->g_n + 1) > ev->g_hcap) { /* keep the load factor below 1/2 */
        const size_t hcap = ev->g_hcap ? 2 * ev->g_hcap : 256;
        int32_t *nh = g_new0(int32_t, hcap);
        for (size_t e = 0; e < ev->g_n; e++) {
            size_t at = gkey_hash(ev->gkey + GKEY * e) & (hcap - 1);
            while (nh[at] != 0)
                at = (at + 1) & (hcap - 1);
            nh[at] = (int32_t)(e + 1);
        }
        g_free(ev->ghash);
        ev->ghash = nh;
        ev->g_hcap = hcap;
    }
    size_t at = gkey_hash(key) & (ev->g_hcap - 1);
    for (; ev->ghash[at] != 0; at = (at + 1) & (ev->g_hcap - 1)) {
        const size_t e = (size_t)ev->ghash[at] - 1;
        const double *k = ev->gkey + GKEY * e;
        if (k[0] == key[0] && k[1] == key[1] && k[2] == key[2] && k[3] == key[3] && k[4] == key[4])
            return (int32_t)(e * stride);
    }
    if (ev->g_n == ev->g_cap) {
        ev->g_cap = ev->g_cap ? 2 * ev->g_cap : 64;
        g_assert(ev->g_cap * stride < (size_t)G_MAXINT32);
        ev->gtab = g_renew(double, ev->gtab, ev->g_cap *stride);
        ev->gkey = g_renew(double, ev->gkey, ev->g_cap *GKEY);
    }
    const size_t e = ev->g_n++;
    memcpy(ev->gkey + GKEY * e, key, GKEY * sizeof(double));
    prism_cost_gemm_entry_internal(ev->cm, key[0], key[1], key[2], key[3], key[4],
                                   ev->gtab + e * stride);
    ev->ghash[at] = (int32_t)(e + 1);
    return (int32_t)(e * stride);
}

/* A double's bits (memcpy: no aliasing through another type). */
static inline guint64 dbits(const double *p)
{
    guint64 u;
    memcpy(&u, p, sizeof u);
    return u;
}

/* The id -> offset map of the lanes' key id set (a slot of ev->gmap, reset when the set
 * is new to the evaluator). */
static int32_t *gmap_for(PrismEvaluator *ev, const PrismLanes *lanes)
{
    for (size_t i = 0; i < G_N_ELEMENTS(ev->gmap); i++)
        if (ev->gmap[i].serial == lanes->gkey_serial && ev->gmap[i].n == lanes->n_gkeys)
            return ev->gmap[i].off;
    struct PrismGemmIdMap *m = &ev->gmap[ev->gmap_next];
    ev->gmap_next = (ev->gmap_next + 1) % (uint32_t)G_N_ELEMENTS(ev->gmap);
    if (m->n < lanes->n_gkeys || m->off == NULL) {
        g_free(m->off);
        m->off = g_new(int32_t, lanes->n_gkeys ? lanes->n_gkeys : 1);
    }
    m->serial = lanes->gkey_serial;
    m->n = lanes->n_gkeys;
    for (uint32_t i = 0; i < m->n; i++)
        m->off[i] = -1;
    return m->off;
}

/* The lanes' GEMM-table offsets from their key ids: a MoE lane table's key changes at
 * almost every lane (etp is among the inner dims: DeepSeek-V3 on 256 devices looked up
 * 107 M keys for 109 M lanes), and with tens of thousands of keys in the evaluator's
 * table those hash lookups missed the caches (gtab_fill was 14 % of that plan). With
 * ids, each key of a lane table is looked up once per evaluator. */
static void gtab_fill_ids(PrismEvaluator *ev, const PrismLanes *lanes)
{
    int32_t *restrict map = gmap_for(ev, lanes);
    const uint32_t *restrict id = lanes->gkey_id;
    int32_t *restrict goff = ev->goff;
    for (size_t k = 0; k < lanes->n; k++) {
        const uint32_t i = id[k];
        g_assert(i < lanes->n_gkeys);
        if (G_UNLIKELY(map[i] < 0))
            map[i] = gtab_find(ev, lanes->gkeys + (size_t)GKEY * i);
        goff[k] = map[i];
    }
}

/* The lanes' GEMM-table offsets: runs of equal keys (the search's lane order) share one
 * lookup. A branch-free pass over blocks of lanes marks where a key's bits change (XOR
 * and OR of the five dims as 64-bit words: it vectorises), then one lookup per run
 * (gtab_find compares the values, so a change of bits alone, -0 against +0, only costs
 * a lookup that finds the same entry). Lanes with key ids take gtab_fill_ids instead. */
static void gtab_fill(PrismEvaluator *ev, const PrismLanes *lanes)
{
    if (ev->goff == NULL)
        ev->goff = g_new(int32_t, ev->max_batch);
    if (lanes->gkey_id != NULL && lanes->gkey_serial != 0 && lanes->n_gkeys > 0) {
        gtab_fill_ids(ev, lanes);
        return;
    }
    const size_t n = lanes->n;
    const double *restrict tp = lanes->tp, *restrict cp = lanes->cp, *restrict mbs = lanes->mbs;
    const double *restrict ep = lanes->ep;
    const double *restrict etp = lanes->etp != NULL ? lanes->etp : lanes->tp;
    int32_t *restrict goff = ev->goff;
    enum { BLK = 256 };
    guint64 chg[BLK];
    int32_t o = 0;
    for (size_t b = 0; b < n; b += BLK) {
        const size_t len = n - b < BLK ? n - b : BLK;
        for (size_t i = b == 0 ? 1 : 0; i < len; i++) {
            const size_t k = b + i;
            chg[i] = (dbits(tp + k) ^ dbits(tp + k - 1)) | (dbits(cp + k) ^ dbits(cp + k - 1)) |
                     (dbits(mbs + k) ^ dbits(mbs + k - 1)) | (dbits(ep + k) ^ dbits(ep + k - 1)) |
                     (dbits(etp + k) ^ dbits(etp + k - 1));
        }
        if (b == 0)
            chg[0] = 1;
        for (size_t i = 0; i < len; i++) {
            if (chg[i] != 0) {
                const size_t k = b + i;
                const double key[GKEY] = {tp[k], cp[k], mbs[k], ep[k], etp[k]};
                o = gtab_find(ev, key);
            }
            goff[b + i] = o;
        }
    }
}

/* A zeroed workspace of @p need term arrays: *ws is replaced (and freed when @p owned)
 * only when it holds fewer. */
static void ws_grow(double **ws, size_t *arrays, size_t need, gboolean owned)
{
    if (need <= *arrays)
        return;
    if (owned)
        prism_aligned_free(*ws);
    *ws = prism_aligned_new(need * PRISM_K_TILE, sizeof(double));
    memset(*ws, 0, need * PRISM_K_TILE * sizeof(double));
    *arrays = need;
}

void prism_evaluator_reserve_internal(PrismEvaluator *ev, const PrismCostSegment *seg)
{
    const size_t need = prism_k_ws_arrays(&seg->k);
    if (need <= ev->ws_arrays)
        return;
    /* a borrowed one-lane workspace belongs to its thread: replaced, not freed */
    ws_grow(&ev->ws, &ev->ws_arrays, need, !ev->ws_borrowed);
    ev->ws_borrowed = FALSE;
}

void prism_evaluator_run(PrismEvaluator *ev, const PrismCostSegment *seg, const PrismLanes *lanes,
                         PrismCostOut *out)
{
    prism_evaluator_run_static(ev, seg, lanes, out, NULL);
}

void prism_evaluator_run_static(PrismEvaluator *ev, const PrismCostSegment *seg,
                                const PrismLanes *lanes, PrismCostOut *out, double *stat)
{
    g_return_if_fail(ev != NULL && seg != NULL && lanes != NULL && out != NULL);
    g_return_if_fail(lanes->n <= ev->max_batch);
    if (lanes->n == 0)
        return;
    prism_evaluator_reserve_internal(ev, seg);
    gtab_fill(ev, lanes);
    const PrismKLanes kl = {lanes->tp,
                            lanes->cp,
                            lanes->dp,
                            lanes->ep,
                            lanes->sp,
                            lanes->mbs,
                            lanes->m,
                            lanes->zero,
                            ev->goff,
                            ev->gtab,
                            lanes->etp != NULL ? lanes->etp : lanes->tp,
                            lanes->tp_ov != NULL ? lanes->tp_ov : ev->ones,
                            lanes->dp_ov != NULL ? lanes->dp_ov : ev->ones,
                            lanes->param_ov != NULL ? lanes->param_ov : ev->ones,
                            ev->floors ? 2u
                            : ev->lean ? 1u
                                       : 0u,
                            stat};
    ev->kt->fn(&ev->cm->k, &seg->k, &kl, lanes->n, out->col, ev->ws);
}

void prism_one_lane_fill_internal(const PrismStrategy *s, PrismOneLane *v, PrismLanes *lanes)
{
    v->tp = s->tp;
    v->cp = s->cp;
    v->dp = s->dp;
    v->ep = s->ep;
    v->sp = s->sp;
    v->mbs = s->mbs;
    v->m = s->m;
    v->zero = s->zero;
    v->etp = prism_strategy_etp(s);
    v->fold = prism_strategy_folding(s);
    v->tov = (s->overlap_off & PRISM_OVERLAP_TP) ? 0.0 : 1.0;
    v->dov = (s->overlap_off & PRISM_OVERLAP_DP) ? 0.0 : 1.0;
    v->pov = (s->overlap_off & PRISM_OVERLAP_PARAM) ? 0.0 : 1.0;
    *lanes = (PrismLanes){&v->tp,   &v->cp, &v->dp,  &v->ep,   &v->sp,  &v->mbs, &v->m,
                          &v->zero, 1,      &v->etp, &v->fold, &v->tov, &v->dov, &v->pov,
                          NULL,     NULL,   0,       0,        NULL,    0};
}

/* One-lane evaluations without a caller that keeps the evaluator (prism_cost_eval_one:
 * validate's rows, the searches' reference runs, the tests' brute force) share one
 * workspace per thread, zeroed per call as a fresh one is: a new 64-lane workspace per call
 * (~130 KB for a GPT block segment) is an mmap, its page faults and an munmap under
 * AddressSanitizer's large-block allocator, which made the sanitizer pass's brute-force
 * tests spend as much time in the kernel as in user code. Freed at thread exit. */
typedef struct OneLaneWs {
    double *ws;
    size_t arrays;
} OneLaneWs;

static void one_lane_ws_free(gpointer p)
{
    OneLaneWs *w = p;
    prism_aligned_free(w->ws);
    g_free(w);
}

static GPrivate one_lane_ws_key = G_PRIVATE_INIT(one_lane_ws_free);

static void one_lane_ws_lend(PrismEvaluator *ev, const PrismCostSegment *seg)
{
    OneLaneWs *w = g_private_get(&one_lane_ws_key);
    if (w == NULL) {
        w = g_new0(OneLaneWs, 1);
        g_private_set(&one_lane_ws_key, w);
    }
    const size_t need = prism_k_ws_arrays(&seg->k);
    if (need > w->arrays)
        ws_grow(&w->ws, &w->arrays, need, TRUE); /* zeroed */
    else /* as a fresh one is where one lane reads: the kernels touch lanes [0, n) of each
          * array only (prism_cost_kernel_*'s tile loops), and n is 1 here */
        for (size_t a = 0; a < need; a++)
            w->ws[a * PRISM_K_TILE] = 0.0;
    ev->ws = w->ws;
    ev->ws_arrays = need;
    ev->ws_borrowed = TRUE;
}

gboolean prism_cost_run_one_internal(const PrismCostModel *cm, const PrismStrategy *s,
                                     const PrismLayout *layout, gboolean own_ws,
                                     PrismCostSegment **seg_out, PrismEvaluator **ev_out,
                                     double out[PRISM_COL_COUNT], GError **error)
{
    if (layout == NULL && !prism_strategy_check(s, cm->model, &cm->training, error))
        return FALSE;
    const PrismSegmentKey key = prism_segment_key_of(s);
    g_autoptr(PrismCostSegment) seg =
        layout ? prism_cost_segment_new_layout(cm, &key, layout, TRUE, error)
               : prism_cost_segment_new(cm, &key, TRUE, error);
    if (seg == NULL)
        return FALSE;
    g_autoptr(PrismEvaluator) ev = prism_evaluator_new(cm, prism_kernel_table_scalar_internal(), 1);
    if (!own_ws)
        one_lane_ws_lend(ev, seg);
    PrismOneLane v;
    PrismLanes lanes;
    prism_one_lane_fill_internal(s, &v, &lanes);
    PrismCostOut co;
    for (int c = 0; c < PRISM_COL_COUNT; c++)
        co.col[c] = &out[c];
    prism_evaluator_run(ev, seg, &lanes, &co);
    if (seg_out)
        *seg_out = g_steal_pointer(&seg);
    if (ev_out)
        *ev_out = g_steal_pointer(&ev);
    return TRUE;
}

gboolean prism_cost_eval_one(const PrismCostModel *cm, const PrismStrategy *s,
                             double out[PRISM_COL_COUNT], GError **error)
{
    return prism_cost_run_one_internal(cm, s, NULL, FALSE, NULL, NULL, out, error);
}

gboolean prism_cost_eval_layout(const PrismCostModel *cm, const PrismStrategy *s,
                                const PrismLayout *layout, double out[PRISM_COL_COUNT],
                                GError **error)
{
    g_return_val_if_fail(layout != NULL, FALSE);
    return prism_cost_run_one_internal(cm, s, layout, FALSE, NULL, NULL, out, error);
}

gboolean prism_cost_layer_terms(const PrismCostModel *cm, const PrismStrategy *s, uint32_t layer,
                                PrismLayerTerms *out, GError **error)
{
    if (layer >= cm->model->n_layers) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "layer %u is out of range (model '%s' has %u layers)", layer, cm->model->name,
                    cm->model->n_layers);
        return FALSE;
    }
    memset(out, 0, sizeof *out);
    uint32_t kind;
    const PrismLayerKind lk = cm->model->layers[layer].kind;
    if (lk == PRISM_LAYER_FINAL_NORM)
        return TRUE;
    if (lk == PRISM_LAYER_EMBEDDING) {
        kind = cm->kind_emb;
    } else if (lk == PRISM_LAYER_HEAD) {
        kind = cm->model->tied_embeddings && s->pp == 1 ? cm->kind_head_tied : cm->kind_head;
    } else {
        uint32_t q = 0;
        for (uint32_t i = 0; i < layer; i++)
            q += cm->model->layers[i].kind == PRISM_LAYER_BLOCK ||
                 cm->model->layers[i].kind == PRISM_LAYER_MTP;
        kind = cm->layer_kind[q];
    }
    /* A one-stage segment holding the kind in each recompute mode. */
    const PrismKSlot slots[3] = {
        {kind, PRISM_K_RC_NONE}, {kind, PRISM_K_RC_SELECTIVE}, {kind, PRISM_K_RC_FULL}};
    const double count[3] = {1.0, 0.0, 0.0}, mult[1] = {1.0}, moe[1] = {0.0};
    const double w_a[3] = {1.0, 0.0, 0.0}, w_0[3] = {0.0, 0.0, 0.0}, stage[1] = {0.0};
    const uint32_t cand_comp[1] = {0};
    const uint8_t full[3] = {0, 0, 0};
    PrismCostSegment seg;
    memset(&seg, 0, sizeof seg);
    seg.k = (PrismKSegment){.pp = 1,
                            .vpp = 1,
                            .inv_vpp = 1,
                            .bub_sum = 1,
                            .bub_scale = 1,
                            .m_share = 1,
                            .work_scale = 1,
                            .pp_msgs = 1,
                            .inv_pp = 1,
                            .devices = s->devices ? s->devices : 1,
                            .n_slots = 3,
                            .detail = 1,
                            .n_comp = 1,
                            .n_cand = 1,
                            .slots = slots,
                            .count = count,
                            .mult = mult,
                            .comp_moe = moe,
                            .cand_comp = cand_comp,
                            .cand_stage = stage,
                            .w_a = w_a,
                            .w_b = w_0,
                            .w_cap = w_0,
                            .w_mid = w_0,
                            .w_one = w_a, /* m * w_a >= w_a: never binds */
                            .m_cap = -1.0,
                            .m_mid = -1.0,
                            .cand_work = full,
                            .mfu_num = 1,
                            .hfu_num = 1};
    g_autoptr(PrismEvaluator) ev = prism_evaluator_new(cm, prism_kernel_table_scalar_internal(), 1);
    PrismOneLane v;
    PrismLanes lanes;
    prism_one_lane_fill_internal(s, &v, &lanes);
    double col[PRISM_COL_COUNT];
    PrismCostOut co;
    for (int c = 0; c < PRISM_COL_COUNT; c++)
        co.col[c] = &col[c];
    prism_evaluator_run(ev, &seg, &lanes, &co);
#define SLOT(q, k)                                                                                 \
    (ev->ws[((size_t)PRISM_KL_COUNT + (size_t)(q)*PRISM_KS_COUNT + (k)) * PRISM_K_TILE])
    out->params_bytes = SLOT(0, PRISM_KS_PARAMS);
    out->grads_bytes = SLOT(0, PRISM_KS_GRADS);
    out->optimizer_bytes = SLOT(0, PRISM_KS_OPT);
    for (int md = 0; md < 3; md++) {
        out->act_bytes[md] = SLOT(md, PRISM_KS_ACT);
        out->recompute_s[md] = SLOT(md, PRISM_KS_RC_TIME);
        out->fsdp_s[md] = SLOT(md, PRISM_KS_DP_FS);
        out->fsdp_lead_s[md] = SLOT(md, PRISM_KS_DP_TAIL);
    }
    out->work_bytes = SLOT(2, PRISM_KS_EXTRA);
    out->fwd_s = SLOT(0, PRISM_KS_FWD);
    out->bwd_s = SLOT(0, PRISM_KS_BWD);
    out->flops_fwd = SLOT(0, PRISM_KS_FLOPS) / (1.0 + cm->k.bwd_ratio);
    out->opt_step_s = SLOT(0, PRISM_KS_OPT_STEP);
    out->wgrad_s = SLOT(0, PRISM_KS_WGRAD);
    out->gather_bytes = SLOT(0, PRISM_KS_GATHER);
#undef SLOT
    return TRUE;
}

/* ---- memory as each source measures it (cost_memory.c has the allocator's setup): here
 * because the gather pool prices layer kinds with prism_cost_layer_terms ---- */

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

/* Freed TP collective inputs that NCCL's recordStream keeps out of reuse while the host
 * runs ahead (knob tp_freed_inputs; cost/README.md, "Memory as each source measures it"),
 * bytes: tp_freed_inputs x launch_queue over a layer's launches, x T x h x bytes, at tp > 1
 * on one stage or where the pipeline's transfers leave the host free; 0 with no launches
 * counted. */
static double rs_pending(const PrismCostModel *cm, const PrismStrategy *s)
{
    const double *kn = cm->knobs.v;
    const double freed = kn[PRISM_KNOB_TP_FREED_INPUTS];
    const gboolean pipe_free = s->pp == 1 || !(kn[PRISM_KNOB_PP_P2P_HOST_SYNCS] > 0.0 ||
                                               kn[PRISM_KNOB_PP_TP_PARTITIONED] > 0.5);
    if (!(freed > 0.0) || s->tp < 2 || !pipe_free)
        return 0.0;
    double launches = kn[PRISM_KNOB_LAYER_KERNELS_FWD] + kn[PRISM_KNOB_LAYER_KERNELS_BWD];
    if (s->sp)
        launches += kn[PRISM_KNOB_LAYER_KERNELS_SP_FWD] + kn[PRISM_KNOB_LAYER_KERNELS_SP_BWD];
    if (!(launches > 0.0))
        return 0.0;
    const double tokens = (double)s->mbs * cm->k.seq / (double)s->cp;
    return freed * kn[PRISM_KNOB_LAUNCH_QUEUE] / launches * tokens * cm->k.hidden_bytes;
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
    out->nccl = k->nccl_group * prism_cost_communicators_internal(s);
    /* the kernel's arithmetic, in its order (k_final: fixed = mem_fixed + NCCL + pool):
     * the same bits as its verdict */
    out->device = res + (k->mem_fixed + out->nccl + out->gather_pool);
    /* the held inputs on top, up to the budget: the allocator syncs their events and frees
     * them before it fails an allocation (synchronize_and_free_events), so they never
     * decide the verdict, which stays the kernels' (device <= budget exactly when the
     * figure without them is) */
    const double room = k->budget - out->device;
    const double held = rs_pending(cm, s);
    out->tp_pending = room > 0.0 ? (held < room ? held : room) : 0.0;
    if (out->tp_pending > 0.0) {
        out->reserved += out->tp_pending;
        out->device = out->device + out->tp_pending;
        if (out->device > k->budget) /* one rounding step over at the cap */
            out->device = k->budget;
    }
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
    return (k->budget -
            (k->mem_fixed + k->nccl_group * prism_cost_communicators_internal(s) + pool)) /
           k->mem_scale;
}
