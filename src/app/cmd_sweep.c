// SPDX-License-Identifier: MIT
/*
 * cmd_sweep.c - `prism sweep`: evaluate every strategy of one setup, or of every point
 * of a grid file, and write every row to one HDF5 landscape (io.h) with the Pareto
 * fronts, the top-k lists and the provenance. Resumable after SIGINT/SIGTERM/SIGKILL.
 *
 * Collective on comm: every rank loads the same inputs and grid, builds the same jobs
 * and takes part in the search and the file writes; only rank 0 prints. SIGINT/SIGTERM
 * on any rank set a flag that the search's stop hook reports; the driver agrees on it
 * at its next round, so every rank stops at the same round and the landscape's spill
 * records stay resumable.
 */
#include "app-internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include <prism/cost.h>
#include <prism/diagnose.h>
#include <prism/grid.h>
#include <prism/io.h>
#include <prism/search.h>
#include <prism/space.h>

#define DEFAULT_OUTPUT "prism-sweep.h5"
#define UNSET_LEVEL G_MININT /* an int option not given */

typedef struct {
    PrismCommonOptions common;
    PrismSearchCli search; /* --fix/--range/--only/--objectives/--rank-by/--top/... */
    char *grid;
    gboolean resume, no_landscape, no_fsync, count, no_disk_check, drop_damaged;
    gint deflate, level; /* UNSET_LEVEL when not given */
    char *compression;
    gint64 chunk, spill_rows, round_rows;
    gboolean intervals;  /* --intervals: step_lo, step_hi, mem_hi, mem_risk per row */
    gboolean mem_safety; /* --mem-safety: rows at memory risk count as not fitting */
} SweepOptions;

static void sweep_options_clear(SweepOptions *o)
{
    prism_common_options_clear(&o->common);
    prism_search_cli_clear(&o->search);
    g_clear_pointer(&o->grid, g_free);
    g_clear_pointer(&o->compression, g_free);
}

/*
 * A sweep: the setups of its points, computed from the point number (grid.h: a grid point
 * is models x clusters x devices x gbs x seq, in that nesting), and per point only what
 * the search needs of every point at once (PrismGridJobs): its first row and its
 * partition weight, 16 bytes a point, and the 24 bytes of /constants (the constants
 * readers derive mfu and tokens_per_s from), 40 bytes a point in all. The cost model and
 * space of one point at a time are built on demand and freed when another point is asked for.
 */
typedef struct {
    PrismInputs in;
    PrismGrid *grid; /* NULL for a single setup */
    PrismSpaceFilter *filter;
    uint32_t *devices;   /* the grid's device counts (a grid point has one) */
    PrismGridPoints pts; /* the points' setups */
    PrismGridJobs gj;    /* the points as search jobs */
    gboolean progress;   /* rank 0 prints grid enumeration progress to stderr */
    double t0, last;     /* of the progress line */
} Sweep;

static void sweep_clear(Sweep *s)
{
    prism_grid_jobs_clear(&s->gj);
    g_free(s->devices);
    prism_space_filter_free(s->filter);
    prism_grid_free(s->grid);
    prism_inputs_clear(&s->in);
}

/* Which of the options a grid may also set the command line gave. */
static PrismGridGiven grid_given(const SweepOptions *o)
{
    const PrismCommonOptions *c = &o->common;
    return (PrismGridGiven){.model = c->model != NULL,
                            .cluster = c->cluster != NULL,
                            .devices = c->devices != NULL,
                            .gbs = c->gbs != PRISM_OPT_UNSET_INT,
                            .seq = c->seq != PRISM_OPT_UNSET_INT,
                            .dtype = c->dtype != NULL,
                            .optimizer = c->optimizer != NULL,
                            .mem_budget = c->mem_budget_gib != PRISM_OPT_UNSET_DOUBLE,
                            .objectives = o->search.objectives != NULL,
                            .rank_by = o->search.rank_by != NULL,
                            .top = o->search.top != PRISM_APP_TOP_UNSET};
}

/* Rank 0's line on stderr while the grid is enumerated: the first within a second, then
 * every second (a TTY line is rewritten in place; otherwise plain lines). */
static void grid_progress(void *user, size_t done, size_t total, gboolean final)
{
    Sweep *s = user;
    const double t0 = s->t0;
    double *last = &s->last;
    double now = prism_now();
    if (!s->progress || (final ? *last == 0 : now - t0 < 0.5 || now - *last < 1.0))
        return;
    gboolean tty = isatty(fileno(stderr));
    if (final)
        fprintf(stderr, "%ssweep: grid of %zu points set up in %.1f s\n", tty ? "\r\033[K" : "",
                total, now - t0);
    else
        fprintf(stderr, "%ssweep: setting up grid point %zu of %zu (%.0f%%), %.1f s%s",
                tty ? "\r\033[K" : "", done, total, 100.0 * (double)done / (double)total, now - t0,
                tty ? "" : "\n");
    fflush(stderr);
    *last = now;
}

/* The points of the grid (models x clusters x device counts x gbs x seq, in that
 * nesting): the options it may not repeat, its knobs and device counts. */
