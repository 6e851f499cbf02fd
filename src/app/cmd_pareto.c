// SPDX-License-Identifier: MIT
/*
 * cmd_pareto.c - `prism pareto FILE.h5 [--objectives ...] [--where ...] [--top K]
 * [--rank-by COL] [--json]`: Pareto fronts and top lists recomputed from a stored
 * landscape, per grid point, over any stored columns.
 *
 * Collective on comm: each rank reads its block of rows and the fronts are merged with
 * the search's deterministic tree (io.h prism_landscape_query), so the output is the
 * same for any rank count; the rows printed are read by rank 0, which alone prints.
 */
#include "app-internal.h"

#include <math.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include <prism/io.h>
#include <prism/space.h>

#define FRONT_TEXT_MAX 40
#define GIB 1073741824.0

typedef struct {
    PrismCommonOptions common;
    char *objectives, *where, *rank_by;
    gint top;
    gboolean robust;     /* --robust: the front over (step_hi, mem_hi), ranked by step_hi */
    gboolean mem_safety; /* --mem-safety: rows at memory risk left out (mem_risk == 0) */
} ParetoOptions;

/* Whole rows of every front and top-list member, read once (rank 0). */
typedef struct {
    GArray *index; /* uint64_t, sorted, unique */
    double *rows;  /* index->len x schema->n */
} Rows;

