// SPDX-License-Identifier: MIT
/*
 * cost_stages.c - stage aggregation: layouts, in-flight micro-batches per schedule,
 * compositions and memory candidates (a PrismCostSegment).
 *
 * Stage s, model chunk c holds the layers of virtual chunk j = c*pp + s. In-flight
 * micro-batches per (stage, chunk):
 *   pp = 1          1 (gradient accumulation: one micro-batch at a time)
 *   1F1B, ZB-H1     min(pp - s, m) (Narayanan et al. 2021: the warm-up runs pp - s - 1
 *                   forwards, or all m when m < pp; ZB-H1 keeps 1F1B's peak, Qi et al. 2024)
 *   GPipe           m (every forward before any backward)
 *   interleaved     the first min(U_s, m*vpp) forward units of Megatron's schedule,
 *                   U_s = 2(pp-s-1) + (vpp-1)pp + 1, unit u in chunk (u / pp) % vpp
 *                   (m is a multiple of pp, so the minimum binds only when m == pp)
 *   ZB-V            chunks s and 2pp-1-s: (2pp-1-s, s+1) or (2pp-s, s) (m >= 2pp)
 *   DualPipeV       chunks s and 2pp-1-s: (2pp-s, s+1) (m >= 2pp)
 *   DualPipe        stages s and pp-1-s of the two directions: (pp-s, s+1) (m >= 2pp)
 *   seq1F1B         (pp - s + k - 1)/k micro-batches (k sequence chunks each)
 * Every schedule holds at most m micro-batches of a chunk, so the kernel takes
 * min(W, m x w_one), w_one = the stage's layers of one micro-batch: exact for 1F1B/ZB-H1
 * with m < pp, and never binding otherwise (W <= m w_one there, so the value is W bit for
 * bit). Candidates: a stage is dropped when an earlier stage of the same composition has at
 * least its in-flight weight for every slot (then its total is never smaller, and the
 * first maximum is kept either way), so the max over candidates equals the max over all
 * stages bit for bit. Nothing here is collective.
 */
#include <prism/cost.h>

#include <string.h>

#include <prism/core.h>

#include "cost-internal.h"

PrismLayout *prism_layout_new(uint32_t pp, uint32_t vpp, uint32_t n_layers)
{
    PrismLayout *l = g_new0(PrismLayout, 1);
    l->pp = pp;
    l->vpp = vpp;
    l->n_layers = n_layers;
    l->chunk_layers = g_new0(uint32_t, (size_t)pp * vpp);
    l->layer_rc = g_new0(uint8_t, n_layers ? n_layers : 1);
    return l;
}

void prism_layout_free(PrismLayout *layout)
{
    if (layout == NULL)
        return;
    g_free(layout->chunk_layers);
    g_free(layout->layer_rc);
    g_free(layout);
}

PrismLayout *prism_layout_copy(const PrismLayout *layout)
{
    PrismLayout *l = prism_layout_new(layout->pp, layout->vpp, layout->n_layers);
    memcpy(l->chunk_layers, layout->chunk_layers,
           (size_t)layout->pp * layout->vpp * sizeof *l->chunk_layers);
    memcpy(l->layer_rc, layout->layer_rc, layout->n_layers);
    return l;
}

PrismLayout *prism_layout_default(const PrismCostModel *cm, const PrismSegmentKey *key,
                                  GError **error)
{
    const uint32_t L = cm->n_split, pp = key->pp, vpp = key->vpp;
    const uint64_t C = (uint64_t)pp * vpp;
    if (pp == 0 || vpp == 0 || C > L) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_SHAPE,
                    "R6: pp*vpp=%u*%u must be between 1 and the %u layers", pp, vpp, L);
        return NULL;
    }
    PrismLayout *l = prism_layout_new(pp, vpp, L);
    const uint32_t base = (uint32_t)(L / C), rem = (uint32_t)(L % C);
    for (uint32_t j = 0; j < C; j++) {
        /* extras to chunks 1..rem; the last chunk only when rem == C - 1 */
        gboolean extra = rem > 0 && j >= 1 && j <= rem;
        l->chunk_layers[j] = base + (extra ? 1u : 0u);
    }
    prism_layout_set_recompute(l, (PrismRecompute)key->recompute, key->rc_layers);
    return l;
}

