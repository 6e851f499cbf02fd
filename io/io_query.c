// SPDX-License-Identifier: MIT
/*
 * io_query.c - Pareto fronts and top-k lists recomputed from a stored landscape
 * (`prism pareto FILE`): each rank reads its block of rows (collective hyperslab reads
 * in slabs), filters them (feasible, --where), offers them to per-grid-point fronts and
 * top-k lists (front.h), and the lists are merged across ranks with the same
 * deterministic tree as the search driver, so the answer is identical for any rank
 * count. Collective on the file's communicator. Not thread-safe.
 */
#include <prism/io.h>

#include <math.h>
#include <string.h>

#include <prism/core.h>
#include <prism/front.h>

#include "io-internal.h"

#define SLAB_ROWS (1u << 20)

struct PrismLandscapeAnswer {
    size_t n_points;
    size_t n_obj;
    size_t obj_col[PRISM_FRONT_MAX_OBJECTIVES];
    gboolean obj_max[PRISM_FRONT_MAX_OBJECTIVES];
    size_t rank_col;
    gboolean rank_max;
    uint64_t *matched;  /* per point: rows passing --where */
    uint64_t *feasible; /* per point: of those, feasible */
    PrismFront **fronts;
    PrismTopK **tops;
    char *where_text;
};

void prism_landscape_answer_free(PrismLandscapeAnswer *a)
{
    if (a == NULL)
        return;
    for (size_t p = 0; p < a->n_points; p++) {
        prism_front_free(a->fronts ? a->fronts[p] : NULL);
        prism_topk_free(a->tops ? a->tops[p] : NULL);
    }
    g_free(a->fronts);
    g_free(a->tops);
    g_free(a->matched);
    g_free(a->feasible);
    g_free(a->where_text);
    g_free(a);
}

static gboolean find_column(const PrismLandscapeSchema *schema, const char *what, const char *text,
                            size_t *col, gboolean *maximize, GError **error)
{
    const char *name = text;
    *maximize = FALSE;
    if (g_str_has_prefix(name, "max:")) {
        *maximize = TRUE;
        name += 4;
    } else if (g_str_has_prefix(name, "min:")) {
        name += 4;
    }
    int c = prism_io_schema_resolve_internal(schema, name);
    if (c < 0) {
        g_autofree char *close = prism_io_schema_close_names_internal(schema, name);
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                    "%s: unknown column '%s' (closest: %s; `prism info FILE` lists them)", what,
                    name, close);
        return FALSE;
    }
    *col = (size_t)c;
    return TRUE;
}

static gboolean parse_objectives(PrismLandscapeAnswer *a, const PrismLandscapeSchema *schema,
                                 const char *text, GError **error)
{
    g_auto(GStrv) parts = g_strsplit(text, ",", -1);
    for (char **p = parts; *p != NULL; p++) {
        g_autofree char *t = g_strstrip(g_strdup(*p));
        if (*t == '\0' || a->n_obj == PRISM_FRONT_MAX_OBJECTIVES) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE, "--objectives '%s': %s",
                        text, *t == '\0' ? "an empty name" : "at most 8 objectives");
            return FALSE;
        }
        size_t col;
        gboolean mx;
        if (!find_column(schema, "--objectives", t, &col, &mx, error))
            return FALSE;
        for (size_t i = 0; i < a->n_obj; i++)
            if (a->obj_col[i] == col) {
                g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT,
                            "--objectives '%s': column %s named twice", text,
                            schema->cols[col].name);
                return FALSE;
            }
        a->obj_col[a->n_obj] = col;
        a->obj_max[a->n_obj] = mx;
        a->n_obj++;
    }
    return TRUE;
}

/* Parse everything before any collective read; the same on every rank. */
static PrismLandscapeAnswer *answer_new(PrismLandscapeFile *f, const PrismLandscapeQuery *q,
                                        PrismWhere **where, GError **error)
{
    const PrismLandscapeSchema *schema = prism_landscape_file_schema(f);
    g_autoptr(PrismLandscapeAnswer) a = g_new0(PrismLandscapeAnswer, 1);
    if (!prism_landscape_file_has_landscape(f)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_MISSING,
                    "%s: the file has no /landscape (written with --no-landscape, or an "
                    "unfinished .partial; `prism info %s` tells which)",
                    prism_landscape_file_path(f), prism_landscape_file_path(f));
        return NULL;
    }
    const char *objectives = q->objectives;
    if (objectives == NULL)
        objectives = prism_landscape_file_attr(f, "objectives");
    if (objectives == NULL || *objectives == '\0')
        objectives = "step_time,peak_mem";
    if (!parse_objectives(a, schema, objectives, error))
        return NULL;
    const char *rank_by = q->rank_by;
    if (rank_by == NULL)
        rank_by = prism_landscape_file_attr(f, "rank_by");
    if (rank_by == NULL || *rank_by == '\0')
        rank_by = prism_landscape_schema_find(schema, "step_time") >= 0
                      ? "step_time"
                      : schema->cols[a->obj_col[0]].name;
    if (!find_column(schema, "--rank-by", rank_by, &a->rank_col, &a->rank_max, error))
        return NULL;
    *where = prism_where_parse(q->where, schema, error);
    if (*where == NULL)
        return NULL;
    a->where_text = prism_where_describe(*where, schema);
    if (prism_landscape_schema_find(schema, "feasible") < 0) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "%s: the file has no 'feasible' column", prism_landscape_file_path(f));
        return NULL;
    }
    return g_steal_pointer(&a);
}

