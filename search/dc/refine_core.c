// SPDX-License-Identifier: MIT
/*
 * refine_core.c - the surrogate problem of refine.h: evaluation of a layout, and the
 * optimum over chunk boundaries and per-layer recompute.
 *
 * Per chunk range [lo, hi) the (time, activation) Pareto front of its layers is a left
 * fold of per-layer fronts with the engine's Pareto summary (dc.h). For a threshold on
 * the chunk time, stage boundaries are a (min,+) fold of a 1 x (L+1) start row with one
 * (L+1) x (L+1) table per chunk (prism_dc_fold_left); the layout is recovered by a
 * sequential pass with canonical tie-breaking (smallest boundary, smallest mode).
 * Re-entrant; nothing here is collective.
 */
#include <prism/refine.h>

#include <math.h>
#include <string.h>

#include <prism/core.h>
#include <prism/dc.h>

#define MAX_THRESHOLDS 1024

void prism_refine_solution_free(PrismRefineSolution *s)
{
    if (s == NULL)
        return;
    g_free(s->chunk_layers);
    g_free(s->layer_rc);
    g_free(s->stage_time_ps);
    g_free(s->stage_mem);
    g_free(s);
}

double prism_refine_inflight(PrismSchedule schedule, uint32_t pp, uint32_t vpp, uint32_t m,
                             uint32_t s, uint32_t c)
{
    /* The cost model's schedules (cost/cost_stages.c): pp = 1: 1; GPipe: m; 1F1B and
     * ZB-H1: min(pp - s, m). Interleaved: Megatron's order (warm-up W = min(2(pp-s-1) +
     * (vpp-1)pp, m vpp) forwards, then forward/backward pairs, then backwards; forward
     * unit k runs chunk (k mod pp vpp)/pp, backward unit k chunk vpp-1-(k mod pp vpp)/pp)
     * has several in-flight states; the cost model takes the peak over them. Here: the
     * largest count of chunk c over those states, an upper bound per chunk (exact for
     * the peak state when chunks are even). */
    if (pp == 1)
        return 1.0;
    const PrismScheduleInfo *si = prism_schedule_info(schedule);
    if (si != NULL && si->holds_m)
        return (double)m;
    if (si == NULL || !si->regimes)    /* of the refined schedules, all but interleaved */
        return (double)MIN(pp - s, m); /* m < pp (R8 admits it for 1F1B): all m */
    const uint64_t total = (uint64_t)m * vpp, period = (uint64_t)pp * vpp;
    const uint64_t warm = MIN(2ull * (pp - s - 1) + (uint64_t)(vpp - 1) * pp, total);
    int64_t cur = 0, best = 0;
    for (uint64_t f = 0, b = 0; f < total;) {
        if ((f % period) / pp == c)
            cur++;
        f++;
        if (f > warm || f == total)
            best = cur > best ? cur : best;
        if (f > warm) {
            if (vpp - 1 - (b % period) / pp == c)
                cur--;
            b++;
        }
    }
    return (double)best;
}

static int64_t mul_mu(double mu, int64_t bytes)
{
    return (int64_t)llround(mu * (double)bytes);
}

static int64_t step_of(const PrismRefineProblem *p, const int64_t *stage_time)
{
    int64_t tmax = 0, sum = 0;
    for (uint32_t s = 0; s < p->pp; s++) {
        tmax = stage_time[s] > tmax ? stage_time[s] : tmax;
        sum += stage_time[s];
    }
    return (int64_t)p->m * tmax + (sum - tmax) / (int64_t)p->vpp;
}