PrismLayout *prism_layout_by_cost(const double *block_cost, uint32_t n_blocks, double head_cost,
                                  uint32_t pp)
{
    if (pp == 0)
        return NULL;
    double total = head_cost;
    for (uint32_t i = 0; i < n_blocks; i++)
        total += block_cost[i];
    PrismLayout *l = prism_layout_new(pp, 1, n_blocks);
    double cum = 0; /* the embedding costs 0 and sits on stage 0 */
    uint32_t s = 0;
    for (uint32_t i = 0; i < n_blocks; i++) {
        cum += block_cost[i];
        l->chunk_layers[s]++; /* placed, then the next block may move on */
        if (s + 1 < pp && cum >= total * ((double)(s + 1) / pp))
            s++;
    }
    return l;
}

PrismLayout *prism_layout_nanotron(const PrismModel *model, uint32_t pp)
{
    g_autofree double *cost = g_new0(double, model->n_layers);
    uint32_t n = 0;
    const double h = (double)model->hidden;
    for (uint32_t i = 0; i < model->n_layers; i++) {
        const PrismLayer *ly = &model->layers[i];
        if (ly->kind == PRISM_LAYER_MTP)
            return NULL;
        if (ly->kind != PRISM_LAYER_BLOCK)
            continue;
        const PrismBlockSpec *b = &model->specs[ly->spec];
        if (b->mixer != PRISM_MIXER_ATTENTION || b->no_mlp || b->mlp.n_experts > 0)
            return NULL;
        cost[n++] =
            4.0 * b->attn.n_heads * b->attn.head_dim * h + 3.0 * (double)b->mlp.ffn_hidden * h;
    }
    return prism_layout_by_cost(cost, n, (double)model->vocab * h, pp);
}

void prism_layout_set_recompute(PrismLayout *l, PrismRecompute recompute, uint32_t rc_layers)
{
    uint32_t at = 0;
    for (uint32_t j = 0; j < l->pp * l->vpp; j++) {
        for (uint32_t q = 0; q < l->chunk_layers[j] && at < l->n_layers; q++, at++) {
            uint8_t rc;
            switch (recompute) {
            case PRISM_RECOMPUTE_BLOCK:
                rc = q < rc_layers ? PRISM_RECOMPUTE_FULL : PRISM_RECOMPUTE_NONE;
                break;
            case PRISM_RECOMPUTE_SELECTIVE:
            case PRISM_RECOMPUTE_FULL:
                rc = (uint8_t)recompute;
                break;
            default:
                rc = PRISM_RECOMPUTE_NONE;
                break;
            }
            l->layer_rc[at] = rc;
        }
    }
}

/*
 * The in-flight states of stage s under Megatron's interleaved order with m micro-batches:
 * warm-up W = min(2(pp-s-1) + (vpp-1)pp, m vpp) forwards, then (forward, backward) pairs,
 * then backwards; forward unit k runs chunk (k mod pp vpp)/pp, backward unit k chunk
 * vpp-1-(k mod pp vpp)/pp. Appends the per-chunk in-flight vector after every forward
 * (the moments a peak can occur) to @p out (vpp doubles per state).
 */
static void interleaved_states(uint32_t pp, uint32_t vpp, uint32_t s, uint64_t m, GArray *out)
{
    const uint64_t total = m * vpp, period = (uint64_t)pp * vpp;
    const uint64_t warm = MIN(2ull * (pp - s - 1) + (uint64_t)(vpp - 1) * pp, total);
    double *cur = g_new0(double, vpp);
    uint64_t f = 0, b = 0;
    while (f < total) {
        cur[(f % period) / pp] += 1.0;
        f++;
        if (f > warm || f == total)
            g_array_append_vals(out, cur, vpp);
        if (f > warm) {
            cur[vpp - 1 - (b % period) / pp] -= 1.0;
            b++;
        }
    }
    g_free(cur);
}

/* x >= y elementwise over n doubles */
static gboolean dominates(const double *x, const double *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(x[i] >= y[i]))
            return FALSE;
    return TRUE;
}

/* Keep the states (rows of ns doubles) that no earlier kept state dominates. */
static GArray *prune_states(GArray *w, size_t ns)
{
    GArray *keep = g_array_new(FALSE, FALSE, sizeof(double));
    const size_t n = w->len / ns;
    for (size_t i = 0; i < n; i++) {
        const double *x = &g_array_index(w, double, i *ns);
        gboolean dom = FALSE;
        for (size_t k = 0; k < keep->len / ns && !dom; k++)
            dom = dominates(&g_array_index(keep, double, k *ns), x, ns);
        if (!dom)
            g_array_append_vals(keep, x, ns);
    }
    return keep;
}

