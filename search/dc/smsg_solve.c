// SPDX-License-Identifier: MIT
/*
 * smsg_solve.c - exact operator layouts by series-parallel reduction (min-plus and
 * Pareto summaries of dc.h), the D-Rec greedy baseline, uniform baselines, and the cost
 * of a given assignment.
 *
 * The graph is reduced in passes: parallel components (same endpoints) are summed
 * entrywise; maximal chains through nodes of in/out degree 1 become series components
 * whose matrix is the engine's balanced-tree product of [edge, node, edge, ...]. A graph
 * that is left with more than one component is not series-parallel. Layouts are then
 * recovered top-down, smallest option index first, so ties are broken canonically.
 * Re-entrant; nothing here is collective.
 */
#include <prism/smsg.h>

#include <math.h>
#include <string.h>

#include <prism/core.h>

int64_t prism_smsg_ps(double seconds)
{
    if (!(seconds < 9e6)) /* NaN, inf, or beyond int64 picoseconds */
        return PRISM_DC_INF;
    return (int64_t)llround(seconds * 1e12);
}

typedef struct Edge {
    uint32_t u, v; /* producer -> consumer */
} Edge;

typedef enum { C_EDGE, C_SERIES, C_PARALLEL } CompType;

typedef struct Comp {
    CompType type;
    uint32_t src, dst;
    uint32_t edge;      /* C_EDGE */
    uint32_t *children; /* C_SERIES: k children; C_PARALLEL: k children */
    uint32_t *mids;     /* C_SERIES: k - 1 middle nodes */
    uint32_t n_children;
    void *m; /* PrismMinPlus or PrismParetoMat */
    gboolean alive;
} Comp;

typedef struct Ctx {
    const PrismOpGraph *g;
    const PrismSmsgEnv *env;
    const uint32_t *allowed;
    PrismLayoutOption (*opts)[PRISM_SMSG_MAX_OPTIONS];
    uint32_t *n_opts;
    Edge *edges;
    uint32_t n_edges;
    gboolean pareto;
    GArray *comps; /* Comp */
    uint32_t source, sink;
    uint64_t power_pairs; /* chain elements folded by power (repeated blocks) */
} Ctx;

static double out_bytes(const PrismOp *op)
{
    return op->rows * op->out_features * op->elem_bytes;
}

static gboolean opt_allowed(const Ctx *c, uint32_t v, uint32_t a)
{
    return c->allowed == NULL || (c->allowed[v] >> a) & 1u;
}

static int64_t node_ps(const Ctx *c, uint32_t v, uint32_t a)
{
    if (!opt_allowed(c, v, a))
        return PRISM_DC_INF;
    return prism_smsg_ps(c->opts[v][a].compute_s + c->opts[v][a].comm_s);
}

static int64_t edge_ps(const Ctx *c, uint32_t e, uint32_t a, uint32_t b)
{
    const Edge *ed = &c->edges[e];
    if (!opt_allowed(c, ed->u, a) || !opt_allowed(c, ed->v, b))
        return PRISM_DC_INF;
    return prism_smsg_ps(prism_smsg_edge_time(c->env, &c->opts[ed->u][a], &c->opts[ed->v][b],
                                              out_bytes(&c->g->ops[ed->u]), NULL));
}

static void ctx_init(Ctx *c, const PrismOpGraph *g, const PrismSmsgEnv *env,
                     const uint32_t *allowed, gboolean pareto)
{
    memset(c, 0, sizeof *c);
    c->g = g;
    c->env = env;
    c->allowed = allowed;
    c->pareto = pareto;
    c->opts = g_malloc0_n(g->n_ops ? g->n_ops : 1, sizeof *c->opts);
    c->n_opts = g_new0(uint32_t, g->n_ops ? g->n_ops : 1);
    uint32_t ne = 0;
    for (uint32_t v = 0; v < g->n_ops; v++) {
        c->n_opts[v] = prism_op_layout_options(&g->ops[v], env, c->opts[v]);
        ne += g->ops[v].n_inputs;
    }
    c->edges = g_new(Edge, ne ? ne : 1);
    for (uint32_t v = 0; v < g->n_ops; v++)
        for (uint32_t k = 0; k < g->ops[v].n_inputs; k++)
            c->edges[c->n_edges++] = (Edge){g->ops[v].inputs[k], v};
    c->comps = g_array_new(FALSE, TRUE, sizeof(Comp));
}

