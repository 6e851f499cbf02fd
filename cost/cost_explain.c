// SPDX-License-Identifier: MIT
/*
 * cost_explain.c - the data of `prism explain` (explain.h): one strategy evaluated on an
 * all-stages segment, its kernel workspace read back as named terms, its stages,
 * compositions and slots, and each layer kind's GEMMs with their why. The CLI renders it
 * (src/app/render_explain.c).
 *
 * The values come from a one-lane run of the scalar kernel: the same arithmetic the
 * search uses, read back from the kernel's workspace, so explain and the landscape agree
 * exactly. Nothing here is collective.
 */
#include <prism/explain.h>

#include <string.h>

#include <prism/core.h>

#include "cost-internal.h"
#include "kernels/kernels-gemm.h"
#include "cost-terms.h"

struct PrismExplain {
    const PrismCostModel *cm;
    PrismStrategy s;
    PrismCostSegment *seg;
    PrismEvaluator *ev;
    double col[PRISM_COL_COUNT];
    uint32_t kinds[256]; /* the GEMM kinds of the segment, each once, in slot order */
    uint32_t n_kinds;
};

/* Kinds present in the segment, each once, in slot order. */
static uint32_t segment_kinds(const PrismCostModel *cm, const PrismKSegment *ks, uint32_t *out)
{
    uint32_t n = 0;
    for (uint32_t q = 0; q < ks->n_slots; q++) {
        gboolean seen = FALSE;
        for (uint32_t j = 0; j < n; j++)
            seen = seen || out[j] == ks->slots[q].kind;
        if (!seen && cm->kinds[ks->slots[q].kind].n_gemm > 0)
            out[n++] = ks->slots[q].kind;
    }
    return n;
}

/* With @p own_ws the explanation owns its workspace; without, it borrows the thread's
 * one-lane workspace and must be read before the thread prices anything else. */
static PrismExplain *explain_new(const PrismCostModel *cm, const PrismStrategy *s,
                                 const PrismLayout *layout, gboolean own_ws, GError **error)
{
    PrismExplain *ex = g_new0(PrismExplain, 1);
    ex->cm = cm;
    ex->s = *s;
    if (!prism_cost_run_one_internal(cm, s, layout, own_ws, &ex->seg, &ex->ev, ex->col, error)) {
        prism_explain_free(ex);
        return NULL;
    }
    ex->n_kinds = segment_kinds(cm, &ex->seg->k, ex->kinds);
    return ex;
}

PrismExplain *prism_explain_new(const PrismCostModel *cm, const PrismStrategy *s,
                                const PrismLayout *layout, GError **error)
{
    /* its own workspace: the caller renders from it and may price again meanwhile */
    return explain_new(cm, s, layout, TRUE, error);
}

void prism_explain_free(PrismExplain *ex)
{
    if (ex == NULL)
        return;
    prism_cost_segment_free(ex->seg);
    prism_evaluator_free(ex->ev);
    g_free(ex);
}

const PrismCostModel *prism_explain_cost_model(const PrismExplain *ex)
{
    return ex->cm;
}

const PrismStrategy *prism_explain_strategy(const PrismExplain *ex)
{
    return &ex->s;
}

const PrismLayout *prism_explain_layout(const PrismExplain *ex)
{
    return ex->seg->layout;
}

const double *prism_explain_cols(const PrismExplain *ex)
{
    return ex->col;
}

double prism_explain_term(const PrismExplain *ex, PrismTermLevel level, unsigned index, unsigned i)
{
    return prism_term_value_internal(ex->ev->ws, &ex->seg->k, level, index, i)[0];
}

uint32_t prism_explain_n_slots(const PrismExplain *ex)
{
    return ex->seg->k.n_slots;
}

const char *prism_explain_slot_kind(const PrismExplain *ex, uint32_t q)
{
    return ex->cm->kind_name[ex->seg->k.slots[q].kind];
}

PrismRecompute prism_explain_slot_recompute(const PrismExplain *ex, uint32_t q)
{
    return (PrismRecompute)ex->seg->k.slots[q].mode;
}