static uint32_t slot_of(GArray *slots, uint32_t kind, uint32_t mode)
{
    for (guint i = 0; i < slots->len; i++) {
        const PrismKSlot *s = &g_array_index(slots, PrismKSlot, i);
        if (s->kind == kind && s->mode == mode)
            return i;
    }
    PrismKSlot n = {.kind = kind, .mode = mode};
    g_array_append_val(slots, n);
    return slots->len - 1;
}

static gboolean check_layout(const PrismCostModel *cm, const PrismSegmentKey *key,
                             const PrismLayout *l, GError **error)
{
    if (l->pp != key->pp || l->vpp != key->vpp || l->pp == 0 || l->vpp == 0) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "layout pp=%u vpp=%u does not match the strategy (pp=%u vpp=%u)", l->pp, l->vpp,
                    key->pp, key->vpp);
        return FALSE;
    }
    if (l->n_layers != cm->n_split) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "layout has %u layers; model '%s' has %u (blocks + MTP)", l->n_layers,
                    cm->model->name, cm->n_split);
        return FALSE;
    }
    uint64_t sum = 0;
    for (uint32_t j = 0; j < l->pp * l->vpp; j++)
        sum += l->chunk_layers[j];
    if (sum != l->n_layers) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "layout chunks hold %" G_GUINT64_FORMAT " layers; the model has %u", sum,
                    l->n_layers);
        return FALSE;
    }
    for (uint32_t i = 0; i < l->n_layers; i++)
        if (l->layer_rc[i] > PRISM_RECOMPUTE_FULL) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                        "layout layer %u: recompute code %u (allowed none, selective, full)", i,
                        (unsigned)l->layer_rc[i]);
            return FALSE;
        }
    if (key->offload >= PRISM_OFFLOAD_COUNT) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "segment key: offload %u invalid (allowed 0..3)", (unsigned)key->offload);
        return FALSE;
    }
    if (key->schedule >= PRISM_SCHEDULE_COUNT || key->devices == 0) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "segment key: schedule %u / devices %u invalid", (unsigned)key->schedule,
                    key->devices);
        return FALSE;
    }
    return TRUE;
}

/* Assign the memory slots (kind, recompute mode) stage by stage, chunk by chunk (a
 * deterministic slot order), and count each slot per (stage, chunk) into *cnt
 * [(s * nch + c) * ns + slot] and per stage into *tot [s * ns + slot], the stage's chunks
 * given by prism_stage_chunk (nch per stage). Returns ns. */
static uint32_t count_slots(const PrismCostModel *cm, const PrismLayout *layout, uint32_t schedule,
                            GArray *slots, double **cnt, double **tot)
{
    const uint32_t pp = layout->pp, vpp = prism_stage_chunks(schedule, layout->vpp);
    const uint32_t C = pp * layout->vpp;
    const gboolean tied = cm->model->tied_embeddings;
    const uint32_t head = tied && pp == 1 ? cm->kind_head_tied : cm->kind_head;
    uint32_t *first = g_new(uint32_t, C + 1);
    first[0] = 0;
    for (uint32_t j = 0; j < C; j++)
        first[j + 1] = first[j] + layout->chunk_layers[j];
    /* one list per (stage, chunk): DualPipe places every virtual chunk on two stages */
    GArray **lists = g_new0(GArray *, (size_t)pp * vpp);
    for (uint32_t s = 0; s < pp; s++)
        for (uint32_t c = 0; c < vpp; c++) {
            const uint32_t j = prism_stage_chunk(schedule, pp, s, c);
            GArray *lj = lists[(size_t)s * vpp + c] = g_array_new(FALSE, FALSE, sizeof(uint32_t));
            if (j == 0) {
                uint32_t id = slot_of(slots, cm->kind_emb, PRISM_K_RC_NONE);
                g_array_append_val(lj, id);
            }
            for (uint32_t q = first[j]; q < first[j + 1]; q++) {
                uint32_t id = slot_of(slots, cm->layer_kind[q], layout->layer_rc[q]);
                g_array_append_val(lj, id);
            }
            if (j == C - 1) {
                uint32_t id = slot_of(slots, head, PRISM_K_RC_NONE);
                g_array_append_val(lj, id);
            }
        }
    const uint32_t ns = slots->len;
    *cnt = g_new0(double, (size_t)pp *vpp *ns);
    *tot = g_new0(double, (size_t)pp *ns);
    for (uint32_t st = 0; st < pp; st++)
        for (uint32_t c = 0; c < vpp; c++) {
            const GArray *lj = lists[(size_t)st * vpp + c];
            for (guint q = 0; q < lj->len; q++) {
                const uint32_t id = g_array_index(lj, uint32_t, q);
                (*cnt)[((size_t)st * vpp + c) * ns + id] += 1.0;
                (*tot)[(size_t)st * ns + id] += 1.0;
            }
        }
    for (size_t j = 0; j < (size_t)pp * vpp; j++)
        g_array_free(lists[j], TRUE);
    g_free(lists);
    g_free(first);
    return ns;
}