static void mat_free(const Ctx *c, void *m)
{
    if (c->pareto)
        prism_pareto_free(m);
    else
        prism_minplus_free(m);
}

static void ctx_clear(Ctx *c)
{
    for (guint i = 0; c->comps && i < c->comps->len; i++) {
        Comp *k = &g_array_index(c->comps, Comp, i);
        g_free(k->children);
        g_free(k->mids);
        if (k->m)
            mat_free(c, k->m);
    }
    if (c->comps)
        g_array_free(c->comps, TRUE);
    g_free(c->opts);
    g_free(c->n_opts);
    g_free(c->edges);
}

/* Leaf matrices. */
static void *edge_matrix(const Ctx *c, uint32_t e)
{
    uint32_t ra = c->n_opts[c->edges[e].u], rb = c->n_opts[c->edges[e].v];
    if (!c->pareto) {
        PrismMinPlus *m = prism_minplus_new(ra, rb, 0);
        for (uint32_t a = 0; a < ra; a++)
            for (uint32_t b = 0; b < rb; b++)
                prism_minplus_set(m, a, b, edge_ps(c, e, a, b));
        return m;
    }
    PrismParetoPoint pts[PRISM_SMSG_MAX_OPTIONS * PRISM_SMSG_MAX_OPTIONS];
    const PrismParetoPoint *lists[PRISM_SMSG_MAX_OPTIONS * PRISM_SMSG_MAX_OPTIONS];
    uint32_t lens[PRISM_SMSG_MAX_OPTIONS * PRISM_SMSG_MAX_OPTIONS];
    for (uint32_t a = 0; a < ra; a++)
        for (uint32_t b = 0; b < rb; b++) {
            uint32_t i = a * rb + b;
            pts[i] = (PrismParetoPoint){edge_ps(c, e, a, b), 0};
            lists[i] = &pts[i];
            lens[i] = pts[i].time == PRISM_DC_INF ? 0 : 1;
        }
    return prism_pareto_new(ra, rb, lists, lens);
}

static int64_t node_mem(const Ctx *c, uint32_t v, uint32_t a)
{
    return (int64_t)llround(c->opts[v][a].mem_bytes);
}

static void *diag_matrix(const Ctx *c, uint32_t v)
{
    uint32_t r = c->n_opts[v];
    if (!c->pareto) {
        PrismMinPlus *m = prism_minplus_new(r, r, PRISM_DC_INF);
        for (uint32_t a = 0; a < r; a++)
            prism_minplus_set(m, a, a, node_ps(c, v, a));
        return m;
    }
    PrismParetoPoint pts[PRISM_SMSG_MAX_OPTIONS];
    const PrismParetoPoint *lists[PRISM_SMSG_MAX_OPTIONS * PRISM_SMSG_MAX_OPTIONS];
    uint32_t lens[PRISM_SMSG_MAX_OPTIONS * PRISM_SMSG_MAX_OPTIONS];
    for (uint32_t a = 0; a < r; a++) {
        pts[a] = (PrismParetoPoint){node_ps(c, v, a), node_mem(c, v, a)};
        for (uint32_t b = 0; b < r; b++) {
            lists[a * r + b] = &pts[a];
            lens[a * r + b] = a == b && pts[a].time != PRISM_DC_INF ? 1 : 0;
        }
    }
    return prism_pareto_new(r, r, lists, lens);
}

/* Product of a sequence of matrices with the engine (balanced tree). */
static void *chain_product(const Ctx *c, void **items, size_t n)
{
    PrismDcReduction r;
    if (c->pareto)
        prism_pareto_reduction_init(&r, (PrismParetoMat *const *)items);
    else
        prism_minplus_reduction_init(&r, (PrismMinPlus *const *)items);
    return prism_dc_tree(&r, 0, n);
}