static gint cmp_u64(gconstpointer a, gconstpointer b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static gboolean load_rows(PrismLandscapeFile *f, const PrismLandscapeAnswer *a, Rows *r,
                          GError **error)
{
    r->index = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    for (size_t p = 0; p < prism_landscape_answer_points(a); p++) {
        const PrismFront *fr = prism_landscape_answer_front(a, p);
        const PrismTopK *tk = prism_landscape_answer_top(a, p);
        for (size_t i = 0; i < prism_front_size(fr); i++) {
            uint64_t x = prism_front_index(fr, i);
            g_array_append_val(r->index, x);
        }
        for (size_t i = 0; i < prism_topk_size(tk); i++) {
            uint64_t x = prism_topk_index(tk, i);
            g_array_append_val(r->index, x);
        }
    }
    g_array_sort(r->index, cmp_u64);
    guint n = 0;
    for (guint i = 0; i < r->index->len; i++)
        if (n == 0 ||
            g_array_index(r->index, uint64_t, n - 1) != g_array_index(r->index, uint64_t, i))
            g_array_index(r->index, uint64_t, n++) = g_array_index(r->index, uint64_t, i);
    g_array_set_size(r->index, n);
    size_t cols = prism_landscape_file_schema(f)->n;
    r->rows = g_new0(double, MAX(n, 1) * cols);
    return prism_landscape_file_read_rows(f, (const uint64_t *)(const void *)r->index->data, n,
                                          r->rows, error);
}

static const double *row_of(const Rows *r, uint64_t index, size_t cols)
{
    guint lo = 0, hi = r->index->len;
    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        if (g_array_index(r->index, uint64_t, mid) < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return r->rows + (size_t)lo * cols;
}

static char *strategy_text(const PrismLandscapeSchema *schema, const double *row)
{
    /* every dim the file holds (registry.h); an overlap column a schema-3 file lacks
     * leaves its option on, as those files had it */
    PrismStrategy s = {0};
    for (int d = 0; d < PRISM_DIM_COUNT; d++) {
        int c = prism_landscape_schema_find(schema, prism_dim_name((PrismDim)d));
        if (c >= 0)
            prism_strategy_set_dim(&s, (PrismDim)d, (uint32_t)row[c]);
    }
    g_autofree char *t = prism_strategy_format(&s);
    return g_strdup_printf("devices=%u,%s", s.devices, t);
}

/* A value in its column's unit: bytes in GiB, fractions in %, codes by name. */
static char *value_text(const PrismLandscapeColumn *c, double v)
{
    if (c->codes != NULL) {
        g_auto(GStrv) names = g_strsplit(c->codes, ",", -1);
        if (v >= 0 && v < g_strv_length(names))
            return g_strdup(names[(int)v]);
    }
    if (strcmp(c->unit, "bytes") == 0)
        return g_strdup_printf("%.2f GiB", v / GIB);
    if (strcmp(c->unit, "fraction") == 0)
        return g_strdup_printf("%.1f%%", 100 * v);
    if (strcmp(c->unit, "s") == 0)
        return g_strdup_printf("%.4g s", v);
    return g_strdup_printf("%.6g", v);
}

static void print_table(FILE *out, const PrismLandscapeSchema *schema, const Rows *r,
                        const size_t *cols, size_t n_cols, const uint64_t *idx, size_t n,
                        size_t max)
{
    fprintf(out, "  %4s %10s", "#", "index");
    for (size_t k = 0; k < n_cols; k++)
        fprintf(out, " %14s", schema->cols[cols[k]].name);
    fprintf(out, "  strategy\n");
    for (size_t i = 0; i < n && i < max; i++) {
        const double *row = row_of(r, idx[i], schema->n);
        fprintf(out, "  %4zu %10" G_GUINT64_FORMAT, i + 1, idx[i]);
        for (size_t k = 0; k < n_cols; k++) {
            g_autofree char *t = value_text(&schema->cols[cols[k]], row[cols[k]]);
            fprintf(out, " %14s", t);
        }
        g_autofree char *st = strategy_text(schema, row);
        fprintf(out, "  %s\n", st);
    }
    if (n > max)
        fprintf(out, "  ... %zu more (--json lists all)\n", n - max);
}

/* The columns of the text tables: objectives, rank-by, then step_time/peak_mem/mfu. */
static size_t table_columns(const PrismLandscapeSchema *schema, const PrismLandscapeAnswer *a,
                            size_t *cols)
{
    size_t n = prism_landscape_answer_objectives(a, cols, NULL);
    size_t extra[4] = {prism_landscape_answer_rank_by(a, NULL)};
    size_t n_extra = 1;
    static const char *const always[] = {"step_time", "peak_mem", "mfu"};
    for (size_t i = 0; i < G_N_ELEMENTS(always); i++) {
        int c = prism_landscape_schema_find(schema, always[i]);
        if (c >= 0)
            extra[n_extra++] = (size_t)c;
    }
    for (size_t i = 0; i < n_extra && n < 8; i++) {
        gboolean dup = FALSE;
        for (size_t k = 0; k < n; k++)
            dup |= cols[k] == extra[i];
        if (!dup)
            cols[n++] = extra[i];
    }
    return n;
}

static char *objective_text(const PrismLandscapeSchema *schema, const PrismLandscapeAnswer *a)
{
    size_t cols[8];
    gboolean mx[8];
    size_t n = prism_landscape_answer_objectives(a, cols, mx);
    GString *s = g_string_new(NULL);
    for (size_t k = 0; k < n; k++)
        g_string_append_printf(s, "%s%s%s", k ? "," : "", mx[k] ? "max:" : "",
                               schema->cols[cols[k]].name);
    return g_string_free(s, FALSE);
}

static void print_text(FILE *out, const char *path, PrismLandscapeFile *f,
                       const PrismLandscapeAnswer *a, const Rows *r, size_t top_k,
                       const double *const *grid, char *const *models, char *const *clusters)
{
    const PrismLandscapeSchema *schema = prism_landscape_file_schema(f);
    g_autofree char *obj = objective_text(schema, a);
    gboolean rk_max = FALSE;
    size_t rk = prism_landscape_answer_rank_by(a, &rk_max);
    const char *where = prism_landscape_answer_where(a);
    fprintf(out, "prism pareto %s: %" G_GUINT64_FORMAT " rows; objectives %s%s%s\n", path,
            prism_landscape_file_rows(f), obj, *where ? "; filter " : "", where);
    size_t cols[8];
    size_t n_cols = table_columns(schema, a, cols);
    size_t points = prism_landscape_answer_points(a);
    g_autoptr(GString) empty = g_string_new(NULL); /* grid points --where left no row of */
    for (size_t p = 0; p < points; p++) {
        if (points > 1 && *where && prism_landscape_answer_matched(a, p) == 0) {
            g_string_append_printf(empty, "%s%zu", empty->len ? ", " : "", p);
            continue;
        }
        if (points > 1 && grid != NULL)
            fprintf(out, "\npoint %zu: %s on %.0f x %s, gbs %.0f, seq %.0f", p,
                    models ? models[p] : "?", grid[0][p], clusters ? clusters[p] : "?", grid[1][p],
                    grid[2][p]);
        else if (points > 1)
            fprintf(out, "\npoint %zu", p);
        fprintf(out,
                "%s%" G_GUINT64_FORMAT " rows pass the filter, %" G_GUINT64_FORMAT
                " of them feasible\n",
                points > 1 ? ": " : "", prism_landscape_answer_matched(a, p),
                prism_landscape_answer_feasible(a, p));
        const PrismFront *fr = prism_landscape_answer_front(a, p);
        const PrismTopK *tk = prism_landscape_answer_top(a, p);
        g_autofree uint64_t *fi = g_new(uint64_t, MAX(prism_front_size(fr), 1));
        for (size_t i = 0; i < prism_front_size(fr); i++)
            fi[i] = prism_front_index(fr, i);
        fprintf(out, "Pareto front (%zu):\n", prism_front_size(fr));
        print_table(out, schema, r, cols, n_cols, fi, prism_front_size(fr), FRONT_TEXT_MAX);
        g_autofree uint64_t *ti = g_new(uint64_t, MAX(prism_topk_size(tk), 1));
        for (size_t i = 0; i < prism_topk_size(tk); i++)
            ti[i] = prism_topk_index(tk, i);
        fprintf(out, "Top %zu by %s%s:\n", prism_topk_size(tk), rk_max ? "max:" : "",
                schema->cols[rk].name);
        print_table(out, schema, r, cols, n_cols, ti, prism_topk_size(tk), top_k);
    }
    if (empty->len > 0)
        fprintf(out, "\nno row passes the filter at grid point%s %s\n",
                strchr(empty->str, ',') ? "s" : "", empty->str);
}

static void json_row(JsonBuilder *b, const PrismLandscapeSchema *schema, const Rows *r,
                     uint64_t index)
{
    const double *row = row_of(r, index, schema->n);
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "index");
    json_builder_add_int_value(b, (gint64)index);
    g_autofree char *st = strategy_text(schema, row);
    json_builder_set_member_name(b, "strategy");
    json_builder_add_string_value(b, st);
    for (size_t c = 0; c < schema->n; c++) {
        const PrismLandscapeColumn *col = &schema->cols[c];
        json_builder_set_member_name(b, col->name);
        if (col->codes != NULL) {
            g_autofree char *t = value_text(col, row[c]);
            json_builder_add_string_value(b, t);
        } else if (col->store == PRISM_STORE_F64 || col->store == PRISM_STORE_F32) {
            json_builder_add_double_value(b, row[c]);
        } else {
            json_builder_add_int_value(b, (gint64)row[c]);
        }
    }
    json_builder_end_object(b);
}

static void print_json(FILE *out, const char *path, PrismLandscapeFile *f,
                       const PrismLandscapeAnswer *a, const Rows *r)
{
    const PrismLandscapeSchema *schema = prism_landscape_file_schema(f);
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "file");
    json_builder_add_string_value(b, path);
    json_builder_set_member_name(b, "rows");
    json_builder_add_int_value(b, (gint64)prism_landscape_file_rows(f));
    json_builder_set_member_name(b, "where");
    json_builder_add_string_value(b, prism_landscape_answer_where(a));
    g_autofree char *obj = objective_text(schema, a);
    json_builder_set_member_name(b, "objectives");
    json_builder_begin_array(b);
    g_auto(GStrv) names = g_strsplit(obj, ",", -1);
    for (char **n = names; *n != NULL; n++)
        json_builder_add_string_value(b, *n);
    json_builder_end_array(b);
    gboolean rk_max = FALSE;
    size_t rk = prism_landscape_answer_rank_by(a, &rk_max);
    g_autofree char *rank_by = g_strdup_printf("%s%s", rk_max ? "max:" : "", schema->cols[rk].name);
    json_builder_set_member_name(b, "rank_by");
    json_builder_add_string_value(b, rank_by);
    json_builder_set_member_name(b, "points");
    json_builder_begin_array(b);
    for (size_t p = 0; p < prism_landscape_answer_points(a); p++) {
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "point");
        json_builder_add_int_value(b, (gint64)p);
        json_builder_set_member_name(b, "matched");
        json_builder_add_int_value(b, (gint64)prism_landscape_answer_matched(a, p));
        json_builder_set_member_name(b, "feasible");
        json_builder_add_int_value(b, (gint64)prism_landscape_answer_feasible(a, p));
        const PrismFront *fr = prism_landscape_answer_front(a, p);
        json_builder_set_member_name(b, "front");
        json_builder_begin_array(b);
        for (size_t i = 0; i < prism_front_size(fr); i++)
            json_row(b, schema, r, prism_front_index(fr, i));
        json_builder_end_array(b);
        const PrismTopK *tk = prism_landscape_answer_top(a, p);
        json_builder_set_member_name(b, "top");
        json_builder_begin_array(b);
        for (size_t i = 0; i < prism_topk_size(tk); i++)
            json_row(b, schema, r, prism_topk_index(tk, i));
        json_builder_end_array(b);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
    prism_app_print_json(out, b);
}

