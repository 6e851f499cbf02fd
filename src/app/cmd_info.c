// SPDX-License-Identifier: MIT
/*
 * cmd_info.c - `prism info FILE [--json]`: provenance, inputs, space, row counts
 * (feasible, by reason, per grid point) and the columns of a landscape file; for an
 * unfinished FILE.partial also the rows persisted so far.
 *
 * Collective on comm: the file is opened by every rank and the reason histogram is
 * counted in parallel (each rank a block of rows); only rank 0 prints.
 */
#include "app-internal.h"

#include <string.h>

#include <json-glib/json-glib.h>

#include <prism/io.h>

#define SLAB (1u << 20)

typedef struct {
    uint64_t rows, feasible;
    uint64_t reasons[16]; /* by code; codes >= 15 are counted in the last slot */
    char **reason_names;
    gboolean have_reason;
    uint64_t n_points;
    double *grid[8]; /* devices gbs seq rows feasible_rows first_row; filled on all ranks */
    char **models, **clusters; /* per grid point, as the grid gave them */
} Counts;

static void counts_clear(Counts *c)
{
    g_strfreev(c->reason_names);
    g_strfreev(c->models);
    g_strfreev(c->clusters);
    for (size_t i = 0; i < G_N_ELEMENTS(c->grid); i++)
        g_free(c->grid[i]);
}

/* Reason histogram: each rank counts its block; one allreduce. Collective. */
static gboolean count_rows(PrismLandscapeFile *f, Counts *c, GError **error)
{
    PrismComm *comm = prism_landscape_file_comm(f);
    const PrismLandscapeSchema *schema = prism_landscape_file_schema(f);
    c->rows = prism_landscape_file_rows(f);
    int rc = prism_landscape_schema_find(schema, "reason");
    int fc = prism_landscape_schema_find(schema, "feasible");
    c->have_reason = prism_landscape_file_has_landscape(f) && rc >= 0 && fc >= 0;
    if (!c->have_reason)
        return TRUE;
    if (schema->cols[rc].codes)
        c->reason_names = g_strsplit(schema->cols[rc].codes, ",", -1);
    uint64_t lo, hi, local[17] = {0};
    prism_partition_block(c->rows, comm->rank, comm->size, &lo, &hi);
    uint64_t biggest = (c->rows + (uint64_t)comm->size - 1) / (uint64_t)comm->size;
    uint64_t slabs = (biggest + SLAB - 1) / SLAB;
    g_autofree double *r = g_new(double, MIN(MAX(hi - lo, 1), SLAB));
    g_autofree double *fe = g_new(double, MIN(MAX(hi - lo, 1), SLAB));
    for (uint64_t s = 0; s < slabs; s++) {
        uint64_t a = MIN(lo + s * SLAB, hi), b = MIN(a + SLAB, hi);
        if (!prism_landscape_file_read(f, "landscape", "reason", a, b - a, r, error) ||
            !prism_landscape_file_read(f, "landscape", "feasible", a, b - a, fe, error))
            return FALSE;
        for (uint64_t i = 0; i < b - a; i++) {
            unsigned code = r[i] >= 0 && r[i] < 15 ? (unsigned)r[i] : 15;
            local[code]++;
            local[16] += fe[i] != 0;
        }
    }
    uint64_t all[17];
    PRISM_MPI_TRY(MPI_Allreduce(local, all, 17, MPI_UINT64_T, MPI_SUM, comm->mpi), error);
    memcpy(c->reasons, all, sizeof c->reasons);
    c->feasible = all[16];
    return TRUE;
}

static gboolean read_grid(PrismLandscapeFile *f, Counts *c, GError **error)
{
    static const char *const cols[] = {"devices", "gbs",           "seq",
                                       "rows",    "feasible_rows", "first_row"};
    c->n_points = prism_landscape_file_group_rows(f, "grid");
    if (c->n_points == 0)
        return TRUE;
    for (size_t i = 0; i < G_N_ELEMENTS(cols); i++) {
        c->grid[i] = g_new0(double, c->n_points);
        if (!prism_landscape_file_read(f, "grid", cols[i], 0, c->n_points, c->grid[i], error))
            return FALSE;
    }
    c->models = prism_landscape_file_grid_names(f, "model", c->n_points);
    c->clusters = prism_landscape_file_grid_names(f, "cluster", c->n_points);
    return TRUE;
}