/* Does the block of 2p items at @p a equal the one at @p b? */
static gboolean same_block(const PrismDcType *t, void **items, size_t a, size_t b, size_t p)
{
    for (size_t x = 0; x < 2 * p; x++)
        if (!t->equal(items[a + x], items[b + x]))
            return FALSE;
    return TRUE;
}

#define MAX_PERIOD 8

/* Product of a series chain [M1, D1, M2, D2, ..., Mk]: a run of r identical blocks of
 * p (M, D) pairs (a repeated layer, e.g. GPT-3's 96 blocks are period 2: attention then
 * MLP) is one block raised to the r-th power by repeated squaring; the pieces are then
 * combined with the tree. Exact, so the result equals the plain product bit for bit. */
static void *series_product(Ctx *c, void **items, size_t ni)
{
    const PrismDcType *t = c->pareto ? &prism_pareto_type : &prism_minplus_type;
    g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func(t->free);
    size_t i = 0;
    while (i + 1 < ni) {
        size_t best_p = 1;
        uint64_t best_run = 1;
        for (size_t p = 1; p <= MAX_PERIOD; p++) {
            uint64_t run = 1;
            /* block k spans [i + 2pk, i + 2p(k+1)); the last chain item stays outside */
            while (i + 2 * p * (run + 1) <= ni - 1 && same_block(t, items, i, i + 2 * p * run, p))
                run++;
            if (run >= 2 && run * p > best_run * best_p) {
                best_run = run;
                best_p = p;
            }
        }
        size_t width = best_run > 1 ? 2 * best_p : 2;
        void *block = chain_product(c, items + i, width);
        if (best_run > 1) {
            PrismDcReduction r;
            if (c->pareto)
                prism_pareto_reduction_init(&r, NULL);
            else
                prism_minplus_reduction_init(&r, NULL);
            g_ptr_array_add(parts, prism_dc_power(&r, block, best_run));
            t->free(block);
            c->power_pairs += best_run * best_p;
            i += width * best_run;
        } else {
            g_ptr_array_add(parts, block);
            i += width;
        }
    }
    g_ptr_array_add(parts, t->copy(items[ni - 1]));
    return chain_product(c, parts->pdata, parts->len);
}

static uint32_t add_comp(Ctx *c, const Comp *k)
{
    g_array_append_val(c->comps, *k);
    return c->comps->len - 1;
}

static Comp *comp(const Ctx *c, uint32_t i)
{
    return &g_array_index(c->comps, Comp, i);
}

static gint cmp_comp_ends(gconstpointer pa, gconstpointer pb, gpointer user)
{
    const Ctx *c = user;
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    const Comp *x = comp(c, a), *y = comp(c, b);
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    return a < b ? -1 : a > b;
}

static gboolean parallel_pass(Ctx *c)
{
    g_autoptr(GArray) alive = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (uint32_t i = 0; i < c->comps->len; i++)
        if (comp(c, i)->alive)
            g_array_append_val(alive, i);
    g_array_sort_with_data(alive, cmp_comp_ends, c);
    gboolean changed = FALSE;
    const uint32_t *ids = (const uint32_t *)(void *)alive->data;
    for (guint s = 0; s < alive->len;) {
        guint e = s + 1;
        while (e < alive->len && comp(c, ids[e])->src == comp(c, ids[s])->src &&
               comp(c, ids[e])->dst == comp(c, ids[s])->dst)
            e++;
        if (e - s > 1) {
            Comp k = {.type = C_PARALLEL,
                      .src = comp(c, ids[s])->src,
                      .dst = comp(c, ids[s])->dst,
                      .alive = TRUE,
                      .n_children = e - s};
            k.children = g_memdup2(ids + s, (e - s) * sizeof(uint32_t));
            void *sum = c->pareto ? (void *)prism_pareto_copy(comp(c, ids[s])->m)
                                  : (void *)prism_minplus_copy(comp(c, ids[s])->m);
            for (guint i = s + 1; i < e; i++) {
                void *n = c->pareto ? (void *)prism_pareto_add(sum, comp(c, ids[i])->m)
                                    : (void *)prism_minplus_add(sum, comp(c, ids[i])->m);
                mat_free(c, sum);
                sum = n;
            }
            k.m = sum;
            for (guint i = s; i < e; i++)
                comp(c, ids[i])->alive = FALSE;
            add_comp(c, &k);
            changed = TRUE;
        }
        s = e;
    }
    return changed;
}