static gboolean build_grid_points(const SweepOptions *o, Sweep *s, GError **error)
{
    PrismGrid *g = s->grid;
    const PrismGridGiven given = grid_given(o);
    if (!prism_grid_check_given(g, &given, error) ||
        !prism_grid_knobs(g, s->in.framework, s->in.cluster, o->common.knobs_file, o->common.set,
                          &s->in.knobs, error))
        return FALSE;
    size_t n_dev;
    if (g->devices != NULL) {
        if (!prism_app_parse_devices(g->devices, &s->devices, &n_dev, error)) {
            g_prefix_error(error, "grid %s [grid] devices: ", g->path);
            return FALSE;
        }
    } else {
        s->devices = g_memdup2(s->in.devices, s->in.n_devices * sizeof(uint32_t));
        n_dev = s->in.n_devices;
    }
    const PrismGridPoint base = s->pts.base;
    prism_grid_points_init(&s->pts, g, &base, s->devices, n_dev);
    return TRUE;
}

/* A grid point's space as `prism plan --count --json` prints it: the text the set-up
 * hashes into the file's descriptions_sha256. */
static char *space_count_json(const PrismSpace *space)
{
    return prism_app_space_describe(space, TRUE);
}

/* Every rank sets up the same points; errors are agreed by the caller. */
static gboolean build_points(const SweepOptions *o, Sweep *s, GError **error)
{
    s->filter = prism_space_filter_new();
    /* what the framework supports (as prism plan), then the user's filters */
    if (!prism_space_filter_framework(s->filter, s->in.framework, error) ||
        !prism_app_add_filters(s->filter, o->search.fix, o->search.range, o->search.only, NULL,
                               error))
        return FALSE;
    const PrismGridPoint base = {
        .model = s->in.model,
        .cluster = s->in.cluster,
        .model_name = o->common.model ? o->common.model : PRISM_DEFAULT_MODEL,
        .cluster_name = o->common.cluster ? o->common.cluster : PRISM_DEFAULT_CLUSTER,
        .training = s->in.training,
        .devices = s->in.devices,
        .n_devices = s->in.n_devices};
    prism_grid_points_init(&s->pts, NULL, &base, NULL, 0);
    if (o->grid != NULL) {
        s->grid = prism_grid_load(o->grid, error);
        if (s->grid == NULL)
            return FALSE;
        g_autofree char *where = g_strdup_printf("grid %s [options]", o->grid);
        if (!prism_app_add_filters(s->filter, s->grid->fix, s->grid->range, s->grid->only, where,
                                   error) ||
            !build_grid_points(o, s, error))
            return FALSE;
    }
    /* SIGINT/SIGTERM stops the set-up within one point (PRISM_RUNTIME_ERROR_INTERRUPTED) */
    s->gj = (PrismGridJobs){.pts = &s->pts,
                            .knobs = &s->in.knobs,
                            .filter = s->filter,
                            .check = prism_app_check_budget,
                            .stop = prism_app_stop_requested,
                            .describe = space_count_json};
    s->t0 = prism_now();
    s->last = 0;
    return prism_grid_jobs_setup(&s->gj, grid_progress, s, error);
}

/* Compact JSON text through prism_json_to_string(): json-glib 1.6 alone writes a double
 * such as 1e+22 as the invalid "1e+22.0" (core.h). */
static char *json_text(JsonBuilder *b)
{
    g_autoptr(JsonNode) root = json_builder_get_root(b);
    return prism_json_to_string(root, FALSE);
}

static void add_training(JsonBuilder *b, const PrismTraining *t, const PrismGrid *g)
{
    json_builder_begin_object(b);
    /* a grid: the lists of its [grid] gbs and seq (every point has one of each) */
    const uint64_t *lists[2] = {g && g->n_gbs ? g->gbs : &t->gbs, g && g->n_seq ? g->seq : &t->seq};
    size_t lens[2] = {g && g->n_gbs ? g->n_gbs : 1, g && g->n_seq ? g->n_seq : 1};
    static const char *const names[2] = {"gbs", "seq"};
    for (int k = 0; k < 2; k++) {
        json_builder_set_member_name(b, names[k]);
        if (g != NULL)
            json_builder_begin_array(b);
        for (size_t i = 0; i < lens[k]; i++)
            json_builder_add_int_value(b, (gint64)lists[k][i]);
        if (g != NULL)
            json_builder_end_array(b);
    }
    json_builder_set_member_name(b, "dtype");
    json_builder_add_string_value(b, prism_dtype_name(t->dtype));
    json_builder_set_member_name(b, "optimizer");
    json_builder_add_string_value(b, prism_optimizer_name(t->optimizer));
    json_builder_set_member_name(b, "mem_budget_bytes");
    json_builder_add_double_value(b, t->mem_budget_bytes);
    json_builder_end_object(b);
}

/* One entry per model (cluster) of a grid, in the grid file's order; the object itself
 * for a single setup. Text per entry (prism_app_model_json / _cluster_json). */