static JsonNode *parse_json(const char *text)
{
    if (text == NULL || (*text != '{' && *text != '['))
        return NULL;
    return json_from_string(text, NULL);
}

/* "name" of an object, or the names of an array of objects joined. */
static char *names_of(const char *attr)
{
    g_autoptr(JsonNode) n = parse_json(attr);
    if (n == NULL)
        return g_strdup(attr ? attr : "?");
    if (JSON_NODE_HOLDS_OBJECT(n))
        return g_strdup(
            json_object_get_string_member_with_default(json_node_get_object(n), "name", "?"));
    GString *s = g_string_new(NULL);
    JsonArray *a = json_node_get_array(n);
    g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint i = 0; i < json_array_get_length(a); i++) {
        JsonObject *o = json_array_get_object_element(a, i);
        const char *name = o ? json_object_get_string_member_with_default(o, "name", "?") : "?";
        if (g_hash_table_add(seen, (gpointer)name))
            g_string_append_printf(s, "%s%s", s->len ? ", " : "", name);
    }
    return g_string_free(s, FALSE);
}

static void print_space(FILE *out, const char *attr)
{
    g_autoptr(JsonNode) n = parse_json(attr);
    if (n == NULL || !JSON_NODE_HOLDS_OBJECT(n)) {
        if (n != NULL)
            fprintf(out, "space:      one per grid point (see --json)\n");
        return;
    }
    JsonObject *o = json_node_get_object(n);
    if (json_object_has_member(o, "points")) { /* a grid: per point in /grid */
        fprintf(out,
                "space:      %" G_GINT64_FORMAT " strategies in %" G_GINT64_FORMAT
                " grid points (per point: /grid/rows)\n",
                json_object_get_int_member_with_default(o, "total", 0),
                json_object_get_int_member_with_default(o, "points", 0));
        return;
    }
    JsonObject *dims = json_object_get_object_member(o, "dims");
    fprintf(out, "space:      %" G_GINT64_FORMAT " strategies in %" G_GINT64_FORMAT " segments\n",
            json_object_get_int_member_with_default(o, "total", 0),
            json_object_get_int_member_with_default(o, "segments", 0));
    if (dims == NULL)
        return;
    g_autoptr(GList) members = json_object_get_members(dims);
    for (GList *m = members; m != NULL; m = m->next) {
        JsonObject *d = json_object_get_object_member(dims, m->data);
        JsonArray *v = d ? json_object_get_array_member(d, "values") : NULL;
        GString *s = g_string_new(NULL);
        for (guint i = 0; v != NULL && i < json_array_get_length(v); i++) {
            JsonNode *e = json_array_get_element(v, i);
            if (s->len > 60) {
                g_string_append(s, ", ...");
                break;
            }
            if (JSON_NODE_HOLDS_VALUE(e) && json_node_get_value_type(e) == G_TYPE_STRING)
                g_string_append_printf(s, "%s%s", i ? "," : "", json_node_get_string(e));
            else
                g_string_append_printf(s, "%s%" G_GINT64_FORMAT, i ? "," : "",
                                       json_node_get_int(e));
        }
        fprintf(out, "  %-10s %3" G_GINT64_FORMAT " value%s: %s\n", (const char *)m->data,
                d ? json_object_get_int_member_with_default(d, "count", 0) : 0,
                d && json_object_get_int_member_with_default(d, "count", 0) == 1 ? " " : "s",
                s->str);
        g_string_free(s, TRUE);
    }
}

static const char *attr(const PrismLandscapeFile *f, const char *name)
{
    const char *v = prism_landscape_file_attr(f, name);
    return v ? v : "";
}

/* --verify: the chunk check's result (v->chunks == 0: not asked for). */
static void print_verify(FILE *out, const PrismLandscapeVerify *v)
{
    if (v->datasets == 0)
        return;
    fprintf(out,
            "verify:     %" G_GUINT64_FORMAT " chunks of %" G_GUINT64_FORMAT
            " datasets read back, %" G_GUINT64_FORMAT " damaged%s\n",
            v->chunks, v->datasets, v->damaged,
            v->checksummed ? " (Fletcher32 checksums)"
                           : " (no checksums stored: only undecodable chunks are found)");
    for (char **d = v->damaged_chunks; d && *d; d++)
        fprintf(out, "  DAMAGED   %s\n", *d);
}