static gboolean series_pass(Ctx *c)
{
    uint32_t n = c->g->n_ops;
    g_autofree uint32_t *indeg = g_new0(uint32_t, n), *outdeg = g_new0(uint32_t, n);
    g_autofree uint32_t *in_comp = g_new0(uint32_t, n), *out_comp = g_new0(uint32_t, n);
    g_autofree gboolean *used = g_new0(gboolean, n);
    for (uint32_t i = 0; i < c->comps->len; i++) {
        const Comp *k = comp(c, i);
        if (!k->alive)
            continue;
        outdeg[k->src]++;
        out_comp[k->src] = i;
        indeg[k->dst]++;
        in_comp[k->dst] = i;
    }
#define THROUGH(x) ((x) != c->source && (x) != c->sink && indeg[x] == 1 && outdeg[x] == 1)
    gboolean changed = FALSE;
    for (uint32_t m = 0; m < n; m++) {
        if (!THROUGH(m) || used[m])
            continue;
        /* walk back to the start of the maximal chain through degree-1 nodes */
        uint32_t first = m;
        while (TRUE) {
            uint32_t x = comp(c, in_comp[first])->src;
            if (!THROUGH(x) || used[x] || x == m)
                break;
            first = x;
        }
        g_autoptr(GArray) kids = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        g_autoptr(GArray) mids = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        g_array_append_val(kids, in_comp[first]);
        uint32_t x = first;
        while (THROUGH(x) && !used[x]) {
            used[x] = TRUE;
            g_array_append_val(mids, x);
            g_array_append_val(kids, out_comp[x]);
            x = comp(c, out_comp[x])->dst;
        }
        guint nk = kids->len;
        const uint32_t *kid = (const uint32_t *)(void *)kids->data;
        void **items = g_new(void *, 2 * nk);
        void **diags = g_new(void *, nk);
        size_t ni = 0;
        for (guint i = 0; i < nk; i++) {
            items[ni++] = comp(c, kid[i])->m;
            if (i + 1 < nk) {
                diags[i] = diag_matrix(c, g_array_index(mids, uint32_t, i));
                items[ni++] = diags[i];
            }
        }
        Comp k = {.type = C_SERIES,
                  .src = comp(c, kid[0])->src,
                  .dst = x,
                  .alive = TRUE,
                  .n_children = nk};
        k.m = series_product(c, items, ni);
        for (guint i = 0; i + 1 < nk; i++)
            mat_free(c, diags[i]);
        g_free(items);
        g_free(diags);
        for (guint i = 0; i < nk; i++)
            comp(c, kid[i])->alive = FALSE;
        k.children = g_memdup2(kid, nk * sizeof(uint32_t));
        k.mids = g_memdup2(mids->data, mids->len * sizeof(uint32_t));
        add_comp(c, &k);
        changed = TRUE;
    }
#undef THROUGH
    return changed;
}

/* Find the single source and sink; errors name the graph and ops. */
static gboolean find_terminals(Ctx *c, GError **error)
{
    const PrismOpGraph *g = c->g;
    g_autofree uint32_t *consumers = g_new0(uint32_t, g->n_ops ? g->n_ops : 1);
    for (uint32_t e = 0; e < c->n_edges; e++)
        consumers[c->edges[e].u]++;
    int n_src = 0, n_sink = 0;
    for (uint32_t v = 0; v < g->n_ops; v++) {
        if (g->ops[v].n_inputs == 0) {
            if (n_src++ == 0)
                c->source = v;
            else {
                g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                            "graph '%s' (%s): ops '%s' and '%s' both have no inputs; the "
                            "series-parallel reduction needs exactly one source op",
                            g->name, g->source, g->ops[c->source].name, g->ops[v].name);
                return FALSE;
            }
        }
        if (consumers[v] == 0) {
            if (n_sink++ == 0)
                c->sink = v;
            else {
                g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                            "graph '%s' (%s): ops '%s' and '%s' both have no consumer; the "
                            "series-parallel reduction needs exactly one sink op (feed dead "
                            "ends into it or remove them)",
                            g->name, g->source, g->ops[c->sink].name, g->ops[v].name);
                return FALSE;
            }
        }
    }
    return TRUE;
}