uint32_t prism_explain_n_comps(const PrismExplain *ex)
{
    return ex->seg->k.n_comp;
}

double prism_explain_comp_stages(const PrismExplain *ex, uint32_t c)
{
    return ex->seg->k.mult[c];
}

double prism_explain_comp_layers(const PrismExplain *ex, uint32_t c, uint32_t q)
{
    const PrismKSegment *ks = &ex->seg->k;
    return ks->count[(size_t)c * ks->n_slots + q];
}

uint32_t prism_explain_n_chunks(const PrismExplain *ex)
{
    return ex->seg->nch;
}

/* The candidate of stage @p s with the largest total (first on ties). */
static uint32_t stage_peak_cand(const PrismCostSegment *seg, const double *ws, uint32_t s)
{
    const PrismKSegment *ks = &seg->k;
    uint32_t best = seg->stage_cand[s];
    for (uint32_t d = best; d < ks->n_cand && ks->cand_stage[d] == (double)s; d++)
        if (prism_term_value_internal(ws, ks, PRISM_TERM_CAND, d, PRISM_KD_TOTAL)[0] >
            prism_term_value_internal(ws, ks, PRISM_TERM_CAND, best, PRISM_KD_TOTAL)[0])
            best = d;
    return best;
}

void prism_explain_stage(const PrismExplain *ex, uint32_t st, PrismExplainStage *out)
{
    const PrismCostSegment *seg = ex->seg;
    const uint32_t c = seg->stage_comp[st], d = stage_peak_cand(seg, ex->ev->ws, st);
#define COMP(t) prism_explain_term(ex, PRISM_TERM_COMP, c, t)
#define CAND(t) prism_explain_term(ex, PRISM_TERM_CAND, d, t)
    *out = (PrismExplainStage){.comp = c,
                               .cand = d,
                               .states = seg->stage_states[st],
                               .params = COMP(PRISM_KC_PARAMS),
                               .grads = COMP(PRISM_KC_GRADS),
                               .optimizer = COMP(PRISM_KC_OPT),
                               .activations = CAND(PRISM_KD_ACT),
                               .buffers = COMP(PRISM_KC_BUFFERS),
                               .total = CAND(PRISM_KD_TOTAL),
                               .time = COMP(PRISM_KC_TIME),
                               .dp_comm = COMP(PRISM_KC_DP),
                               .host = CAND(PRISM_KD_HOST),
                               .transfer = COMP(PRISM_KC_XFER)};
#undef COMP
#undef CAND
}

double prism_explain_inflight(const PrismExplain *ex, uint32_t st, uint32_t c)
{
    const PrismCostSegment *seg = ex->seg;
    const double m = (double)ex->s.m;
    const size_t at = (size_t)st * seg->nch + c;
    if (seg->mu_b[at] > 0) /* GPipe: mu_b x m, all of the step's micro-batches */
        return seg->mu_b[at] * m;
    return MIN(seg->mu_a[at], m);
}

void prism_explain_model(const PrismExplain *ex, PrismExplainModel *out)
{
    const PrismKModel *k = &ex->cm->k;
    *out = (PrismExplainModel){.tp_exposed = k->tp_exposed,
                               .tp_exposed_b = k->tp_exposed_b,
                               .ub_bytes = k->ub_bytes,
                               .inv_rate_bf16 = k->inv_rate_bf16,
                               .inv_rate = k->inv_rate,
                               .inv_hbm = k->inv_hbm,
                               .core_fwd_inv = k->core_fwd_inv,
                               .exec_core = ex->cm->exec_core,
                               .quant = k->gdev.quant > 0.5,
                               .shared_overlap = k->shared_overlap > 0.5};
}

uint32_t prism_explain_n_kinds(const PrismExplain *ex)
{
    return ex->n_kinds;
}