static void print_text(FILE *out, const char *path, PrismLandscapeFile *f, const Counts *c,
                       gboolean partial_ok, uint64_t persisted, uint64_t total, uint32_t sessions,
                       const PrismLandscapeVerify *v)
{
    gboolean complete = strcmp(attr(f, "status"), "complete") == 0;
    fprintf(out, "file:       %s (%s)\n", path,
            v->damaged > 0 ? "DAMAGED: chunks fail their check, see verify below"
            : complete     ? "complete"
                           : "INCOMPLETE: an interrupted or running sweep");
    if (!complete && partial_ok)
        fprintf(out,
                "progress:   %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                " rows persisted after %u session%s; continue with the same command "
                "plus --resume\n",
                persisted, total, sessions, sessions == 1 ? "" : "s");
    const guint64 schema_v = g_ascii_strtoull(attr(f, "schema_version"), NULL, 10);
    fprintf(out, "written by: %s %s (git %s), HDF5 %s, schema %s%s, %s rank%s, ISA %s\n",
            attr(f, "tool"), attr(f, "tool_version"), attr(f, "git_revision"),
            attr(f, "hdf5_version"), attr(f, "schema_version"),
            schema_v >= 5
                ? " (etp, folding, offload and overlap columns; mfu, tokens_per_s, hfu derived)"
            : schema_v >= 4
                ? " (etp, folding, offload and overlap columns; mfu, tokens_per_s derived)"
            : schema_v >= 3
                ? " (etp, folding and offload columns; mfu, tokens_per_s derived; before the "
                  "overlap dims: every overlap option on)"
            : schema_v >= 2 ? " (etp and folding columns; before offload: offload = 0 only)"
                            : " (before etp: tied MoE only)",
            attr(f, "ranks"), strcmp(attr(f, "ranks"), "1") == 0 ? "" : "s",
            *attr(f, "isa") ? attr(f, "isa") : "?");
    fprintf(out, "created:    %s (%s session%s)\n", attr(f, "created_utc"), attr(f, "sessions"),
            strcmp(attr(f, "sessions"), "1") == 0 ? "" : "s");
    fprintf(out, "command:    %s\n", attr(f, "command_line"));
    g_autofree char *models = names_of(prism_landscape_file_attr(f, "model"));
    g_autofree char *clusters = names_of(prism_landscape_file_attr(f, "cluster"));
    fprintf(out, "model:      %s\ncluster:    %s\n", models, clusters);
    g_autoptr(JsonNode) tr = parse_json(prism_landscape_file_attr(f, "training"));
    JsonObject *tro = tr != NULL && JSON_NODE_HOLDS_OBJECT(tr) ? json_node_get_object(tr) : NULL;
    JsonNode *gbs = tro != NULL ? json_object_get_member(tro, "gbs") : NULL;
    if (gbs != NULL && JSON_NODE_HOLDS_ARRAY(gbs)) { /* a grid: its gbs and seq lists */
        g_autofree char *g = json_to_string(gbs, FALSE);
        JsonNode *seq = json_object_get_member(tro, "seq");
        g_autofree char *q = seq != NULL ? json_to_string(seq, FALSE) : g_strdup("?");
        fprintf(out, "training:   gbs %s, seq %s, %s, %s\n", g, q,
                json_object_get_string_member_with_default(tro, "dtype", "?"),
                json_object_get_string_member_with_default(tro, "optimizer", "?"));
    } else if (tro != NULL) {
        JsonObject *o = tro;
        fprintf(out, "training:   gbs %" G_GINT64_FORMAT ", seq %" G_GINT64_FORMAT ", %s, %s\n",
                json_object_get_int_member_with_default(o, "gbs", 0),
                json_object_get_int_member_with_default(o, "seq", 0),
                json_object_get_string_member_with_default(o, "dtype", "?"),
                json_object_get_string_member_with_default(o, "optimizer", "?"));
    } else if (tr != NULL) {
        fprintf(out, "training:   one per grid point (see --json)\n");
    }
    fprintf(out, "knobs:      %s\n", attr(f, "knobs"));
    fprintf(out, "filters:    %s\n", *attr(f, "filters") ? attr(f, "filters") : "(none)");
    if (*attr(f, "objectives"))
        fprintf(out, "fronts:     objectives %s; top %s by %s\n", attr(f, "objectives"),
                attr(f, "top_k"), attr(f, "rank_by"));
    if (*attr(f, "intervals")) /* sweep --intervals (cost/README.md, "Intervals") */
        fprintf(out,
                "intervals:  step_lo, step_hi, mem_hi and mem_risk at the corners of the "
                "published ranges, not widened by the track record%s\n",
                strstr(attr(f, "intervals"), "mem_safety") != NULL
                    ? "; rows at memory risk left out of the fronts and top lists (--mem-safety)"
                    : "");
    /* how far the model was from published runs of the landscape's device families */
    g_autoptr(JsonNode) tracks = parse_json(prism_landscape_file_attr(f, "track_record"));
    if (tracks != NULL && JSON_NODE_HOLDS_ARRAY(tracks)) {
        JsonArray *a = json_node_get_array(tracks);
        for (guint i = 0; i < json_array_get_length(a); i++) {
            g_autoptr(PrismTrackRecord) t = prism_app_track_from_json(json_array_get_element(a, i));
            g_autofree char *line = t != NULL ? prism_app_track_line(t) : g_strdup("?");
            fprintf(out, "track:      %s\n", line);
        }
    }
    print_space(out, prism_landscape_file_attr(f, "space"));
    if (c->have_reason) {
        fprintf(out, "rows:       %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT " feasible, %.1f%%)\n",
                c->rows, c->feasible, c->rows ? 100.0 * (double)c->feasible / (double)c->rows : 0);
        fprintf(out, "by reason: ");
        for (int k = 0; k < 16; k++)
            if (c->reasons[k] > 0) {
                const char *name = c->reason_names && (guint)k < g_strv_length(c->reason_names)
                                       ? c->reason_names[k]
                                       : NULL;
                if (name)
                    fprintf(out, " %s %" G_GUINT64_FORMAT, name, c->reasons[k]);
                else
                    fprintf(out, " code %d: %" G_GUINT64_FORMAT, k, c->reasons[k]);
            }
        fprintf(out, "\n");
    } else if (complete) {
        fprintf(out, "rows:       %s evaluated, %s feasible; the landscape is %s\n",
                attr(f, "rows"), attr(f, "feasible_rows"), attr(f, "landscape"));
    }
    if (complete)
        fprintf(out,
                "stored:     /pareto %" G_GUINT64_FORMAT " rows, /topk %" G_GUINT64_FORMAT
                " rows\n",
                prism_landscape_file_group_rows(f, "pareto"),
                prism_landscape_file_group_rows(f, "topk"));
    if (c->n_points > 0) {
        fprintf(out, "grid:       %" G_GUINT64_FORMAT " points\n", c->n_points);
        fprintf(out, "  %5s %8s %6s %7s %12s %12s %12s  %s\n", "point", "devices", "gbs", "seq",
                "first_row", "rows", "feasible", "model on cluster");
        for (uint64_t p = 0; p < c->n_points; p++)
            fprintf(
                out, "  %5" G_GUINT64_FORMAT " %8.0f %6.0f %7.0f %12.0f %12.0f %12.0f  %s on %s\n",
                p, c->grid[0][p], c->grid[1][p], c->grid[2][p], c->grid[5][p], c->grid[3][p],
                c->grid[4][p], c->models ? c->models[p] : "?", c->clusters ? c->clusters[p] : "?");
    }
    const PrismLandscapeSchema *schema = prism_landscape_file_schema(f);
    if (schema->n > 0) {
        size_t derived = 0;
        for (size_t i = 0; i < schema->n; i++)
            derived += schema->cols[i].source == PRISM_LS_SOURCE_DERIVED;
        fprintf(out, "columns:    %zu in /landscape (name:type)", schema->n);
        if (derived > 0)
            fprintf(out, ", %zu of them derived on read (*)", derived);
        fprintf(out, "\n ");
        size_t width = 1;
        for (size_t i = 0; i < schema->n; i++) {
            g_autofree char *t = g_strdup_printf(
                " %s:%s%s", schema->cols[i].name, prism_store_name(schema->cols[i].store),
                schema->cols[i].source == PRISM_LS_SOURCE_DERIVED ? "*" : "");
            if (width + strlen(t) > 90) {
                fprintf(out, "\n ");
                width = 1;
            }
            fputs(t, out);
            width += strlen(t);
        }
        fprintf(out, "\n");
    }
    print_verify(out, v);
}