/* Reduce the graph. On success *root is the root component (or G_MAXUINT32 for a graph
 * of one op). */
static gboolean reduce(Ctx *c, uint32_t *root, GError **error)
{
    const PrismOpGraph *g = c->g;
    if (g->n_ops == 0) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE, "graph '%s' has no ops",
                    g->name);
        return FALSE;
    }
    if (!find_terminals(c, error))
        return FALSE;
    for (uint32_t e = 0; e < c->n_edges; e++) {
        Comp k = {
            .type = C_EDGE, .src = c->edges[e].u, .dst = c->edges[e].v, .edge = e, .alive = TRUE};
        k.m = edge_matrix(c, e);
        add_comp(c, &k);
    }
    while (parallel_pass(c) | series_pass(c))
        ;
    uint32_t n_alive = 0, last = 0;
    for (uint32_t i = 0; i < c->comps->len; i++)
        if (comp(c, i)->alive) {
            n_alive++;
            last = i;
        }
    if (n_alive == 0) {
        *root = G_MAXUINT32;
        return TRUE;
    }
    if (n_alive == 1 && comp(c, last)->src == c->source && comp(c, last)->dst == c->sink) {
        *root = last;
        return TRUE;
    }
    /* Not series-parallel: name a reduced edge that joins a fork to a join. */
    g_autofree uint32_t *indeg = g_new0(uint32_t, g->n_ops), *outdeg = g_new0(uint32_t, g->n_ops);
    for (uint32_t i = 0; i < c->comps->len; i++)
        if (comp(c, i)->alive) {
            outdeg[comp(c, i)->src]++;
            indeg[comp(c, i)->dst]++;
        }
    const Comp *bad = NULL;
    for (int pass = 0; pass < 2 && bad == NULL; pass++)
        for (uint32_t i = 0; i < c->comps->len && bad == NULL; i++) {
            const Comp *k = comp(c, i);
            if (k->alive && (pass == 1 || (outdeg[k->src] >= 2 && indeg[k->dst] >= 2)))
                bad = k;
        }
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                "graph '%s' (%s) is not series-parallel: the %s '%s' -> '%s' links the branch "
                "that forks at '%s' into a join at '%s' that does not nest with the others; "
                "the exact search needs a two-terminal series-parallel graph (chains, "
                "residual and branching blocks)",
                g->name, g->source, bad->type == C_EDGE ? "edge" : "path", g->ops[bad->src].name,
                g->ops[bad->dst].name, g->ops[bad->src].name, g->ops[bad->dst].name);
    return FALSE;
}