/* The columns a query reads: point, feasible, objectives, rank-by, where columns. */
typedef struct {
    size_t n;
    size_t col[4 + PRISM_FRONT_MAX_OBJECTIVES + 64];
} Needed;

static size_t need(Needed *nd, size_t col)
{
    for (size_t i = 0; i < nd->n; i++)
        if (nd->col[i] == col)
            return i;
    nd->col[nd->n] = col;
    return nd->n++;
}

PrismLandscapeAnswer *prism_landscape_query(PrismLandscapeFile *f, const PrismLandscapeQuery *q,
                                            GError **error)
{
    PrismComm *comm = prism_landscape_file_comm(f);
    const PrismLandscapeSchema *schema = prism_landscape_file_schema(f);
    GError *local = NULL;
    g_autoptr(PrismWhere) where = NULL;
    g_autoptr(PrismLandscapeAnswer) a = answer_new(f, q, &where, &local);
    if (a != NULL && prism_where_n_terms(where) > 64)
        g_set_error(&local, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "--where: at most 64 comparisons");
    if (!prism_comm_agree_error(comm, &local)) {
        g_propagate_error(error, local);
        return NULL;
    }
    size_t top_k = q->top_k ? q->top_k : 10;
    Needed nd = {0, {0}};
    int point_col = prism_landscape_schema_find(schema, "point");
    size_t i_point = point_col >= 0 ? need(&nd, (size_t)point_col) : SIZE_MAX;
    size_t i_feas = need(&nd, (size_t)prism_landscape_schema_find(schema, "feasible"));
    size_t i_obj[PRISM_FRONT_MAX_OBJECTIVES], i_where[64];
    for (size_t k = 0; k < a->n_obj; k++)
        i_obj[k] = need(&nd, a->obj_col[k]);
    size_t i_rank = need(&nd, a->rank_col);
    for (size_t k = 0; k < prism_where_n_terms(where); k++)
        i_where[k] = need(&nd, prism_where_column(where, k));
    uint64_t total = prism_landscape_file_rows(f), lo, hi;
    prism_partition_block(total, comm->rank, comm->size, &lo, &hi);
    /* Same slab count on every rank: the largest block is ceil(total / size). */
    uint64_t biggest = (total + (uint64_t)comm->size - 1) / (uint64_t)comm->size;
    uint64_t slabs = (biggest + SLAB_ROWS - 1) / SLAB_ROWS;
    size_t cap = (size_t)MIN((uint64_t)SLAB_ROWS, MAX(hi - lo, 1));
    double **v = g_new0(double *, nd.n);
    for (size_t i = 0; i < nd.n; i++)
        v[i] = g_new(double, cap);
    const double *wv[64];
    for (size_t k = 0; k < prism_where_n_terms(where); k++)
        wv[k] = v[i_where[k]];
    GArray *fronts = g_array_new(FALSE, TRUE, sizeof(PrismFront *));
    GArray *tops = g_array_new(FALSE, TRUE, sizeof(PrismTopK *));
    GArray *matched = g_array_new(FALSE, TRUE, sizeof(uint64_t));
    GArray *feasible = g_array_new(FALSE, TRUE, sizeof(uint64_t));
    gboolean ok = TRUE;
    for (uint64_t s = 0; s < slabs && ok; s++) {
        uint64_t s_lo = MIN(lo + s * SLAB_ROWS, hi), s_hi = MIN(s_lo + SLAB_ROWS, hi);
        for (size_t i = 0; i < nd.n && ok; i++)
            ok = prism_landscape_file_read(f, "landscape", schema->cols[nd.col[i]].name, s_lo,
                                           s_hi - s_lo, v[i], error);
        for (uint64_t r = 0; ok && r < s_hi - s_lo; r++) {
            guint p = i_point != SIZE_MAX ? (guint)v[i_point][r] : 0;
            if (p >= matched->len) { /* every point of the file counts, matched or not */
                g_array_set_size(matched, p + 1);
                g_array_set_size(feasible, p + 1);
            }
            if (!prism_where_accepts(where, wv, (size_t)r))
                continue;
            g_array_index(matched, uint64_t, p)++;
            if (v[i_feas][r] == 0)
                continue;
            g_array_index(feasible, uint64_t, p)++;
            while (fronts->len <= p) {
                PrismFront *fr = prism_front_new(a->n_obj);
                PrismTopK *tk = prism_topk_new(top_k);
                g_array_append_val(fronts, fr);
                g_array_append_val(tops, tk);
            }
            double key[PRISM_FRONT_MAX_OBJECTIVES];
            for (size_t k = 0; k < a->n_obj; k++)
                key[k] = a->obj_max[k] ? -v[i_obj[k]][r] : v[i_obj[k]][r];
            prism_front_offer(g_array_index(fronts, PrismFront *, p), key, s_lo + r);
            double rk = a->rank_max ? -v[i_rank][r] : v[i_rank][r];
            prism_topk_offer(g_array_index(tops, PrismTopK *, p), rk, s_lo + r);
        }
    }
    for (size_t i = 0; i < nd.n; i++)
        g_free(v[i]);
    g_free(v);
    /* Every rank knows the number of points: the largest point seen anywhere + 1. */
    uint64_t n_points = 0;
    if (ok)
        ok = prism_comm_allreduce_u64(comm, matched->len, MPI_MAX, &n_points, error);
    if (ok) {
        g_array_set_size(matched, (guint)n_points);
        g_array_set_size(feasible, (guint)n_points);
        while (fronts->len < n_points) {
            PrismFront *fr = prism_front_new(a->n_obj);
            PrismTopK *tk = prism_topk_new(top_k);
            g_array_append_val(fronts, fr);
            g_array_append_val(tops, tk);
        }
        a->matched = g_new0(uint64_t, MAX(n_points, 1));
        a->feasible = g_new0(uint64_t, MAX(n_points, 1));
        if (n_points > 0) {
            int rc = MPI_Allreduce(matched->data, a->matched, (int)n_points, MPI_UINT64_T, MPI_SUM,
                                   comm->mpi);
            if (rc == MPI_SUCCESS)
                rc = MPI_Allreduce(feasible->data, a->feasible, (int)n_points, MPI_UINT64_T,
                                   MPI_SUM, comm->mpi);
            if (rc != MPI_SUCCESS) {
                prism_mpi_set_error(error, rc, "MPI_Allreduce", __FILE__, __LINE__);
                ok = FALSE;
            }
        }
    }
    a->n_points = fronts->len; /* == n_points on success; what to free otherwise */
    a->fronts = (PrismFront **)(void *)g_array_free(fronts, FALSE);
    a->tops = (PrismTopK **)(void *)g_array_free(tops, FALSE);
    g_array_unref(matched);
    g_array_unref(feasible);
    for (size_t p = 0; ok && p < a->n_points; p++)
        ok = prism_front_reduce(comm, &a->fronts[p], error) &&
             prism_topk_reduce(comm, &a->tops[p], error);
    if (!ok)
        return NULL;
    return g_steal_pointer(&a);
}