static char *inputs_json(const Sweep *s, gboolean clusters)
{
    const PrismGrid *g = s->grid;
    size_t n = g == NULL ? 1 : clusters ? (g->n_clusters ? g->n_clusters : 1) : g->n_models;
    GString *out = g_string_new(g ? "[" : "");
    for (size_t i = 0; i < n; i++) {
        g_autoptr(JsonBuilder) b = json_builder_new();
        if (clusters)
            prism_app_cluster_json(b, g && g->n_clusters ? g->clusters[i] : s->in.cluster);
        else
            prism_app_model_json(b, g ? g->models[i] : s->in.model);
        g_autofree char *text = json_text(b);
        g_string_append_printf(out, "%s%s", i ? "," : "", text);
    }
    if (g)
        g_string_append_c(out, ']');
    return g_string_free(out, FALSE);
}

/* A single setup: its space (`prism plan --count --json`). A grid: the points, the total
 * and the SHA-256 of the descriptions of the spaces of the first cluster's points (each
 * `prism plan --count --json` text and a newline, in point order; a later cluster has
 * the same spaces); each point's size is in /grid/rows. */
static char *space_json(Sweep *s)
{
    if (s->grid == NULL) {
        PrismSearchJob job;
        if (!s->gj.jobs.get(s->gj.jobs.user, 0, &job, NULL))
            return g_strdup("");
        return prism_app_space_describe(job.space, TRUE);
    }
    return g_strdup_printf("{\"points\":%zu,\"total\":%" G_GUINT64_FORMAT
                           ",\"descriptions_sha256\":\"%s\"}",
                           s->pts.n_points, s->gj.first[s->pts.n_points], s->gj.space_sum);
}

static char *command_line(int argc, char **argv)
{
    GString *s = g_string_new(NULL);
    for (int i = 0; i < argc; i++) {
        gboolean plain = i == 0 || strpbrk(argv[i], " \t\n'\"\\$`*?[]{}()<>|&;#~!") == NULL;
        g_autofree char *q = plain ? g_strdup(argv[i]) : g_shell_quote(argv[i]);
        g_string_append_printf(s, "%s%s", i ? " " : "", q);
    }
    return g_string_free(s, FALSE);
}

static void add_attrs(PrismLandscape *ls, Sweep *s, int argc, char **argv)
{
    g_autofree char *cmd = command_line(argc, argv);
    prism_landscape_add_attr(ls, "command_line", cmd, FALSE);
    g_autofree char *model = inputs_json(s, FALSE);
    g_autofree char *cluster = inputs_json(s, TRUE);
    PrismGridPoint p;
    prism_grid_point(&s->pts, 0, &p);
    g_autoptr(JsonBuilder) tb = json_builder_new();
    add_training(tb, &p.training, s->grid);
    g_autofree char *training = json_text(tb);
    g_autofree char *knobs = prism_knobs_to_json(&s->in.knobs);
    g_autofree char *space = space_json(s);
    g_autofree char *filters = prism_space_filter_describe(s->filter);
    prism_landscape_add_attr(ls, "model", model, TRUE);
    prism_landscape_add_attr(ls, "cluster", cluster, TRUE);
    prism_landscape_add_attr(ls, "training", training, TRUE);
    prism_landscape_add_attr(ls, "knobs", knobs, TRUE);
    prism_landscape_add_attr(ls, "space", space, TRUE);
    prism_landscape_add_attr(ls, "filters", filters, TRUE);
    prism_landscape_add_attr(ls, "grid_file", s->grid ? s->grid->path : "", FALSE);
    /* provenance: the --framework profile whose knobs the knobs attribute includes */
    g_autofree char *fw =
        s->in.framework ? g_strdup_printf("%s (%s)", s->in.framework->name, s->in.framework->path)
                        : g_strdup("");
    prism_landscape_add_attr(ls, "framework", fw, FALSE);
}

/* The interval columns' provenance (sweep --intervals / --mem-safety): part of the run's
 * identity, since the columns and (with --mem-safety) the fronts depend on it. */
static void add_interval_attr(PrismLandscape *ls, const SweepOptions *o)
{
    if (o->intervals || o->mem_safety)
        prism_landscape_add_attr(ls, "intervals", o->mem_safety ? "ranges, mem_safety" : "ranges",
                                 TRUE);
}

/* /grid, point by point when the landscape is finished (prism_landscape_set_grid_fn). */
static void grid_point_info(void *user, size_t i, PrismGridPointInfo *out)
{
    const Sweep *s = user;
    PrismGridPoint p;
    prism_grid_point(&s->pts, i, &p);
    *out = (PrismGridPointInfo){p.model_name,
                                p.cluster_name,
                                p.devices[0],
                                p.training.gbs,
                                p.training.seq,
                                s->gj.first[i],
                                s->gj.first[i + 1] - s->gj.first[i]};
}

static void set_grid_table(PrismLandscape *ls, Sweep *s)
{
    if (s->grid != NULL)
        prism_landscape_set_grid_fn(ls, s->pts.n_points, grid_point_info, s);
}