/* Top-down recovery of layouts (min-plus only). */
static void assign(const Ctx *c, uint32_t ci, uint32_t i, uint32_t j, uint8_t *choice)
{
    const Comp *k = comp(c, ci);
    if (k->type == C_EDGE)
        return;
    if (k->type == C_PARALLEL) {
        for (uint32_t x = 0; x < k->n_children; x++)
            assign(c, k->children[x], i, j, choice);
        return;
    }
    /* Series: Viterbi over the middle nodes with fixed ends i, j. */
    uint32_t nm = k->n_children - 1;
    int64_t **f = g_new(int64_t *, nm);
    for (uint32_t r = 0; r < nm; r++) {
        uint32_t v = k->mids[r], L = c->n_opts[v];
        const PrismMinPlus *M = comp(c, k->children[r])->m;
        f[r] = g_new(int64_t, L);
        for (uint32_t l = 0; l < L; l++) {
            int64_t best = PRISM_DC_INF;
            if (r == 0) {
                best = prism_minplus_get(M, i, l);
            } else {
                uint32_t Lp = c->n_opts[k->mids[r - 1]];
                for (uint32_t p = 0; p < Lp; p++) {
                    int64_t s = prism_dc_add(f[r - 1][p], prism_minplus_get(M, p, l));
                    if (s < best)
                        best = s;
                }
            }
            f[r][l] = prism_dc_add(best, node_ps(c, v, l));
        }
    }
    g_autofree uint32_t *lay = g_new(uint32_t, nm);
    /* last middle node: smallest l minimising f + last edge to j */
    const PrismMinPlus *Mlast = comp(c, k->children[nm])->m;
    int64_t best = PRISM_DC_INF;
    uint32_t arg = 0;
    for (uint32_t l = 0; l < c->n_opts[k->mids[nm - 1]]; l++) {
        int64_t s = prism_dc_add(f[nm - 1][l], prism_minplus_get(Mlast, l, j));
        if (s < best) {
            best = s;
            arg = l;
        }
    }
    lay[nm - 1] = arg;
    for (uint32_t r = nm - 1; r > 0; r--) {
        uint32_t next = lay[r], v = k->mids[r];
        const PrismMinPlus *M = comp(c, k->children[r])->m;
        int64_t target = f[r][next];
        uint32_t pick = 0;
        for (uint32_t p = 0; p < c->n_opts[k->mids[r - 1]]; p++)
            if (prism_dc_add(prism_dc_add(f[r - 1][p], prism_minplus_get(M, p, next)),
                             node_ps(c, v, next)) == target) {
                pick = p;
                break;
            }
        lay[r - 1] = pick;
    }
    for (uint32_t r = 0; r < nm; r++) {
        choice[k->mids[r]] = (uint8_t)lay[r];
        g_free(f[r]);
    }
    g_free(f);
    for (uint32_t x = 0; x < k->n_children; x++) {
        uint32_t a = x == 0 ? i : lay[x - 1], b = x == nm ? j : lay[x];
        assign(c, k->children[x], a, b, choice);
    }
}

void prism_layout_plan_free(PrismLayoutPlan *p)
{
    if (p == NULL)
        return;
    g_free(p->choice);
    g_free(p);
}

PrismLayoutPlan *prism_smsg_evaluate(const PrismOpGraph *g, const PrismSmsgEnv *env,
                                     const uint8_t *choice)
{
    Ctx c;
    ctx_init(&c, g, env, NULL, FALSE);
    PrismLayoutPlan *p = g_new0(PrismLayoutPlan, 1);
    p->n_ops = g->n_ops;
    p->choice = g_memdup2(choice, g->n_ops ? g->n_ops : 1);
    int64_t total = 0;
    for (uint32_t v = 0; v < g->n_ops; v++) {
        const PrismLayoutOption *o = &c.opts[v][choice[v]];
        total = prism_dc_add(total, node_ps(&c, v, choice[v]));
        p->compute_s += o->compute_s;
        p->op_comm_s += o->comm_s;
        p->mem_bytes += node_mem(&c, v, choice[v]);
        if (env->tp > 1)
            p->fwd_coll[o->fwd_coll]++;
    }
    for (uint32_t e = 0; e < c.n_edges; e++) {
        uint32_t u = c.edges[e].u, v = c.edges[e].v;
        PrismCollective fwd = PRISM_COLL_NONE;
        double t = prism_smsg_edge_time(env, &c.opts[u][choice[u]], &c.opts[v][choice[v]],
                                        out_bytes(&g->ops[u]), &fwd);
        total = prism_dc_add(total, prism_smsg_ps(t));
        p->redist_s += t;
        p->fwd_coll[fwd]++;
    }
    p->fwd_coll[PRISM_COLL_NONE] = 0;
    p->total_ps = total;
    ctx_clear(&c);
    return p;
}