/* Group the stages into compositions (distinct per-stage slot totals, in stage order):
 * fills seg->count, mult, comp_moe and stage_comp. Returns the number of compositions. */
static uint32_t group_compositions(const PrismCostModel *cm, const GArray *slots, const double *tot,
                                   uint32_t pp, uint32_t ns, PrismCostSegment *seg)
{
    seg->stage_comp = g_new(uint32_t, pp);
    seg->count = g_new0(double, (size_t)pp *ns);
    seg->mult = g_new0(double, pp);
    seg->comp_moe = g_new0(double, pp);
    seg->comp_step_host = g_new0(double, pp);
    const double *kn = cm->knobs.v;
    /* step_layer_syncs: each layer's share of the optimizer step's host synchronisations */
    const double sync_s = kn[PRISM_KNOB_STEP_LAYER_SYNCS] *
                          (kn[PRISM_KNOB_LAUNCH_US] + kn[PRISM_KNOB_HOST_SYNC_US]) * 1e-6;
    const double step_sync_s = kn[PRISM_KNOB_STEP_HOST_SYNCS] *
                               (kn[PRISM_KNOB_LAUNCH_US] + kn[PRISM_KNOB_HOST_SYNC_US]) * 1e-6;
    uint32_t nc = 0;
    for (uint32_t st = 0; st < pp; st++) {
        uint32_t c = 0;
        while (c < nc &&
               memcmp(&seg->count[(size_t)c * ns], &tot[(size_t)st * ns], ns * sizeof(double)) != 0)
            c++;
        if (c == nc) {
            memcpy(&seg->count[(size_t)c * ns], &tot[(size_t)st * ns], ns * sizeof(double));
            for (uint32_t q = 0; q < ns; q++)
                if (tot[(size_t)st * ns + q] > 0 &&
                    cm->kinds[g_array_index(slots, PrismKSlot, q).kind].is_moe > 0)
                    seg->comp_moe[c] = 1.0;
            for (uint32_t q = 0; q < ns; q++)
                seg->comp_step_host[c] +=
                    tot[(size_t)st * ns + q] *
                    cm->kinds[g_array_index(slots, PrismKSlot, q).kind].is_layer * sync_s;
            /* step_host_syncs: the stage's once-per-step host synchronisations */
            seg->comp_step_host[c] += step_sync_s;
            nc++;
        }
        seg->mult[c] += 1.0;
        seg->stage_comp[st] = c;
    }
    return nc;
}

/* The in-flight micro-batches per model chunk of stage st (vpp doubles per state, the
 * stage's chunks as prism_stage_chunk orders them) under the key's schedule in regime r
 * (0: m >= 3pp, 1: m = pp, 2: m = 2pp; only interleaved tells them apart). @p k is
 * seq1F1B's sequence chunks per micro-batch. The counts are the schedule's registry row
 * (registry.h, PrismInflight); interleaved's are a walk of Megatron's order. The
 * derivations are in cost/README.md ("In-flight micro-batches"). */
static void schedule_states(const PrismSegmentKey *key, uint32_t pp, uint32_t vpp, uint32_t st,
                            int r, double k, GArray *mu)
{
    const PrismScheduleInfo *si = prism_schedule_info(key->schedule);
    if (si->n_states == 0) {
        static const uint64_t mult_of_pp[3] = {3, 1, 2};
        interleaved_states(pp, vpp, st, mult_of_pp[r] * pp, mu);
        return;
    }
    const double p = (double)pp, s = (double)st;
    const uint32_t n = MIN(si->n_states * vpp, (uint32_t)G_N_ELEMENTS(si->states));
    for (uint32_t i = 0; i < n; i++) {
        const PrismInflight *f = &si->states[i];
        const double v = f->p_ * p + f->s_ * s + f->k_ * k + f->one;
        const double a = f->per_k ? v / k : v;
        g_array_append_val(mu, a);
    }
}

/* Record stage st's regime-0 in-flight counts per chunk in seg->mu_a (weight a) or, for
 * a schedule that holds m micro-batches (GPipe) with pp > 1, seg->mu_b (weight b). */