/* Per point, the constants from which readers derive mfu and tokens_per_s (recorded by
 * the set-up, prism_grid_jobs_setup). */
static void set_constants(PrismLandscape *ls, const Sweep *s)
{
    const size_t n = s->pts.n_points;
    g_autofree PrismLandscapePointConstants *c = g_new(PrismLandscapePointConstants, n);
    for (size_t i = 0; i < n; i++)
        c[i] = (PrismLandscapePointConstants){s->gj.constants[i].flops_per_step,
                                              s->gj.constants[i].peak_flops,
                                              s->gj.constants[i].tokens_per_step};
    prism_landscape_set_constants(ls, c, n);
}

/* Search options from the command line, else the grid's [options] (a value given in both
 * is refused by prism_grid_check_given()). */
static gboolean search_options(const SweepOptions *o, const Sweep *s, PrismSearchOptions *opt,
                               GError **error)
{
    const PrismSearchCli *c = &o->search;
    const PrismGrid *g = s->grid;
    g_autofree char *g_obj = g ? g_strdup_printf("grid %s [options] objectives", g->path) : NULL;
    g_autofree char *g_rank = g ? g_strdup_printf("grid %s [options] rank_by", g->path) : NULL;
    g_autofree char *g_top = g ? g_strdup_printf("grid %s [options] top", g->path) : NULL;
    gboolean top_from_grid = c->top == PRISM_APP_TOP_UNSET && g != NULL && g->top > 0;
    gint top = c->top != PRISM_APP_TOP_UNSET ? c->top
               : top_from_grid               ? (gint)MIN(g->top, (size_t)G_MAXINT)
                                             : 10;
    if (!prism_app_search_options(opt,
                                  c->objectives ? c->objectives
                                  : g           ? g->objectives
                                                : NULL,
                                  c->objectives ? NULL : g_obj,
                                  c->rank_by ? c->rank_by
                                  : g        ? g->rank_by
                                             : NULL,
                                  c->rank_by ? NULL : g_rank, top, top_from_grid ? g_top : NULL,
                                  error))
        return FALSE;
    opt->progress = !c->no_progress;
    opt->label = "sweep";
    opt->closest_k = PRISM_DIAGNOSE_POOL; /* the pool plan's diagnosis ranks */
    opt->intervals = o->intervals || o->mem_safety;
    opt->mem_safety = o->mem_safety;
    if (o->round_rows > 0)
        opt->round_rows = (uint64_t)o->round_rows;
    return TRUE;
}

static gboolean landscape_options(const SweepOptions *o, PrismLandscapeOptions *lo, GError **error)
{
    prism_landscape_options_default(lo);
    if (o->compression != NULL && !prism_codec_parse(o->compression, &lo->codec)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "--compression '%s': must be zstd, lz4, deflate or none", o->compression);
        return FALSE;
    }
    if (o->compression != NULL)
        lo->level = prism_codec_default_level(lo->codec);
    if (o->deflate != UNSET_LEVEL) { /* the older spelling of deflate L / none */
        if (o->compression != NULL || o->level != UNSET_LEVEL) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT,
                        "--hdf5-deflate %d: give either it or --compression/"
                        "--compression-level",
                        o->deflate);
            return FALSE;
        }
        if (o->deflate < 0 || o->deflate > 9) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                        "--hdf5-deflate %d: must be 0 (no compression) to 9", o->deflate);
            return FALSE;
        }
        lo->codec = o->deflate > 0 ? PRISM_CODEC_DEFLATE : PRISM_CODEC_NONE;
        lo->level = o->deflate;
    }
    if (o->level != UNSET_LEVEL)
        lo->level = o->level;
    if (!prism_codec_check_level(lo->codec, lo->level, error))
        return FALSE;
    const struct {
        const char *name;
        gint64 value;
        uint64_t *dest;
    } rows[] = {{"--hdf5-chunk", o->chunk, &lo->chunk_rows},
                {"--spill-rows", o->spill_rows, &lo->spill_rows}};
    for (size_t i = 0; i < G_N_ELEMENTS(rows); i++) {
        if (rows[i].value == PRISM_OPT_UNSET_INT)
            continue; /* not given: the default of prism_landscape_options_default() */
        if (rows[i].value < 1 || rows[i].value > (1 << 24)) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                        "%s %" G_GINT64_FORMAT ": must be 1 to 16777216 rows", rows[i].name,
                        rows[i].value);
            return FALSE;
        }
        *rows[i].dest = (uint64_t)rows[i].value;
    }
    lo->no_landscape = o->no_landscape;
    lo->force = o->common.force;
    lo->resume = o->resume;
    lo->fsync = !o->no_fsync;
    lo->drop_damaged = o->drop_damaged;
    return TRUE;
}

/* Row @p r's interval columns (sweep --intervals) from the corners of its point's model,
 * as the search's sink stored them (search_corners.c: the same values, not widened);
 * @p corners caches the corners of point *@p at. */