int64_t prism_refine_evaluate(const PrismRefineProblem *p, const uint32_t *chunk_layers,
                              const uint8_t *rc, int64_t *stage_time, int64_t *stage_mem)
{
    const uint32_t C = p->pp * p->vpp;
    g_autofree int64_t *tm = g_new0(int64_t, p->pp), *mem = g_new0(int64_t, p->pp);
    g_autofree int64_t *work = g_new0(int64_t, p->pp);
    uint32_t q = 0;
    for (uint32_t j = 0; j < C; j++) {
        uint32_t s = j % p->pp, c = j / p->pp;
        double mu = p->mu[s * p->vpp + c];
        int64_t act = 0;
        for (uint32_t k = 0; k < chunk_layers[j]; k++, q++) {
            const PrismRefineLayer *l = &p->layers[q];
            tm[s] += l->time_ps[rc[q]];
            mem[s] += l->static_bytes;
            act += l->act_bytes[rc[q]];
            work[s] = l->work_bytes > work[s] ? l->work_bytes : work[s];
        }
        if (j == 0) {
            tm[s] += p->first_time_ps;
            mem[s] += p->first_static;
            act += p->first_act;
        }
        if (j == C - 1) {
            tm[s] += p->last_time_ps;
            mem[s] += p->last_static;
            act += p->last_act;
        }
        mem[s] += mul_mu(mu, act);
    }
    gboolean fits = TRUE;
    for (uint32_t s = 0; s < p->pp; s++) {
        mem[s] += work[s];
        fits = fits && mem[s] <= p->budget_bytes;
        if (stage_time)
            stage_time[s] = tm[s];
        if (stage_mem)
            stage_mem[s] = mem[s];
    }
    return fits ? step_of(p, tm) : PRISM_DC_INF;
}

/* The solver's working state. */
typedef struct Solver {
    const PrismRefineProblem *p;
    uint32_t L, C;
    PrismParetoMat **front; /* [lo * (L + 1) + hi], hi > lo: front of layers lo..hi-1 */
    int64_t *cost;          /* [j][lo][hi] best chunk time, PRISM_DC_INF if it cannot fit */
    uint32_t *pick;         /* [j][lo][hi] index of the chosen front point */
} Solver;

#define AT(S, j, lo, hi) ((((size_t)(j) * ((S)->L + 1)) + (lo)) * ((S)->L + 1) + (hi))

static PrismParetoMat *layer_front(const PrismRefineProblem *p, uint32_t q)
{
    PrismParetoPoint pts[3];
    uint32_t n = 0;
    for (uint32_t r = 0; r < 3; r++)
        if (p->modes & (1u << r))
            pts[n++] = (PrismParetoPoint){p->layers[q].time_ps[r], p->layers[q].act_bytes[r]};
    const PrismParetoPoint *lists[1] = {pts};
    return prism_pareto_new(1, 1, lists, &n);
}

static void build_fronts(Solver *S)
{
    const uint32_t L = S->L;
    S->front = g_new0(PrismParetoMat *, (size_t)(L + 1) * (L + 1));
    for (uint32_t lo = 0; lo < L; lo++) {
        PrismParetoMat *acc = prism_pareto_identity();
        for (uint32_t hi = lo + 1; hi <= L; hi++) {
            PrismParetoMat *leaf = layer_front(S->p, hi - 1);
            PrismParetoMat *next = prism_pareto_mul(acc, leaf); /* engine combine */
            prism_pareto_free(leaf);
            prism_pareto_free(acc);
            acc = next;
            S->front[(size_t)lo * (L + 1) + hi] = prism_pareto_copy(acc);
        }
        prism_pareto_free(acc);
    }
}

/* Best time of chunk j holding layers [lo, hi): the fastest front point whose weighted
 * activations fit what the budget leaves. vpp > 1 checks budget/vpp (conservative). */
static void build_costs(Solver *S)
{
    const PrismRefineProblem *p = S->p;
    const uint32_t L = S->L, C = S->C;
    const size_t n = (size_t)C * (L + 1) * (L + 1);
    S->cost = g_new(int64_t, n);
    S->pick = g_new0(uint32_t, n);
    for (size_t i = 0; i < n; i++)
        S->cost[i] = PRISM_DC_INF;
    const int64_t budget = p->budget_bytes / (int64_t)p->vpp;
    for (uint32_t j = 0; j < C; j++) {
        const uint32_t s = j % p->pp, c = j / p->pp;
        const double mu = p->mu[s * p->vpp + c];
        int64_t xt = 0, xs = 0, xa = 0;
        if (j == 0) {
            xt += p->first_time_ps;
            xs += p->first_static;
            xa += p->first_act;
        }
        if (j == C - 1) {
            xt += p->last_time_ps;
            xs += p->last_static;
            xa += p->last_act;
        }
        for (uint32_t lo = 0; lo < L; lo++) {
            int64_t stat = xs, work = 0;
            for (uint32_t hi = lo + 1; hi <= L; hi++) {
                const PrismRefineLayer *l = &p->layers[hi - 1];
                stat += l->static_bytes;
                work = l->work_bytes > work ? l->work_bytes : work;
                const PrismParetoMat *f = S->front[(size_t)lo * (L + 1) + hi];
                for (uint32_t k = 0; k < f->count[0]; k++) {
                    const PrismParetoPoint *pt = &f->pts[k];
                    if (stat + work + mul_mu(mu, pt->mem + xa) <= budget) {
                        S->cost[AT(S, j, lo, hi)] = pt->time + xt;
                        S->pick[AT(S, j, lo, hi)] = k;
                        break;
                    }
                }
            }
        }
    }
}