PrismLayoutPlan *prism_smsg_solve(const PrismOpGraph *g, const PrismSmsgEnv *env,
                                  const uint32_t *allowed, GError **error)
{
    Ctx c;
    ctx_init(&c, g, env, allowed, FALSE);
    uint32_t root = 0;
    if (!reduce(&c, &root, error)) {
        ctx_clear(&c);
        return NULL;
    }
    g_autofree uint8_t *choice = g_new0(uint8_t, g->n_ops);
    int64_t best = PRISM_DC_INF;
    uint32_t bi = 0, bj = 0;
    if (root == G_MAXUINT32) {
        for (uint32_t a = 0; a < c.n_opts[c.source]; a++)
            if (node_ps(&c, c.source, a) < best) {
                best = node_ps(&c, c.source, a);
                bi = a;
            }
        choice[c.source] = (uint8_t)bi;
    } else {
        const PrismMinPlus *M = comp(&c, root)->m;
        for (uint32_t i = 0; i < M->rows; i++)
            for (uint32_t j = 0; j < M->cols; j++) {
                int64_t s =
                    prism_dc_add(prism_dc_add(node_ps(&c, c.source, i), prism_minplus_get(M, i, j)),
                                 node_ps(&c, c.sink, j));
                if (s < best) {
                    best = s;
                    bi = i;
                    bj = j;
                }
            }
        if (best != PRISM_DC_INF) {
            choice[c.source] = (uint8_t)bi;
            choice[c.sink] = (uint8_t)bj;
            assign(&c, root, bi, bj, choice);
        }
    }
    const uint64_t power_pairs = c.power_pairs;
    ctx_clear(&c);
    if (best == PRISM_DC_INF) {
        g_set_error(
            error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_INFEASIBLE,
            "graph '%s': no layout assignment over tp=%u has a finite cost (a cost above 9e6 s "
            "from huge sizes, or fixed "
            "input/output layouts and the allowed options exclude every path)",
            g->name, env->tp);
        return NULL;
    }
    PrismLayoutPlan *p = prism_smsg_evaluate(g, env, choice);
    p->power_pairs = power_pairs;
    if (allowed == NULL && p->total_ps != best)
        prism_log(PRISM_LOG_ERROR, -1,
                  "smsg: recovered layouts cost %" G_GINT64_FORMAT
                  " ps but the reduction found %" G_GINT64_FORMAT,
                  p->total_ps, best);
    g_assert(p->total_ps == best);
    return p;
}

gboolean prism_smsg_pareto(const PrismOpGraph *g, const PrismSmsgEnv *env, PrismParetoPoint **front,
                           uint32_t *n_front, GError **error)
{
    Ctx c;
    ctx_init(&c, g, env, NULL, TRUE);
    uint32_t root = 0;
    if (!reduce(&c, &root, error)) {
        ctx_clear(&c);
        return FALSE;
    }
    void *ds = diag_matrix(&c, c.source);
    void *total;
    if (root == G_MAXUINT32) {
        total = ds;
    } else {
        void *dt = diag_matrix(&c, c.sink);
        void *items[3] = {ds, comp(&c, root)->m, dt};
        total = chain_product(&c, items, 3);
        mat_free(&c, ds);
        mat_free(&c, dt);
    }
    *front = prism_pareto_overall(total, n_front);
    mat_free(&c, total);
    ctx_clear(&c);
    return TRUE;
}