static gboolean row_interval(const Sweep *s, PrismLandscapeRow *r, PrismCorners **corners,
                             size_t *at, GError **error)
{
    PrismSearchJob job;
    if (!s->gj.jobs.get(s->gj.jobs.user, r->point, &job, error))
        return FALSE;
    if (*corners == NULL || *at != r->point) {
        g_clear_pointer(corners, prism_corners_free);
        if ((*corners = prism_corners_new(job.cm, error)) == NULL)
            return FALSE;
        *at = r->point;
    }
    (*corners)->point = job.cm; /* the same point: get() kept its model */
    PrismInterval iv;
    if (!prism_corners_eval(*corners, &r->strategy, r->cols, &iv, error))
        return FALSE;
    r->iv[PRISM_IV_STEP_LO] = iv.step_lo;
    r->iv[PRISM_IV_STEP_HI] = iv.step_hi;
    r->iv[PRISM_IV_MEM_HI] = iv.mem_hi;
    r->iv[PRISM_IV_MEM_RISK] = prism_mem_class(&iv, prism_cost_model_usable(job.cm));
    return TRUE;
}

/* The rows of the per-job fronts and top-k lists, re-evaluated by index (and with
 * @p intervals their interval columns). */
static gboolean result_rows(const Sweep *s, const PrismSearchResult *res, gboolean fronts,
                            gboolean intervals, GArray *out, GError **error)
{
    g_autoptr(PrismCorners) corners = NULL;
    size_t at = 0;
    for (size_t j = 0; j < s->pts.n_points; j++) {
        const PrismFront *f = fronts ? prism_search_result_front(res, j) : NULL;
        const PrismTopK *t = fronts ? NULL : prism_search_result_top(res, j);
        size_t n = fronts ? prism_front_size(f) : prism_topk_size(t);
        for (size_t i = 0; i < n; i++) {
            PrismLandscapeRow r = {0};
            size_t job = 0;
            r.index = fronts ? prism_front_index(f, i) : prism_topk_index(t, i);
            if (!prism_search_jobs_row(&s->gj.jobs, r.index, &job, &r.strategy, r.cols, error))
                return FALSE;
            r.point = (uint32_t)job;
            if (intervals && !row_interval(s, &r, &corners, &at, error))
                return FALSE;
            g_array_append_val(out, r);
        }
    }
    return TRUE;
}

static char *objective_list(const PrismObjective *obj, size_t n)
{
    GString *s = g_string_new(NULL);
    for (size_t i = 0; i < n; i++) {
        g_autofree char *name = prism_objective_name(&obj[i]);
        g_string_append_printf(s, "%s%s", i ? "," : "", name);
    }
    return g_string_free(s, FALSE);
}

/* What the search resolved (default objectives, ISA): not part of the run's identity. */
static void add_result_attrs(PrismLandscape *ls, const PrismSearchResult *res, size_t top_k)
{
    size_t n_obj = 0;
    const PrismObjective *obj = prism_search_result_objectives(res, &n_obj);
    g_autofree char *objectives = objective_list(obj, n_obj);
    g_autofree char *rank_by = objective_list(prism_search_result_rank_by(res), 1);
    g_autofree char *k = g_strdup_printf("%zu", top_k);
    prism_landscape_add_attr(ls, "objectives", objectives, FALSE);
    prism_landscape_add_attr(ls, "rank_by", rank_by, FALSE);
    prism_landscape_add_attr(ls, "top_k", k, FALSE);
    prism_landscape_add_attr(ls, "isa", prism_search_result_isa(res), FALSE);
}

/* The track records of the sweep (validate.h): one per device family among the points'
 * clusters, in point order, under its --framework, with the --set/--knobs overrides (a
 * grid's [knobs] are not laid over the published runs). Collective: every rank. */
static GPtrArray *sweep_tracks(PrismComm *comm, const Sweep *s)
{
    GPtrArray *out = g_ptr_array_new_with_free_func((GDestroyNotify)prism_track_record_free);
    const char *fw = s->in.framework ? s->in.framework->name : NULL;
    for (size_t i = 0; i < s->pts.n_points; i++) {
        PrismGridPoint p;
        prism_grid_point(&s->pts, i, &p);
        g_autofree char *fam = prism_device_family(p.cluster->family);
        gboolean seen = FALSE;
        for (guint j = 0; j < out->len && !seen; j++)
            seen = strcmp(((const PrismTrackRecord *)g_ptr_array_index(out, j))->family, fam) == 0;
        if (!seen)
            g_ptr_array_add(out,
                            prism_track_record_run(comm, p.cluster->family, fw, &s->in.user_knobs));
    }
    return out;
}

/* The records as the root attribute "track_record": a JSON array (not identity). */
static void add_track_attr(PrismLandscape *ls, const GPtrArray *tracks)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_array(b);
    for (guint i = 0; i < tracks->len; i++)
        prism_app_track_json_object(b, g_ptr_array_index(tracks, i));
    json_builder_end_array(b);
    g_autofree char *text = json_text(b);
    prism_landscape_add_attr(ls, "track_record", text, FALSE);
}