static void record_inflight(PrismCostSegment *seg, const PrismSegmentKey *key, uint32_t pp,
                            uint32_t vpp, uint32_t st, const GArray *mu)
{
    const gboolean holds_m = prism_schedule_info(key->schedule)->holds_m && pp > 1;
    for (uint32_t c = 0; c < vpp; c++) {
        const double u = g_array_index(mu, double, c);
        seg->mu_a[st * vpp + c] = holds_m ? 0.0 : u;
        seg->mu_b[st * vpp + c] = holds_m ? u : 0.0;
    }
}

/* Per-slot memory weights of each in-flight state (sum over chunks of in-flight times
 * the chunk's slot counts @p cs), pruned to the states no earlier one dominates. Kept out
 * of line: inlined into the segment builder, its inner loop spilled a pointer to the
 * stack (+3.5% instructions of segment compilation under callgrind). */
G_NO_INLINE static GArray *state_weights(const GArray *mu, const double *cs, uint32_t vpp,
                                         uint32_t ns)
{
    g_autoptr(GArray) w = g_array_new(FALSE, TRUE, sizeof(double));
    const size_t n_states = mu->len / vpp;
    g_array_set_size(w, n_states * ns);
    double *wd = (double *)(void *)w->data;
    const double *mud = (const double *)(const void *)mu->data;
    for (size_t k = 0; k < n_states; k++)
        for (uint32_t c = 0; c < vpp; c++) {
            const double u = mud[k * vpp + c];
            double *restrict wk = wd + k * ns;
            const double *restrict csc = cs + (size_t)c * ns;
            for (size_t q = 0; q < ns; q++)
                wk[q] += u * csc[q];
        }
    return prune_states(w, ns);
}

/* Append stage st's candidates to (cw, cstage): one row a | b | cap | mid | one (5*ns weights)
 * per state of each regime, the other regimes taking their first state (a real state of
 * this stage, so maxima stay exact); a row is dropped when an earlier candidate (this
 * stage; any stage of the same composition unless all_stages) has at least its weights
 * everywhere. Sets seg->stage_cand[st]. */
static void add_stage_candidates(PrismCostSegment *seg, const PrismSegmentKey *key, uint32_t pp,
                                 uint32_t vpp, uint32_t st, const double *cs, GArray *const reg[3],
                                 const size_t nr[3], uint32_t ns, gboolean all_stages, GArray *cw,
                                 GArray *cstage, double *row)
{
    const PrismScheduleInfo *si = prism_schedule_info(key->schedule);
    const gboolean inter = si->regimes;
    const size_t first_cand = cstage->len;
    for (int r = 0; r < 3; r++)
        for (size_t k = 0; k < nr[r]; k++) {
            const double *sa = &g_array_index(reg[0], double, (r == 0 ? k : 0) * ns);
            const double *sc = inter ? &g_array_index(reg[1], double, (r == 1 ? k : 0) * ns) : sa;
            const double *sm = inter ? &g_array_index(reg[2], double, (r == 2 ? k : 0) * ns) : sa;
            const gboolean gpipe = si->holds_m && pp > 1;
            /* row layout: a | b | cap | mid; GPipe holds m micro-batches: W = b * m */
            memcpy(row, sa, ns * sizeof(double));
            memcpy(row + ns, sa, ns * sizeof(double));
            memset(gpipe ? row : row + ns, 0, ns * sizeof(double));
            memcpy(row + 2 * ns, sc, ns * sizeof(double));
            memcpy(row + 3 * ns, sm, ns * sizeof(double));
            /* one micro-batch of every chunk of the stage: the m < pp bound */
            for (uint32_t q = 0; q < ns; q++) {
                double one = 0.0;
                for (uint32_t c = 0; c < vpp; c++)
                    one += cs[(size_t)c * ns + q];
                row[4 * ns + q] = one;
            }
            gboolean dom = FALSE;
            for (guint d = 0; d < cstage->len && !dom; d++) {
                const uint32_t ds = g_array_index(cstage, uint32_t, d);
                if (d < first_cand && (all_stages || seg->stage_comp[ds] != seg->stage_comp[st]))
                    continue;
                dom = dominates(&g_array_index(cw, double, (size_t)d * 5 * ns), row, 5 * ns);
            }
            if (!dom) {
                g_array_append_vals(cw, row, 5 * ns);
                g_array_append_val(cstage, st);
            }
        }
    seg->stage_cand[st] = cstage->len > first_cand ? (uint32_t)first_cand : G_MAXUINT32;
}

/* The memory candidates of every stage into (cw, cstage), with seg->mu_a/mu_b,
 * stage_states and stage_cand; per stage and regime, the pruned in-flight states. */