/* Exit status 2 when every front is empty: no row passes --where, or none that passes is
 * feasible. The same on every rank (the answer is). */
static gboolean answer_not_empty(const char *path, PrismLandscapeFile *f,
                                 const PrismLandscapeAnswer *a, GError **error)
{
    uint64_t matched = 0, feasible = 0;
    for (size_t p = 0; p < prism_landscape_answer_points(a); p++) {
        matched += prism_landscape_answer_matched(a, p);
        feasible += prism_landscape_answer_feasible(a, p);
    }
    const char *where = prism_landscape_answer_where(a);
    if (matched == 0) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_INFEASIBLE,
                    "%s: no row of %" G_GUINT64_FORMAT " passes --where '%s'", path,
                    prism_landscape_file_rows(f), where);
        return FALSE;
    }
    if (feasible == 0) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_INFEASIBLE,
                    "%s: none of the %" G_GUINT64_FORMAT " rows%s%s%s is feasible, so every "
                    "front is empty (`prism info %s` counts the rows per reason)",
                    path, matched, *where ? " that pass --where '" : "", where, *where ? "'" : "",
                    path);
        return FALSE;
    }
    return TRUE;
}

static gboolean pareto_run(PrismComm *comm, ParetoOptions *o, const char *path, GError **error)
{
    if (o->top < 1 || o->top > 100000) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "--top %d: must be between 1 and 100000", o->top);
        return FALSE;
    }
    if (o->robust && (o->objectives != NULL || o->rank_by != NULL)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT,
                    "--robust sets the objectives (step_hi,mem_hi) and the ranking (step_hi); "
                    "allowed: --robust or --objectives/--rank-by");
        return FALSE;
    }
    PrismLandscapeFile *f = prism_landscape_file_open(comm, path, error);
    if (f == NULL)
        return FALSE;
    if ((o->robust || o->mem_safety) &&
        prism_landscape_schema_find(prism_landscape_file_schema(f), "mem_risk") < 0) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "%s: --%s reads the interval columns (step_hi, mem_hi, mem_risk), which "
                    "this landscape does not store (allowed: a landscape of prism sweep "
                    "--intervals)",
                    path, o->robust ? "robust" : "mem-safety");
        prism_landscape_file_close(f);
        return FALSE;
    }
    g_autofree char *where = o->mem_safety
                                 ? g_strdup_printf("%s%smem_risk==0", o->where ? o->where : "",
                                                   o->where && *o->where ? "," : "")
                                 : g_strdup(o->where);
    PrismLandscapeQuery q = {o->robust ? "step_hi,mem_hi" : o->objectives, where,
                             o->robust ? "step_hi" : o->rank_by, (size_t)o->top};
    PrismLandscapeAnswer *a = prism_landscape_query(f, &q, error);
    Rows r = {0};
    double *grid[3] = {NULL, NULL, NULL};
    uint64_t n_grid = a ? prism_landscape_file_group_rows(f, "grid") : 0;
    gboolean ok = a != NULL && load_rows(f, a, &r, error);
    static const char *const gcols[] = {"devices", "gbs", "seq"};
    for (size_t i = 0; ok && n_grid > 0 && i < 3; i++) {
        grid[i] = g_new0(double, n_grid);
        ok = prism_landscape_file_read(f, "grid", gcols[i], 0, n_grid, grid[i], error);
    }
    g_auto(GStrv) models =
        ok && n_grid > 0 ? prism_landscape_file_grid_names(f, "model", n_grid) : NULL;
    g_auto(GStrv) clusters =
        ok && n_grid > 0 ? prism_landscape_file_grid_names(f, "cluster", n_grid) : NULL;
    FILE *out = prism_app_out(comm);
    if (ok && out != NULL) {
        if (o->common.json)
            print_json(out, path, f, a, &r);
        else
            print_text(out, path, f, a, &r, (size_t)o->top,
                       n_grid >= prism_landscape_answer_points(a) && n_grid > 0
                           ? (const double *const *)grid
                           : NULL,
                       models, clusters);
    }
    if (ok) /* an empty answer is reported (above), then refused like plan's "nothing fits" */
        ok = answer_not_empty(path, f, a, error);
    for (size_t i = 0; i < 3; i++)
        g_free(grid[i]);
    if (r.index)
        g_array_unref(r.index);
    g_free(r.rows);
    prism_landscape_answer_free(a);
    prism_landscape_file_close(f);
    return ok;
}