/* Stage boundaries for a chunk-time threshold (+inf = none): minimise the sum of chunk
 * times. Returns the minimal sum (PRISM_DC_INF if infeasible) computed by the engine's
 * (min,+) left fold, and fills bounds[0..C] with a canonical argmin when asked. */
typedef struct FoldData {
    PrismMinPlus **items;
} FoldData;

static int64_t boundaries(const Solver *S, int64_t threshold, uint32_t *bounds)
{
    const uint32_t L = S->L, C = S->C, W = L + 1;
    PrismMinPlus **items = g_new(PrismMinPlus *, C + 1);
    items[0] = prism_minplus_new(1, W, PRISM_DC_INF);
    prism_minplus_set(items[0], 0, 0, 0);
    for (uint32_t j = 0; j < C; j++) {
        items[j + 1] = prism_minplus_new(W, W, PRISM_DC_INF);
        for (uint32_t lo = 0; lo < L; lo++)
            for (uint32_t hi = lo + 1; hi <= L; hi++) {
                int64_t c = S->cost[AT(S, j, lo, hi)];
                if (c <= threshold)
                    prism_minplus_set(items[j + 1], lo, hi, c);
            }
    }
    PrismDcReduction r;
    prism_minplus_reduction_init(&r, items);
    PrismMinPlus *total = prism_dc_fold_left(&r, 0, C + 1);
    int64_t best = prism_minplus_get(total, 0, L);
    prism_minplus_free(total);
    if (bounds != NULL && best != PRISM_DC_INF) {
        /* forward rows, then backtrack with the smallest predecessor */
        int64_t *rows = g_new(int64_t, (size_t)(C + 1) * W);
        memcpy(rows, items[0]->v, W * sizeof(int64_t));
        for (uint32_t j = 0; j < C; j++)
            for (uint32_t hi = 0; hi < W; hi++) {
                int64_t b = PRISM_DC_INF;
                for (uint32_t lo = 0; lo < W; lo++) {
                    int64_t x = prism_dc_add(rows[(size_t)j * W + lo],
                                             prism_minplus_get(items[j + 1], lo, hi));
                    b = x < b ? x : b;
                }
                rows[(size_t)(j + 1) * W + hi] = b;
            }
        g_assert(rows[(size_t)C * W + L] == best);
        bounds[C] = L;
        for (uint32_t j = C; j > 0; j--) {
            uint32_t hi = bounds[j];
            int64_t target = rows[(size_t)j * W + hi];
            for (uint32_t lo = 0; lo < hi; lo++)
                if (prism_dc_add(rows[(size_t)(j - 1) * W + lo],
                                 prism_minplus_get(items[j], lo, hi)) == target) {
                    bounds[j - 1] = lo;
                    break;
                }
        }
        g_free(rows);
    }
    for (uint32_t j = 0; j <= C; j++)
        prism_minplus_free(items[j]);
    g_free(items);
    return best;
}

/* Recover the per-layer modes of chunk [lo, hi) for its chosen front point. */
static void recover_modes(const Solver *S, uint32_t lo, uint32_t hi, uint32_t k, uint8_t *rc)
{
    const PrismRefineProblem *p = S->p;
    const uint32_t L = S->L;
    PrismParetoPoint want = S->front[(size_t)lo * (L + 1) + hi]->pts[k];
    for (uint32_t q = hi; q > lo; q--) {
        const PrismRefineLayer *l = &p->layers[q - 1];
        gboolean found = FALSE;
        for (uint32_t r = 0; r < 3 && !found; r++) {
            if (!(p->modes & (1u << r)))
                continue;
            PrismParetoPoint rest = {want.time - l->time_ps[r], want.mem - l->act_bytes[r]};
            if (q - 1 == lo) {
                found = rest.time == 0 && rest.mem == 0;
            } else {
                const PrismParetoMat *f = S->front[(size_t)lo * (L + 1) + q - 1];
                for (uint32_t x = 0; x < f->count[0] && !found; x++)
                    found = f->pts[x].time == rest.time && f->pts[x].mem == rest.mem;
            }
            if (found) {
                rc[q - 1] = (uint8_t)r;
                want = rest;
            }
        }
        g_assert(found);
    }
}