size_t prism_landscape_answer_points(const PrismLandscapeAnswer *a)
{
    return a->n_points;
}

uint64_t prism_landscape_answer_matched(const PrismLandscapeAnswer *a, size_t point)
{
    return point < a->n_points ? a->matched[point] : 0;
}

uint64_t prism_landscape_answer_feasible(const PrismLandscapeAnswer *a, size_t point)
{
    return point < a->n_points ? a->feasible[point] : 0;
}

const PrismFront *prism_landscape_answer_front(const PrismLandscapeAnswer *a, size_t point)
{
    return a->fronts[point];
}

const PrismTopK *prism_landscape_answer_top(const PrismLandscapeAnswer *a, size_t point)
{
    return a->tops[point];
}

size_t prism_landscape_answer_objectives(const PrismLandscapeAnswer *a, size_t *cols,
                                         gboolean *maximize)
{
    for (size_t k = 0; k < a->n_obj; k++) {
        if (cols)
            cols[k] = a->obj_col[k];
        if (maximize)
            maximize[k] = a->obj_max[k];
    }
    return a->n_obj;
}

size_t prism_landscape_answer_rank_by(const PrismLandscapeAnswer *a, gboolean *maximize)
{
    if (maximize)
        *maximize = a->rank_max;
    return a->rank_col;
}

const char *prism_landscape_answer_where(const PrismLandscapeAnswer *a)
{
    return a->where_text;
}