gboolean prism_cmd_pareto(PrismComm *comm, int argc, char **argv, GError **error)
{
    ParetoOptions o = {.common.flags = PRISM_OPT_JSON, .top = 10};
    const GOptionEntry entries[] = {
        {"objectives", 0, 0, G_OPTION_ARG_STRING, &o.objectives,
         "stored columns to minimise (max:COL maximises); default: the file's objectives",
         "COL,..."},
        {"where", 'w', 0, G_OPTION_ARG_STRING, &o.where,
         "keep rows passing every comparison, e.g. \"tp<=8,pp>=2,schedule=1f1b\"", "COL OP V,..."},
        {"top", 'k', 0, G_OPTION_ARG_INT, &o.top, "length of the top list (default 10)", "K"},
        {"rank-by", 0, 0, G_OPTION_ARG_STRING, &o.rank_by,
         "column of the top list (default: the file's rank_by, else step_time)", "COL"},
        {"robust", 0, 0, G_OPTION_ARG_NONE, &o.robust,
         "the front over the pessimistic corner (step_hi, mem_hi) and the top list by step_hi "
         "(a landscape of sweep --intervals)",
         NULL},
        {"mem-safety", 0, 0, G_OPTION_ARG_NONE, &o.mem_safety,
         "leave out the rows at memory risk (mem_risk != 0; a landscape of sweep --intervals)",
         NULL},
        G_OPTION_ENTRY_NULL};
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("FILE.h5 - Pareto fronts and top lists from a stored landscape");
    g_option_context_set_summary(
        ctx, "Recomputes the fronts (only feasible rows) and top lists of a landscape written\n"
             "by `prism sweep`, per grid point, over any stored columns and with row filters.\n"
             "Under mpirun each rank reads its block of rows; the result does not depend on\n"
             "the rank count.");
    g_option_context_add_main_entries(ctx, entries, NULL);
    prism_app_add_common_options(ctx, &o.common);
    gboolean ok = prism_app_parse(ctx, &argc, &argv, error);
    if (ok && argc != 2) {
        g_set_error(error, PRISM_INPUT_ERROR,
                    argc < 2 ? PRISM_INPUT_ERROR_MISSING : PRISM_INPUT_ERROR_PARSE,
                    "prism pareto takes one landscape file (got %d arguments)", argc - 1);
        ok = FALSE;
    }
    if (ok)
        ok = pareto_run(comm, &o, argv[1], error);
    prism_common_options_clear(&o.common);
    g_free(o.objectives);
    g_free(o.where);
    g_free(o.rank_by);
    return ok;
}