static void build_candidates(const PrismCostModel *cm, PrismCostSegment *seg,
                             const PrismSegmentKey *key, const double *cnt, uint32_t ns,
                             gboolean all_stages, GArray *cw, GArray *cstage)
{
    const uint32_t pp = seg->layout->pp, vpp = seg->nch;
    const gboolean inter = prism_schedule_info(key->schedule)->regimes;
    const double k_seq = cm->knobs.v[PRISM_KNOB_SEQ1F1B_SPLITS];
    seg->stage_cand = g_new(uint32_t, pp);
    seg->stage_states = g_new0(uint32_t, pp);
    double *row = g_new0(double, 5 * (size_t)ns);
    for (uint32_t st = 0; st < pp; st++) {
        const double *cs = &cnt[(size_t)st * vpp * ns];
        GArray *reg[3];
        for (int r = 0; r < 3; r++) {
            g_autoptr(GArray) mu = g_array_new(FALSE, FALSE, sizeof(double));
            schedule_states(key, pp, vpp, st, r, k_seq, mu);
            if (r == 0)
                record_inflight(seg, key, pp, vpp, st, mu);
            reg[r] = state_weights(mu, cs, vpp, ns);
        }
        const size_t nr[3] = {reg[0]->len / ns, inter ? reg[1]->len / ns : 0,
                              inter ? reg[2]->len / ns : 0};
        seg->stage_states[st] = (uint32_t)(nr[0] + nr[1] + nr[2]);
        add_stage_candidates(seg, key, pp, vpp, st, cs, reg, nr, ns, all_stages, cw, cstage, row);
        for (int r = 0; r < 3; r++)
            g_array_free(reg[r], TRUE);
    }
    g_free(row);
}

/* Copy the kept candidate rows into the segment's per-candidate arrays (composition,
 * stage, w_a, w_b, w_cap, w_mid, work flags). Returns the number of candidates. */
static uint32_t store_candidates(const PrismCostModel *cm, PrismCostSegment *seg,
                                 const GArray *slots, const double *tot, uint32_t ns,
                                 const GArray *cw, const GArray *cstage)
{
    const uint32_t nd = cstage->len;
    seg->cand_comp = g_new(uint32_t, nd);
    seg->cand_stage = g_new(double, nd);
    seg->w_a = g_new(double, (size_t)nd *ns);
    seg->w_b = g_new(double, (size_t)nd *ns);
    seg->w_cap = g_new(double, (size_t)nd *ns);
    seg->w_mid = g_new(double, (size_t)nd *ns);
    seg->w_one = g_new(double, (size_t)nd *ns);
    seg->cand_work = g_new0(uint8_t, (size_t)nd * ns);
    for (uint32_t d = 0; d < nd; d++) {
        const uint32_t st = g_array_index(cstage, uint32_t, d);
        const double *r = &g_array_index(cw, double, (size_t)d * 5 * ns);
        seg->cand_comp[d] = seg->stage_comp[st];
        seg->cand_stage[d] = (double)st;
        memcpy(&seg->w_a[(size_t)d * ns], r, ns * sizeof(double));
        memcpy(&seg->w_b[(size_t)d * ns], r + ns, ns * sizeof(double));
        memcpy(&seg->w_cap[(size_t)d * ns], r + 2 * ns, ns * sizeof(double));
        memcpy(&seg->w_mid[(size_t)d * ns], r + 3 * ns, ns * sizeof(double));
        memcpy(&seg->w_one[(size_t)d * ns], r + 4 * ns, ns * sizeof(double));
        for (uint32_t q = 0; q < ns; q++)
            seg->cand_work[(size_t)d * ns + q] =
                tot[(size_t)st * ns + q] > 0 &&
                (cm->k.bwd_ws > 0.5 || g_array_index(slots, PrismKSlot, q).mode == PRISM_K_RC_FULL);
    }
    return nd;
}

/* Recompute FLOPs per token per step as executed, summed over every layer: the extra
 * work that HFU counts and MFU does not. */
static double recompute_flops_per_token(const PrismCostModel *cm, const PrismLayout *layout)
{
    double rc_tok = 0.0;
    for (uint32_t q = 0; q < layout->n_layers; q++) {
        const uint32_t kind = cm->layer_kind[q];
        if (layout->layer_rc[q] == PRISM_RECOMPUTE_FULL)
            rc_tok += cm->kind_exec_flops[kind];
        else if (layout->layer_rc[q] == PRISM_RECOMPUTE_SELECTIVE) /* per selective_policy */
            rc_tok += cm->kind_core_flops[kind] * cm->exec_core * cm->kinds[kind].sel_core +
                      (cm->kinds[kind].sf_tp + cm->kinds[kind].sf_kv);
    }
    return rc_tok;
}