static void print_summary(FILE *out, const char *path, const PrismLandscapeOptions *lo,
                          const PrismSearchResult *res, const Sweep *s, double seconds,
                          size_t n_pareto, size_t n_top)
{
    uint64_t rows = prism_search_result_total(res);
    GStatBuf st;
    double bytes = g_stat(path, &st) == 0 ? (double)st.st_size : NAN;
    fprintf(out,
            "prism sweep: %s: %" G_GUINT64_FORMAT " rows (%" G_GUINT64_FORMAT
            " feasible) in %u setup%s; %zu Pareto rows, %zu top rows\n",
            path, rows, prism_search_result_feasible(res), (guint)s->pts.n_points,
            s->pts.n_points == 1 ? "" : "s", n_pareto, n_top);
    fprintf(out, "  %d rank%s, %s; search %.2f s, total %.2f s; file %.1f MB",
            prism_search_result_ranks(res), prism_search_result_ranks(res) == 1 ? "" : "s",
            prism_search_result_isa(res), prism_search_result_seconds(res), seconds, bytes / 1e6);
    if (!lo->no_landscape && rows > 0)
        fprintf(out, " (%.1f bytes/row, %s %d)", bytes / (double)rows, prism_codec_name(lo->codec),
                lo->level);
    fprintf(out, "\n");
}

/*
 * Rows, estimated spill and file size, and free disk (io.h prism_landscape_disk_plan);
 * refuses (exit 2) when the output's folder cannot hold the sweep, unless
 * --no-disk-check. Collective: the plan is rank 0's, broadcast; only rank 0 prints.
 */
static gboolean disk_check(const SweepOptions *o, const Sweep *s, PrismLandscape *ls,
                           const char *path, FILE *out, GError **error)
{
    uint64_t rows = s->gj.first[s->pts.n_points];
    PrismLandscapeDiskPlan plan;
    if (!prism_landscape_disk_plan(ls, rows, &plan, error))
        return FALSE;
    g_autofree char *dir = g_path_get_dirname(path);
    g_autofree char *spill = g_format_size(plan.spill_bytes);
    g_autofree char *file = g_format_size(plan.file_bytes);
    g_autofree char *need = g_format_size(plan.need_bytes);
    g_autofree char *avail = plan.free_known ? g_format_size(plan.free_bytes) : g_strdup("?");
    if (out)
        fprintf(out,
                "prism sweep: %" G_GUINT64_FORMAT " rows; spill %s (%" G_GUINT64_FORMAT
                " B/row, removed at the end), file ~%s; needs ~%s, %s free in %s\n",
                rows, spill, plan.row_bytes, file, need, avail, dir);
    if (o->no_disk_check || !plan.free_known || plan.need_bytes <= plan.free_bytes)
        return TRUE;
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_OUTPUT,
                "-o %s: the sweep needs about %s in %s (spill %s + file %s) but only %s is "
                "free; free some space, write elsewhere with -o, or pass --no-disk-check",
                path, need, dir, spill, file, avail);
    return FALSE;
}

/*
 * Nothing feasible in the whole landscape: the file is complete (every row is the record
 * a user may query), then the same diagnosis as `prism plan` (diagnose.h), for the setup
 * whose closest strategy has the lowest peak memory, and exit status 2. Collective.
 * Returns FALSE with the error (PRISM_INPUT_ERROR_INFEASIBLE, or the diagnosis' own).
 */
static gboolean report_nothing_fits(PrismComm *comm, FILE *out, const Sweep *s,
                                    const PrismSearchResult *res, const PrismKernelTable *kt,
                                    size_t n_show, GError **error)
{
    size_t job = prism_diagnose_closest_job(res, s->pts.n_points);
    g_autoptr(PrismDiagnosis) d = prism_diagnose_run_jobs(
        comm, &s->gj.jobs, job, res, s->filter, kt, prism_app_stop_requested, NULL, error);
    if (d == NULL)
        return FALSE;
    /* the search keeps PRISM_DIAGNOSE_POOL; the closest list shows the --top count */
    d->n_closest = MIN(d->n_closest, n_show);
    if (out != NULL && s->grid != NULL) {
        PrismGridPoint pt;
        prism_grid_point(&s->pts, job, &pt);
        const PrismGridPoint *p = &pt;
        fprintf(out,
                "\nNo point of grid %s has a feasible strategy; the closest is point %zu (%s "
                "on %u x %s, gbs %" G_GUINT64_FORMAT ", seq %" G_GUINT64_FORMAT "):\n",
                s->grid->path, job, p->model_name, p->devices[0], p->cluster_name, p->training.gbs,
                p->training.seq);
    }
    if (out != NULL)
        prism_app_diagnosis_text(out, d, s->grid != NULL);
    prism_app_diagnosis_error(d, s->grid != NULL, error);
    return FALSE;
}

/*
 * The landscape could not be closed after a failed parallel HDF5 write (io.h,
 * prism_landscape_unrecoverable): every rank already holds the agreed error, so rank 0
 * prints it and the job ends with MPI_Abort (exit status 1) instead of hanging in a
 * collective close. The partial output and its spill folder stay resumable.
 */