void prism_explain_kind(const PrismExplain *ex, uint32_t i, PrismExplainKind *out)
{
    const PrismKSegment *ks = &ex->seg->k;
    const uint32_t kind = ex->kinds[i];
    *out =
        (PrismExplainKind){.name = ex->cm->kind_name[kind], .n_gemm = ex->cm->kinds[kind].n_gemm};
    /* the attention core and the casts: the kernel's own terms of the first slot */
    for (uint32_t q = 0; q < ks->n_slots; q++)
        if (ks->slots[q].kind == kind) {
            const double *sw =
                ex->ev->ws + ((size_t)PRISM_KL_COUNT + (size_t)q * PRISM_KS_COUNT) * PRISM_K_TILE;
            out->core_s =
                sw[PRISM_KS_CORE_FWD * PRISM_K_TILE] + sw[PRISM_KS_CORE_BWD * PRISM_K_TILE];
            out->cast_s =
                sw[PRISM_KS_FP8_CAST * PRISM_K_TILE] + sw[PRISM_KS_FP8_CAST_BWD * PRISM_K_TILE];
            break;
        }
}

/* ---- the GEMM table: each kind's GEMMs, their shapes, efficiencies and why ---- */

/* The three passes of one GEMM of @p kind for strategy @p s, with their why (the same
 * functions and inputs as the evaluator's table, so the seconds are the kernel's). */
static void gemm_passes(const PrismCostModel *cm, uint32_t kind, uint32_t q, const PrismStrategy *s,
                        PrismGemmShape *g, PrismKGemmWhy w[3])
{
    prism_cost_gemm_shape_internal(cm, kind, q, s->tp, s->cp, s->mbs, s->ep, prism_strategy_etp(s),
                                   g);
    const PrismKGemmDev *d = &cm->k.gdev;
    const double mk = g->M * g->K * g->count, kn = g->K * g->N * g->count;
    const double mn = g->M * g->N * g->count, ib = g->in_bytes;
    prism_k_gemm_why(d, g->M, g->N, g->K, g->count, g->inv_rate, ib * (mk + kn) + 2.0 * mn, g->peak,
                     &w[0]);
    prism_k_gemm_why(d, g->M, g->K, g->N, g->count, g->inv_rate, ib * (mn + kn) + 2.0 * mk, g->peak,
                     &w[1]);
    prism_k_gemm_why(d, g->K, g->N, g->M, g->count, g->inv_rate, ib * (mk + mn) + 2.0 * kn, g->peak,
                     &w[2]);
}

void prism_explain_gemm(const PrismExplain *ex, uint32_t i, uint32_t q, PrismExplainGemm *out)
{
    const PrismKKind *K = &ex->cm->kinds[ex->kinds[i]];
    PrismGemmShape g;
    PrismKGemmWhy w[3];
    gemm_passes(ex->cm, ex->kinds[i], q, &ex->s, &g, w);
    *out = (PrismExplainGemm){.name = K->gemm[q].name,
                              .low = K->gemm[q].low > 0.5,
                              .shared = K->gemm[q].shared > 0.5,
                              .M = g.M,
                              .N = g.N,
                              .K = g.K,
                              .count = g.count};
    for (int p = 0; p < 3; p++)
        out->pass[p] = (PrismExplainPass){.tile_m = w[p].tile_m,
                                          .tile_n = w[p].tile_n,
                                          .tiles = w[p].tiles,
                                          .waves = w[p].waves,
                                          .wave_eff = w[p].wave_eff,
                                          .tile_eff = w[p].tile_eff,
                                          .t_compute = w[p].t_compute,
                                          .t_memory = w[p].t_memory,
                                          .seconds = w[p].seconds,
                                          .efficiency = w[p].efficiency};
}

gboolean prism_cost_stage_peaks(const PrismCostModel *cm, const PrismStrategy *s,
                                const PrismLayout *layout, double *out, double *persistent,
                                GError **error)
{
    /* the thread's workspace: read below before anything is priced again */
    g_autoptr(PrismExplain) ex = explain_new(cm, s, layout, FALSE, error);
    if (ex == NULL)
        return FALSE;
    /* the total of each stage's largest candidate, as explain's memory table prints it */
    for (uint32_t st = 0; st < ex->seg->layout->pp; st++) {
        PrismExplainStage sd;
        prism_explain_stage(ex, st, &sd);
        out[st] = sd.total;
        if (persistent != NULL)
            persistent[st] = sd.params + sd.grads + sd.optimizer;
    }
    return TRUE;
}