/* Fill the kernel's view of the segment (seg->k): scalars, and pointers into the
 * segment's arrays (the segment keeps ownership). */
static void fill_kernel_view(const PrismCostModel *cm, const PrismSegmentKey *key,
                             PrismCostSegment *seg, uint32_t ns, uint32_t nc, uint32_t nd,
                             double rc_tok, gboolean all_stages)
{
    const uint32_t pp = seg->layout->pp, vpp = seg->nch;
    const PrismScheduleInfo *si = prism_schedule_info(key->schedule);
    const gboolean inter = si->regimes;
    const double dev_peak = (double)key->devices * cm->k.peak_flops;
    PrismKSegment *k = &seg->k;
    k->pp = pp;
    k->vpp = vpp;
    k->inv_vpp = 1.0 / vpp;
    k->inv_pp = 1.0 / pp;
    k->devices = key->devices;
    k->pipelined = pp > 1 ? 1.0 : 0.0;
    k->mfu_num = cm->k.model_flops_step / dev_peak;
    /* HFU: the FLOPs the devices execute (the core as it runs, and the recomputation),
     * whatever convention MFU counts in */
    k->hfu_num = (cm->k.exec_flops_step + cm->k.gbs * cm->k.seq * rc_tok) / dev_peak;
    k->schedule = key->schedule;
    k->detail = all_stages ? 1u : 0u;
    k->n_slots = ns;
    k->n_comp = nc;
    k->n_cand = nd;
    k->slots = seg->slots;
    k->count = seg->count;
    k->mult = seg->mult;
    k->comp_moe = seg->comp_moe;
    k->comp_step_host = seg->comp_step_host;
    k->cand_comp = seg->cand_comp;
    k->cand_stage = seg->cand_stage;
    k->w_a = seg->w_a;
    k->w_b = seg->w_b;
    k->w_cap = seg->w_cap;
    k->m_cap = inter ? (double)pp : -1.0;
    k->m_mid = inter ? 2.0 * pp : -1.0;
    k->w_mid = seg->w_mid;
    k->w_one = seg->w_one;
    k->cand_work = seg->cand_work;
    /* bubble = max(0, bub_sum * sum_s u_s - max_s u_s) * bub_scale, u_s = T_s - bub_w W_s
     * (README "Step"), the coefficients of the schedule's registry row: 1F1B/GPipe
     * (p-1)T; interleaved (p-1)T/v; ZB-H1 (p-1)(T-2W); seq1F1B (p-1)T/k; ZB-V and
     * DualPipeV (p-1)(T-3W)/2; DualPipe (p/2-1)(T-3W)/2 */
    const double k_seq = cm->knobs.v[PRISM_KNOB_SEQ1F1B_SPLITS];
    const gboolean seq = si->bub_scale == PRISM_BUBBLE_PER_SPLIT && pp > 1;
    k->bub_sum = si->bub_sum;
    k->bub_scale = seq ? 1.0 / k_seq : si->bub_scale == PRISM_BUBBLE_HALF ? 0.5 : 1.0 / vpp;
    k->bub_w = si->bub_w;
    /* DualPipe: each chunk of a stage carries half the micro-batches (one direction) */
    k->m_share = si->m_share;
    k->hide = si->hide;
    /* Megatron-Core's --overlap-moe-expert-parallel-comm (knob ep_a2a_overlap): the same
     * forward-with-backward overlap under any schedule (the combined 1F1B) */
    if (cm->knobs.v[PRISM_KNOB_EP_A2A_OVERLAP] > 0.5)
        k->hide = 1.0;
    k->work_scale = seq ? 1.0 / k_seq : 1.0;
    /* messages per transfer: the framework's per tensor (pp_p2p_msgs), seq1F1B's per chunk */
    k->pp_msgs = (seq ? k_seq : 1.0) * cm->knobs.v[PRISM_KNOB_PP_P2P_MSGS];
    /* host synchronisations per transfer (pp_p2p_host_syncs), each an eager op's launch
     * and the blocking copy it waits for (cost/README.md, PP) */
    k->pp_host = (seq ? k_seq : 1.0) * cm->knobs.v[PRISM_KNOB_PP_P2P_HOST_SYNCS] *
                 (cm->knobs.v[PRISM_KNOB_LAUNCH_US] + cm->knobs.v[PRISM_KNOB_HOST_SYNC_US]) * 1e-6;
    /* DeepSpeed's partitioned transfer (pp_tp_partitioned; cost/README.md, PP), counted in
     * deepspeed/runtime/pipe/engine.py: per transfer one meta message and the blocking copy
     * that builds it, and the receiver's all-gathers, 1 forward and 2 backward (1.5) */
    const double ptp = cm->knobs.v[PRISM_KNOB_PP_TP_PARTITIONED] > 0.5 ? 1.0 : 0.0;
    k->pp_tp_msgs = ptp;
    k->pp_tp_host =
        ptp * (cm->knobs.v[PRISM_KNOB_LAUNCH_US] + cm->knobs.v[PRISM_KNOB_HOST_SYNC_US]) * 1e-6;
    k->pp_tp_gathers = 1.5 * ptp;
    k->off_opt = (key->offload & PRISM_OFFLOAD_OPTIMIZER) ? 1.0 : 0.0;
    k->off_act = (key->offload & PRISM_OFFLOAD_ACTIVATIONS) ? 1.0 : 0.0;
}