static G_NORETURN void abort_job(PrismComm *comm, const GError *error)
{
    if (comm->rank == 0) {
        fprintf(stderr, "prism: error: %s\n", error ? error->message : "HDF5 write failed");
        fflush(stderr);
    }
    MPI_Barrier(comm->mpi);
    MPI_Abort(comm->mpi, 1);
    abort(); /* not reached */
}

static gboolean sweep_run(PrismComm *comm, SweepOptions *o, int argc, char **argv, GError **error)
{
    double t0 = prism_now();
    FILE *out = prism_app_out(comm);
    Sweep s = {0};
    GError *local = NULL;
    gboolean ok = FALSE;
    if (!prism_app_load_inputs(comm, &o->common, &s.in, error))
        return FALSE;
    g_autoptr(PrismLandscapeSchema) schema = prism_landscape_schema_new();
    g_autoptr(PrismLandscape) ls = NULL;
    g_autoptr(PrismSearchResult) res = NULL;
    g_autoptr(GArray) pareto = g_array_new(FALSE, FALSE, sizeof(PrismLandscapeRow));
    g_autoptr(GArray) top = g_array_new(FALSE, FALSE, sizeof(PrismLandscapeRow));
    g_autoptr(GPtrArray) tracks = NULL; /* the track records (after the search) */
    PrismSearchOptions opt;
    PrismLandscapeOptions lo;
    const char *path = o->common.output ? o->common.output : DEFAULT_OUTPUT;
    /* SIGINT/SIGTERM are honoured from here on: the grid set-up polls the flag per point,
     * the search per batch. */
    PrismStopGuard guard;
    prism_app_stop_catch(&guard);
    s.progress = comm->rank == 0 && !o->search.no_progress;
    if (build_points(o, &s, &local) && search_options(o, &s, &opt, &local) &&
        landscape_options(o, &lo, &local))
        opt.kt = prism_kernel_table_get(o->common.isa, &local);
    (void)prism_app_stop_check(&local);
    if (!prism_comm_agree_error(comm, &local))
        goto done;
    prism_landscape_schema_add_dims(schema);
    prism_landscape_schema_add_cost(schema, s.gj.max_levels);
    if (opt.intervals)
        prism_landscape_schema_add_intervals(schema);
    ls = prism_landscape_new(comm, path, schema, &lo);
    add_attrs(ls, &s, argc, argv);
    add_interval_attr(ls, o);
    set_grid_table(ls, &s);
    set_constants(ls, &s);
    if (!disk_check(o, &s, ls, path, out, &local) || o->count) {
        ok = local == NULL;
        goto done;
    }
    if (!prism_landscape_prepare(ls, &local))
        goto done;
    PrismRowSink sink = prism_landscape_sink(ls);
    res = prism_search_run_jobs(comm, &s.gj.jobs, &opt, &sink, &local);
    /* From here a signal ends the process at once: the spill records are complete, so
     * the partial output stays resumable whatever happens to the final write. */
    prism_app_stop_release(&guard);
    if (res == NULL) {
        if (local->domain != PRISM_INPUT_ERROR && !lo.no_landscape)
            g_prefix_error(&local,
                           "%s and its spill folder are kept; rerun the same command "
                           "with --resume to continue: ",
                           prism_landscape_partial_path(ls));
        goto done;
    }
    if (comm->rank == 0 && (!result_rows(&s, res, TRUE, opt.intervals, pareto, &local) ||
                            !result_rows(&s, res, FALSE, opt.intervals, top, &local)))
        g_prefix_error(&local, "re-evaluating the front rows: ");
    if (!prism_comm_agree_error(comm, &local))
        goto done;
    add_result_attrs(ls, res, opt.top_k);
    tracks = sweep_tracks(comm, &s);
    add_track_attr(ls, tracks);
    if (!prism_landscape_finish(ls, (const PrismLandscapeRow *)(const void *)pareto->data,
                                pareto->len, (const PrismLandscapeRow *)(const void *)top->data,
                                top->len, &local))
        goto done;
    if (out) {
        print_summary(out, path, &lo, res, &s, prism_now() - t0, pareto->len, top->len);
        /* as plan: the record under an answer (nothing fits prints plan's diagnosis) */
        for (guint i = 0; i < tracks->len && prism_search_result_feasible(res) > 0; i++) {
            g_autofree char *tr =
                prism_app_track_text(g_ptr_array_index(tracks, i), "the landscape's step times");
            fputs(tr, out);
        }
    }
    ok = prism_search_result_feasible(res) > 0 ||
         report_nothing_fits(comm, out, &s, res, opt.kt, opt.top_k, &local);
done:
    prism_app_stop_release(&guard); /* idempotent: restores the saved handlers */
    if (ls != NULL && prism_landscape_unrecoverable(ls))
        abort_job(comm, local);
    if (local != NULL)
        g_propagate_error(error, local);
    sweep_clear(&s);
    return ok;
}