static PrismRefineSolution *layout_for(const Solver *S, int64_t threshold)
{
    const PrismRefineProblem *p = S->p;
    const uint32_t C = S->C;
    g_autofree uint32_t *bounds = g_new0(uint32_t, C + 1);
    if (boundaries(S, threshold, bounds) == PRISM_DC_INF)
        return NULL;
    PrismRefineSolution *sol = g_new0(PrismRefineSolution, 1);
    sol->pp = p->pp;
    sol->vpp = p->vpp;
    sol->n_layers = S->L;
    sol->chunk_layers = g_new(uint32_t, C);
    sol->layer_rc = g_new0(uint8_t, S->L ? S->L : 1);
    sol->stage_time_ps = g_new0(int64_t, p->pp);
    sol->stage_mem = g_new0(int64_t, p->pp);
    for (uint32_t j = 0; j < C; j++) {
        sol->chunk_layers[j] = bounds[j + 1] - bounds[j];
        recover_modes(S, bounds[j], bounds[j + 1], S->pick[AT(S, j, bounds[j], bounds[j + 1])],
                      sol->layer_rc);
    }
    sol->step_ps = prism_refine_evaluate(p, sol->chunk_layers, sol->layer_rc, sol->stage_time_ps,
                                         sol->stage_mem);
    return sol;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* vpp > 1: the chunk-wise search is conservative (budget/vpp per chunk), so improve its
 * result by first-improvement local moves on the exact surrogate: shift one layer across
 * a chunk boundary, or change one layer's recompute mode. Deterministic order. */
static void local_search(const PrismRefineProblem *p, PrismRefineSolution *sol)
{
    const uint32_t C = p->pp * p->vpp, L = p->n_layers;
    gboolean improved = TRUE;
    for (int iter = 0; iter < 1000 && improved; iter++) {
        improved = FALSE;
        for (uint32_t j = 0; j + 1 < C && !improved; j++)
            for (int dir = -1; dir <= 1 && !improved; dir += 2) {
                /* dir -1: last layer of chunk j moves to j+1; +1: first of j+1 to j */
                uint32_t *from = &sol->chunk_layers[dir < 0 ? j : j + 1];
                uint32_t *to = &sol->chunk_layers[dir < 0 ? j + 1 : j];
                if (*from <= 1)
                    continue;
                (*from)--;
                (*to)++;
                int64_t v = prism_refine_evaluate(p, sol->chunk_layers, sol->layer_rc, NULL, NULL);
                if (v < sol->step_ps) {
                    sol->step_ps = v;
                    improved = TRUE;
                } else {
                    (*from)++;
                    (*to)--;
                }
            }
        for (uint32_t q = 0; q < L && !improved; q++)
            for (uint8_t r = 0; r < 3 && !improved; r++) {
                uint8_t old = sol->layer_rc[q];
                if (r == old || !(p->modes & (1u << r)))
                    continue;
                sol->layer_rc[q] = r;
                int64_t v = prism_refine_evaluate(p, sol->chunk_layers, sol->layer_rc, NULL, NULL);
                if (v < sol->step_ps) {
                    sol->step_ps = v;
                    improved = TRUE;
                } else {
                    sol->layer_rc[q] = old;
                }
            }
    }
    sol->step_ps = prism_refine_evaluate(p, sol->chunk_layers, sol->layer_rc, sol->stage_time_ps,
                                         sol->stage_mem);
}

PrismRefineSolution *prism_refine_solve(const PrismRefineProblem *p, GError **error)
{
    if (p->pp == 0 || p->vpp == 0 || (uint64_t)p->pp * p->vpp > p->n_layers ||
        (p->modes & 7u) == 0) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "refine: pp*vpp = %u*%u chunks need at most %u layers and at least one "
                    "recompute mode",
                    p->pp, p->vpp, p->n_layers);
        return NULL;
    }
    Solver S = {.p = p, .L = p->n_layers, .C = p->pp * p->vpp};
    build_fronts(&S);
    build_costs(&S);
    /* candidate thresholds: the distinct finite chunk times */
    g_autoptr(GArray) cand = g_array_new(FALSE, FALSE, sizeof(int64_t));
    const size_t n = (size_t)S.C * (S.L + 1) * (S.L + 1);
    for (size_t i = 0; i < n; i++)
        if (S.cost[i] != PRISM_DC_INF)
            g_array_append_val(cand, S.cost[i]);
    g_array_sort(cand, cmp_i64);
    guint nu = 0;
    int64_t *cv = (int64_t *)(void *)cand->data;
    for (guint i = 0; i < cand->len; i++)
        if (nu == 0 || cv[nu - 1] != cv[i])
            cv[nu++] = cv[i];
    PrismRefineSolution *best = NULL;
    int64_t sum_free = nu ? boundaries(&S, PRISM_DC_INF, NULL) : PRISM_DC_INF;
    if (sum_free != PRISM_DC_INF) {
        /* smallest feasible threshold (feasibility is monotone in the threshold) */
        guint lo = 0, hi = nu - 1;
        while (lo < hi) {
            guint mid = lo + (hi - lo) / 2;
            if (boundaries(&S, cv[mid], NULL) != PRISM_DC_INF)
                hi = mid;
            else
                lo = mid + 1;
        }
        /* Scan upward. A layout whose slowest chunk is above cv[i] costs at least
         * m * cv[i] * (vpp == 1 ? 1 : 0) + ... ; with vpp == 1 the bound
         * (m - 1) * cv[i] + sum_free is exact, so the scan stops once it passes best. */
        for (guint i = lo, k = 0; i < nu && k < MAX_THRESHOLDS; i++, k++) {
            int64_t bound =
                p->vpp == 1 ? ((int64_t)p->m - 1) * cv[i] + sum_free : ((int64_t)p->m - 1) * cv[i];
            if (best != NULL && bound >= best->step_ps)
                break;
            PrismRefineSolution *sol = layout_for(&S, cv[i]);
            if (sol != NULL && sol->step_ps != PRISM_DC_INF &&
                (best == NULL || sol->step_ps < best->step_ps)) {
                prism_refine_solution_free(best);
                best = sol;
            } else {
                prism_refine_solution_free(sol);
            }
        }
    }
    for (size_t i = 0; i < (size_t)(S.L + 1) * (S.L + 1); i++)
        prism_pareto_free(S.front[i]);
    g_free(S.front);
    g_free(S.cost);
    g_free(S.pick);
    if (best != NULL && p->vpp > 1)
        local_search(p, best);
    if (p->vpp > 1 && p->start_chunks != NULL && p->start_rc != NULL) {
        PrismRefineSolution *alt = g_new0(PrismRefineSolution, 1);
        alt->pp = p->pp;
        alt->vpp = p->vpp;
        alt->n_layers = S.L;
        alt->chunk_layers = g_memdup2(p->start_chunks, S.C * sizeof(uint32_t));
        alt->layer_rc = g_memdup2(p->start_rc, S.L ? S.L : 1);
        alt->stage_time_ps = g_new0(int64_t, p->pp);
        alt->stage_mem = g_new0(int64_t, p->pp);
        alt->step_ps = prism_refine_evaluate(p, alt->chunk_layers, alt->layer_rc, NULL, NULL);
        local_search(p, alt);
        if (alt->step_ps != PRISM_DC_INF && (best == NULL || alt->step_ps < best->step_ps)) {
            prism_refine_solution_free(best);
            best = alt;
        } else {
            prism_refine_solution_free(alt);
        }
    }
    if (best == NULL)
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_INFEASIBLE,
                    "refine: no split of the %u layers over pp*vpp = %u*%u chunks with the "
                    "allowed recompute modes fits the budget of %.2f GiB per device",
                    p->n_layers, p->pp, p->vpp, (double)p->budget_bytes / 1073741824.0);
    return best;
}