/* Root attributes whose value is text whatever it looks like (info.schema.json gives them type
 * string): a revision of twelve digits must not come out as a number. */
static gboolean attr_is_text(const char *name)
{
    static const char *const text[] = {
        "tool",         "tool_version", "git_revision", "hdf5_version", "created_utc",
        "command_line", "filters",      "grid_file",    "intervals",    "framework",
        "objectives",   "rank_by",      "isa",          "landscape",    "status"};
    for (size_t i = 0; i < G_N_ELEMENTS(text); i++)
        if (strcmp(name, text[i]) == 0)
            return TRUE;
    return FALSE;
}

static void print_json(FILE *out, const char *path, PrismLandscapeFile *f, const Counts *c,
                       gboolean partial_ok, uint64_t persisted, uint64_t total,
                       const PrismLandscapeVerify *ver)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "file");
    json_builder_add_string_value(b, path);
    json_builder_set_member_name(b, "attributes");
    json_builder_begin_object(b);
    for (const char *const *n = prism_landscape_file_attr_names(f); *n != NULL; n++) {
        json_builder_set_member_name(b, *n);
        const char *text = attr(f, *n);
        JsonNode *v = NULL;
        if (attr_is_text(*n))
            json_builder_add_string_value(b, text);
        else if ((v = parse_json(text)) != NULL)
            json_builder_add_value(b, v);
        else if (*text != '\0' && strspn(text, "0123456789") == strlen(text))
            json_builder_add_int_value(b, (gint64)g_ascii_strtoull(text, NULL, 10));
        else
            json_builder_add_string_value(b, text);
    }
    json_builder_end_object(b);
    if (partial_ok) {
        json_builder_set_member_name(b, "persisted_rows");
        json_builder_add_int_value(b, (gint64)persisted);
        json_builder_set_member_name(b, "total_rows");
        json_builder_add_int_value(b, (gint64)total);
    }
    if (c->have_reason) {
        json_builder_set_member_name(b, "rows");
        json_builder_add_int_value(b, (gint64)c->rows);
        json_builder_set_member_name(b, "feasible");
        json_builder_add_int_value(b, (gint64)c->feasible);
        json_builder_set_member_name(b, "by_reason");
        json_builder_begin_object(b);
        for (int k = 0; k < 16; k++)
            if (c->reasons[k] > 0) {
                g_autofree char *name = c->reason_names && (guint)k < g_strv_length(c->reason_names)
                                            ? g_strdup(c->reason_names[k])
                                            : g_strdup_printf("%d", k);
                json_builder_set_member_name(b, name);
                json_builder_add_int_value(b, (gint64)c->reasons[k]);
            }
        json_builder_end_object(b);
    }
    if (c->n_points > 0) { /* one object per grid point */
        static const char *const keys[] = {"devices", "gbs",      "seq",
                                           "rows",    "feasible", "first_row"};
        json_builder_set_member_name(b, "grid");
        json_builder_begin_array(b);
        for (uint64_t p = 0; p < c->n_points; p++) {
            json_builder_begin_object(b);
            json_builder_set_member_name(b, "point");
            json_builder_add_int_value(b, (gint64)p);
            prism_app_json_string(b, "model", c->models ? c->models[p] : NULL);
            prism_app_json_string(b, "cluster", c->clusters ? c->clusters[p] : NULL);
            for (size_t k = 0; k < G_N_ELEMENTS(keys); k++) {
                json_builder_set_member_name(b, keys[k]);
                json_builder_add_int_value(b, (gint64)c->grid[k][p]);
            }
            json_builder_end_object(b);
        }
        json_builder_end_array(b);
    }
    json_builder_set_member_name(b, "pareto_rows");
    json_builder_add_int_value(b, (gint64)prism_landscape_file_group_rows(f, "pareto"));
    json_builder_set_member_name(b, "topk_rows");
    json_builder_add_int_value(b, (gint64)prism_landscape_file_group_rows(f, "topk"));
    json_builder_set_member_name(b, "columns");
    json_builder_begin_array(b);
    const PrismLandscapeSchema *schema = prism_landscape_file_schema(f);
    for (size_t i = 0; i < schema->n; i++) {
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "name");
        json_builder_add_string_value(b, schema->cols[i].name);
        json_builder_set_member_name(b, "type");
        json_builder_add_string_value(b, prism_store_name(schema->cols[i].store));
        json_builder_set_member_name(b, "unit");
        json_builder_add_string_value(b, schema->cols[i].unit);
        json_builder_set_member_name(b, "derived");
        json_builder_add_boolean_value(b, schema->cols[i].source == PRISM_LS_SOURCE_DERIVED);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    if (ver->datasets > 0) {
        json_builder_set_member_name(b, "verify");
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "chunks");
        json_builder_add_int_value(b, (gint64)ver->chunks);
        json_builder_set_member_name(b, "damaged");
        json_builder_add_int_value(b, (gint64)ver->damaged);
        json_builder_set_member_name(b, "checksummed");
        json_builder_add_boolean_value(b, ver->checksummed);
        json_builder_set_member_name(b, "damaged_chunks");
        json_builder_begin_array(b);
        for (char **d = ver->damaged_chunks; d && *d; d++)
            json_builder_add_string_value(b, *d);
        json_builder_end_array(b);
        json_builder_end_object(b);
    }
    json_builder_end_object(b);
    prism_app_print_json(out, b);
}