gboolean prism_cmd_sweep(PrismComm *comm, int argc, char **argv, GError **error)
{
    SweepOptions o = {.common.flags = PRISM_OPT_ALL_INPUTS | PRISM_OPT_OUTPUT,
                      .deflate = UNSET_LEVEL,
                      .level = UNSET_LEVEL,
                      .chunk = PRISM_OPT_UNSET_INT,
                      .spill_rows = PRISM_OPT_UNSET_INT};
    const GOptionEntry entries[] = {
        {"grid", 'g', 0, G_OPTION_ARG_FILENAME, &o.grid,
         "grid file: models x clusters x devices x gbs x seq (io/README.md)", "FILE"},
        {"resume", 0, 0, G_OPTION_ARG_NONE, &o.resume,
         "continue an interrupted run (FILE.partial); starts afresh when there is none", NULL},
        {"no-landscape", 0, 0, G_OPTION_ARG_NONE, &o.no_landscape,
         "store only the fronts, top lists and provenance, not every row", NULL},
        {"intervals", 0, 0, G_OPTION_ARG_NONE, &o.intervals,
         "also store each row's interval: step_lo and step_hi at the optimistic and pessimistic "
         "corners of the published ranges (prism knobs --sources), mem_hi and the memory class "
         "mem_risk (fits, at risk, does not fit); two more cost evaluations per row",
         NULL},
        {"mem-safety", 0, 0, G_OPTION_ARG_NONE, &o.mem_safety,
         "count a row at memory risk (its pessimistic device memory exceeds the usable memory) "
         "as not fitting in the fronts, top lists and feasible counts; implies --intervals",
         NULL},
        {"compression", 0, 0, G_OPTION_ARG_STRING, &o.compression,
         "codec of /landscape: zstd (default), lz4, deflate or none (io/README.md)", "CODEC"},
        {"compression-level", 0, 0, G_OPTION_ARG_INT, &o.level,
         "zstd 1 to 19 (default 1), deflate 1 to 9 (default 1); lz4 has none", "LEVEL"},
        {"hdf5-deflate", 0, 0, G_OPTION_ARG_INT, &o.deflate,
         "same as --compression deflate --compression-level LEVEL (0: none)", "LEVEL"},
        {"hdf5-chunk", 0, 0, G_OPTION_ARG_INT64, &o.chunk,
         "HDF5 chunk length in rows (default 65536)", "ROWS"},
        {"spill-rows", 0, 0, G_OPTION_ARG_INT64, &o.spill_rows,
         "rows per spill record: the most a SIGKILL can lose per rank (default 65536)", "ROWS"},
        {"count", 0, 0, G_OPTION_ARG_NONE, &o.count,
         "print the rows, the estimated spill and file size and the free disk; run nothing", NULL},
        {"no-disk-check", 0, 0, G_OPTION_ARG_NONE, &o.no_disk_check,
         "run even when the output's folder looks too small for the spill and the file", NULL},
        {"drop-damaged", 0, 0, G_OPTION_ARG_NONE, &o.drop_damaged,
         "with --resume: drop damaged spill records (CRC check) and recompute their rows", NULL},
        {"no-fsync", 0, 0, G_OPTION_ARG_NONE, &o.no_fsync,
         "do not fsync spill records (faster; a machine crash may cost a resume)", NULL},
        {"round-rows", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_INT64, &o.round_rows,
         "rows per search round (tests)", "ROWS"},
        G_OPTION_ENTRY_NULL};
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("- evaluate every strategy into an HDF5 landscape");
    g_option_context_set_summary(
        ctx, "Evaluates every strategy of one setup (or of every point of --grid FILE) over\n"
             "all MPI ranks and writes each row, feasible or not, to one HDF5 file with the\n"
             "Pareto fronts, top lists and provenance. With no options: GPT-3 175B on 1024\n"
             "A100-80GB, gbs 1536, seq 2048, into " DEFAULT_OUTPUT ". Interrupted runs\n"
             "(SIGINT, SIGTERM, SIGKILL) continue with --resume.");
    g_option_context_add_main_entries(ctx, entries, NULL);
    prism_app_add_search_options(ctx, &o.search);
    prism_app_add_common_options(ctx, &o.common);
    int full_argc = argc;
    g_auto(GStrv) full_argv = g_new0(char *, (size_t)argc + 1);
    for (int i = 0; i < argc; i++)
        full_argv[i] = g_strdup(argv[i]);
    gboolean ok = prism_app_parse(ctx, &argc, &argv, error);
    if (ok && argc > 1) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "unexpected argument '%s' (see prism sweep --help)", argv[1]);
        ok = FALSE;
    }
    if (ok && o.resume && o.common.force) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT,
                    "--resume and --force contradict each other: --resume continues the "
                    "partial run, --force discards it");
        ok = FALSE;
    }
    if (ok && o.drop_damaged && !o.resume) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT,
                    "--drop-damaged only applies to --resume (it drops damaged spill records "
                    "of the interrupted run so that their rows are recomputed)");
        ok = FALSE;
    }
    if (ok)
        ok = sweep_run(comm, &o, full_argc, full_argv, error);
    sweep_options_clear(&o);
    return ok;
}