PrismCostSegment *prism_cost_segment_new_layout(const PrismCostModel *cm,
                                                const PrismSegmentKey *key,
                                                const PrismLayout *layout, gboolean all_stages,
                                                GError **error)
{
    if (!check_layout(cm, key, layout, error))
        return NULL;
    const uint32_t nch = prism_stage_chunks(key->schedule, layout->vpp);
    const uint32_t C = layout->pp * nch;
    g_autoptr(GArray) slots = g_array_new(FALSE, FALSE, sizeof(PrismKSlot));
    double *cnt = NULL, *tot = NULL;
    const uint32_t ns = count_slots(cm, layout, key->schedule, slots, &cnt, &tot);
    PrismCostSegment *seg = g_new0(PrismCostSegment, 1);
    seg->key = *key;
    seg->all_stages = all_stages;
    seg->layout = prism_layout_copy(layout);
    seg->nch = nch;
    seg->mu_a = g_new0(double, C);
    seg->mu_b = g_new0(double, C);
    const uint32_t nc = group_compositions(cm, slots, tot, layout->pp, ns, seg);
    g_autoptr(GArray) cw = g_array_new(FALSE, FALSE, sizeof(double));
    g_autoptr(GArray) cstage = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    build_candidates(cm, seg, key, cnt, ns, all_stages, cw, cstage);
    const uint32_t nd = store_candidates(cm, seg, slots, tot, ns, cw, cstage);
    g_free(cnt);
    g_free(tot);
    const double rc_tok = recompute_flops_per_token(cm, layout);
    seg->slots = (PrismKSlot *)(void *)g_array_free(g_steal_pointer(&slots), FALSE);
    fill_kernel_view(cm, key, seg, ns, nc, nd, rc_tok, all_stages);
    return seg;
}

PrismCostSegment *prism_cost_segment_new(const PrismCostModel *cm, const PrismSegmentKey *key,
                                         gboolean all_stages, GError **error)
{
    g_autoptr(PrismLayout) l = prism_layout_default(cm, key, error);
    if (l == NULL)
        return NULL;
    if (key->recompute >= PRISM_RECOMPUTE_COUNT) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_SHAPE,
                    "R10: unknown recompute code %u", (unsigned)key->recompute);
        return NULL;
    }
    return prism_cost_segment_new_layout(cm, key, l, all_stages, error);
}

void prism_cost_segment_free(PrismCostSegment *seg)
{
    if (seg == NULL)
        return;
    prism_layout_free(seg->layout);
    g_free(seg->slots);
    g_free(seg->count);
    g_free(seg->mult);
    g_free(seg->comp_moe);
    g_free(seg->comp_step_host);
    g_free(seg->cand_stage);
    g_free(seg->w_a);
    g_free(seg->w_b);
    g_free(seg->w_cap);
    g_free(seg->w_mid);
    g_free(seg->w_one);
    g_free(seg->stage_states);
    g_free(seg->cand_comp);
    g_free(seg->cand_work);
    g_free(seg->stage_comp);
    g_free(seg->stage_cand);
    g_free(seg->mu_a);
    g_free(seg->mu_b);
    g_free(seg);
}

uint32_t prism_cost_segment_n_candidates(const PrismCostSegment *seg)
{
    return seg->k.n_cand;
}

double prism_cost_segment_flops_time(const PrismCostSegment *seg)
{
    return seg->k.hfu_num;
}