gboolean prism_cmd_info(PrismComm *comm, int argc, char **argv, GError **error)
{
    PrismCommonOptions o = {.flags = PRISM_OPT_JSON};
    g_autoptr(GOptionContext) ctx = g_option_context_new("FILE.h5 - describe a landscape file");
    g_option_context_set_summary(ctx, "Prints the provenance, inputs, strategy space, row "
                                      "counts (feasible, by reason, per grid\npoint) and "
                                      "columns of a file written by `prism sweep`, or the "
                                      "progress of\nan unfinished FILE.partial.");
    gboolean verify = FALSE;
    const GOptionEntry entries[] = {
        {"verify", 0, 0, G_OPTION_ARG_NONE, &verify,
         "read back every chunk of /landscape and check its checksum; a damaged file exits 2",
         NULL},
        G_OPTION_ENTRY_NULL};
    g_option_context_add_main_entries(ctx, entries, NULL);
    prism_app_add_common_options(ctx, &o);
    gboolean ok = prism_app_parse(ctx, &argc, &argv, error);
    if (ok && argc != 2) {
        g_set_error(error, PRISM_INPUT_ERROR,
                    argc < 2 ? PRISM_INPUT_ERROR_MISSING : PRISM_INPUT_ERROR_PARSE,
                    "prism info takes one landscape file (got %d arguments)", argc - 1);
        ok = FALSE;
    }
    PrismLandscapeFile *f = NULL;
    Counts c = {0};
    PrismLandscapeVerify v = {0};
    if (ok) {
        f = prism_landscape_file_open(comm, argv[1], error);
        ok = f != NULL && (!verify || prism_landscape_file_verify(f, &v, error));
        /* The row counts read columns that may be the damaged ones: report those instead. */
        ok = ok && (v.damaged > 0 || count_rows(f, &c, error)) && read_grid(f, &c, error);
    }
    FILE *out = prism_app_out(comm);
    if (ok && out != NULL) {
        uint64_t persisted = 0, total = 0;
        uint32_t sessions = 0;
        gboolean complete = strcmp(attr(f, "status"), "complete") == 0;
        gboolean partial_ok = !complete && prism_landscape_partial_progress(
                                               argv[1], &persisted, &total, &sessions, NULL);
        if (o.json)
            print_json(out, argv[1], f, &c, partial_ok, persisted, total, &v);
        else
            print_text(out, argv[1], f, &c, partial_ok, persisted, total, sessions, &v);
    }
    if (ok && v.damaged > 0) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_FILE,
                    "%s is damaged: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                    " chunks of /landscape fail their check (first: %s); rerun the sweep to "
                    "rewrite it",
                    argv[1], v.damaged, v.chunks,
                    v.damaged_chunks && v.damaged_chunks[0] ? v.damaged_chunks[0] : "?");
        ok = FALSE;
    }
    prism_landscape_verify_clear(&v);
    counts_clear(&c);
    prism_landscape_file_close(f);
    prism_common_options_clear(&o);
    return ok;
}