PrismLayoutPlan *prism_smsg_greedy(const PrismOpGraph *g, const PrismSmsgEnv *env)
{
    Ctx c;
    ctx_init(&c, g, env, NULL, FALSE);
    uint32_t n = g->n_ops;
    g_autofree int64_t *weight = g_new(int64_t, n ? n : 1);
    g_autofree uint32_t *order = g_new(uint32_t, n ? n : 1);
    for (uint32_t v = 0; v < n; v++) {
        int64_t lo = PRISM_DC_INF, hi = 0;
        for (uint32_t a = 0; a < c.n_opts[v]; a++) {
            int64_t x = node_ps(&c, v, a);
            lo = x < lo ? x : lo;
            hi = x > hi ? x : hi;
        }
        switch (g->ops[v].kind) {
        case PRISM_OP_LINEAR:
        case PRISM_OP_ATTENTION:
        case PRISM_OP_EMBEDDING:
        case PRISM_OP_MOE:
            weight[v] = hi; /* matmul-like: max over cuts */
            break;
        case PRISM_OP_CONV:
            weight[v] = lo;
            break;
        case PRISM_OP_NORM:
        case PRISM_OP_SOFTMAX:
        case PRISM_OP_LOSS:
            weight[v] = PRISM_DC_INF; /* batch-parallel ops first */
            break;
        default:
            weight[v] = 0;
            break;
        }
        order[v] = v;
    }
    /* descending weight, then ascending index (stable insertion sort on indices) */
    for (uint32_t a = 1; a < n; a++)
        for (uint32_t b = a; b > 0 && weight[order[b]] > weight[order[b - 1]]; b--) {
            uint32_t t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    g_autofree uint8_t *choice = g_new0(uint8_t, n ? n : 1);
    g_autofree gboolean *decided = g_new0(gboolean, n ? n : 1);
    for (uint32_t s = 0; s < n; s++) {
        uint32_t v = order[s];
        int64_t best = PRISM_DC_INF;
        uint32_t arg = 0;
        for (uint32_t a = 0; a < c.n_opts[v]; a++) {
            int64_t cost = node_ps(&c, v, a);
            for (uint32_t e = 0; e < c.n_edges; e++) {
                if (c.edges[e].v == v && decided[c.edges[e].u])
                    cost = prism_dc_add(cost, edge_ps(&c, e, choice[c.edges[e].u], a));
                if (c.edges[e].u == v && decided[c.edges[e].v])
                    cost = prism_dc_add(cost, edge_ps(&c, e, a, choice[c.edges[e].v]));
            }
            if (cost < best) {
                best = cost;
                arg = a;
            }
        }
        choice[v] = (uint8_t)arg;
        decided[v] = TRUE;
    }
    ctx_clear(&c);
    return prism_smsg_evaluate(g, env, choice);
}

static const char *const uniform_names[PRISM_UNIFORM_COUNT] = {
    "all replicated", "all data parallel", "all column-split", "all row-split"};

const char *prism_uniform_name(PrismUniform u)
{
    return u < PRISM_UNIFORM_COUNT ? uniform_names[u] : "?";
}

static gboolean name_in(const char *name, const char *const *set)
{
    for (; *set != NULL; set++)
        if (strcmp(name, *set) == 0)
            return TRUE;
    return FALSE;
}

uint32_t *prism_uniform_mask(const PrismOpGraph *g, const PrismSmsgEnv *env, PrismUniform u)
{
    static const char *const rep[] = {"rep", NULL};
    static const char *const data[] = {"dp", "batch", "seq", "rows", NULL};
    static const char *const col[] = {"col", "hidden", "heads", "tp", NULL};
    static const char *const row[] = {"row", "vocab", "heads", "tp", NULL};
    const char *const *sets[PRISM_UNIFORM_COUNT] = {rep, data, col, row};
    uint32_t *mask = g_new(uint32_t, g->n_ops ? g->n_ops : 1);
    for (uint32_t v = 0; v < g->n_ops; v++) {
        PrismLayoutOption o[PRISM_SMSG_MAX_OPTIONS];
        uint32_t n = prism_op_layout_options(&g->ops[v], env, o);
        PrismOpKind k = g->ops[v].kind;
        gboolean weighted = k == PRISM_OP_LINEAR || k == PRISM_OP_CONV || k == PRISM_OP_EMBEDDING ||
                            k == PRISM_OP_ATTENTION || k == PRISM_OP_MOE;
        gboolean restrict_op =
            k != PRISM_OP_INPUT && k != PRISM_OP_OUTPUT &&
            (weighted || u == PRISM_UNIFORM_REPLICATED || u == PRISM_UNIFORM_DATA);
        uint32_t m = 0;
        for (uint32_t a = 0; a < n; a++)
            if (!restrict_op || name_in(o[a].name, sets[u]))
                m |= 1u << a;
        mask[v] = m ? m : (1u << n) - 1;
    }
    return mask;
}
