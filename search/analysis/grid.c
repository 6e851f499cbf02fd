// SPDX-License-Identifier: MIT
/*
 * grid.c - grid.h: the points of a grid sweep (models x clusters x devices x gbs x seq),
 * the command-line options a grid may not repeat, the knobs its points share, and the
 * set-up of the points as search jobs. Not collective.
 */
#include <prism/grid.h>

#include <string.h>

#include <prism/core.h>

void prism_grid_points_init(PrismGridPoints *p, const PrismGrid *grid, const PrismGridPoint *base,
                            const uint32_t *devices, size_t n_dev)
{
    *p = (PrismGridPoints){.grid = grid, .base = *base, .devices = devices, .n_dev = n_dev};
    if (grid == NULL) {
        p->n_cl = p->n_gbs = p->n_seq = p->per_cluster = p->n_points = 1;
        return;
    }
    p->n_cl = grid->n_clusters ? grid->n_clusters : 1;
    p->n_gbs = grid->n_gbs ? grid->n_gbs : 1;
    p->n_seq = grid->n_seq ? grid->n_seq : 1;
    p->per_cluster = p->n_dev * p->n_gbs * p->n_seq;
    p->n_points = grid->n_models * p->n_cl * p->per_cluster;
}

size_t prism_grid_point_cluster(const PrismGridPoints *p, size_t i)
{
    return p->grid ? i / p->per_cluster % p->n_cl : 0;
}

void prism_grid_point(const PrismGridPoints *s, size_t i, PrismGridPoint *p)
{
    if (s->grid == NULL) {
        *p = s->base;
        return;
    }
    *p = (PrismGridPoint){0};
    const PrismGrid *g = s->grid;
    size_t qi = i % s->n_seq, bi = i / s->n_seq % s->n_gbs;
    size_t di = i / (s->n_seq * s->n_gbs) % s->n_dev;
    size_t ci = i / s->per_cluster % s->n_cl, mi = i / (s->per_cluster * s->n_cl);
    p->model = g->models[mi];
    p->model_name = g->model_names[mi];
    p->cluster = g->n_clusters ? g->clusters[ci] : s->base.cluster;
    p->cluster_name = g->n_clusters ? g->cluster_names[ci] : s->base.cluster->name;
    p->training = s->base.training;
    if (g->n_gbs)
        p->training.gbs = g->gbs[bi];
    if (g->n_seq)
        p->training.seq = g->seq[qi];
    /* dtype and optimizer were checked by the grid loader */
    if (g->dtype)
        (void)prism_dtype_parse(g->dtype, &p->training.dtype, NULL);
    if (g->optimizer)
        (void)prism_optimizer_parse(g->optimizer, &p->training.optimizer, NULL);
    if (g->mem_budget_gib > 0)
        p->training.mem_budget_bytes = g->mem_budget_gib * 1073741824.0;
    p->devices = &s->devices[di];
    p->n_devices = 1;
}

char *prism_grid_point_label(const PrismGridPoints *s, size_t i)
{
    if (s->grid == NULL)
        return g_strdup("inputs");
    PrismGridPoint p;
    prism_grid_point(s, i, &p);
    return g_strdup_printf("grid %s point %zu (%s on %u x %s, gbs %" G_GUINT64_FORMAT
                           ", seq %" G_GUINT64_FORMAT ")",
                           s->grid->path, i, p.model_name, p.devices[0], p.cluster_name,
                           p.training.gbs, p.training.seq);
}

/* A grid value and the same command-line option may not both be given. */
static gboolean no_conflict(gboolean in_grid, gboolean on_cli, const char *grid_key,
                            const char *option, const char *path, GError **error)
{
    if (in_grid && on_cli) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT,
                    "%s is given twice: by %s and by grid %s %s; keep one", option, option, path,
                    grid_key);
        return FALSE;
    }
    return TRUE;
}

gboolean prism_grid_check_given(const PrismGrid *g, const PrismGridGiven *c, GError **error)
{
    const char *p = g->path;
    return no_conflict(TRUE, c->model, "[grid] models", "--model", p, error) &&
           no_conflict(g->n_clusters > 0, c->cluster, "[grid] clusters", "--cluster", p, error) &&
           no_conflict(g->devices != NULL, c->devices, "[grid] devices", "--devices", p, error) &&
           no_conflict(g->n_gbs > 0, c->gbs, "[grid] gbs", "--gbs", p, error) &&
           no_conflict(g->n_seq > 0, c->seq, "[grid] seq", "--seq", p, error) &&
           no_conflict(g->dtype != NULL, c->dtype, "[options] dtype", "--dtype", p, error) &&
           no_conflict(g->optimizer != NULL, c->optimizer, "[options] optimizer", "--optimizer", p,
                       error) &&
           no_conflict(g->mem_budget_gib > 0, c->mem_budget, "[options] mem_budget", "--mem-budget",
                       p, error) &&
           no_conflict(g->objectives != NULL, c->objectives, "[options] objectives", "--objectives",
                       p, error) &&
           no_conflict(g->rank_by != NULL, c->rank_by, "[options] rank_by", "--rank-by", p,
                       error) &&
           no_conflict(g->top > 0, c->top, "[options] top", "--top", p, error);
}

/* The knob chain of a grid run for one cluster: defaults, then the --framework profile's
 * (with its [knobs.FAMILY] group for @p cluster_name), then the grid's [knobs], then
 * --knobs FILE and --set. */
static gboolean knob_chain(const PrismGrid *g, const PrismFramework *fw, const char *knobs_file,
                           char *const *set, const char *cluster_name, PrismKnobs *k,
                           GError **error)
{
    prism_knobs_default(k);
    if (fw != NULL)
        prism_framework_apply(fw, cluster_name, k, NULL);
    for (char **s = g->knobs; s && *s; s++)
        if (!prism_knobs_set(k, *s, error))
            return FALSE;
    if (knobs_file != NULL && !prism_knobs_load_file(k, knobs_file, error))
        return FALSE;
    for (char *const *s = set; s && *s; s++)
        if (!prism_knobs_set(k, *s, error)) {
            g_prefix_error(error, "--set: ");
            return FALSE;
        }
    return TRUE;
}

gboolean prism_grid_knobs(const PrismGrid *g, const PrismFramework *fw, const PrismCluster *single,
                          const char *knobs_file, char *const *set, PrismKnobs *k, GError **error)
{
    const PrismCluster *first = g->n_clusters ? g->clusters[0] : single;
    if (!knob_chain(g, fw, knobs_file, set, first->family, k, error))
        return FALSE;
    for (size_t i = 1; fw != NULL && fw->n_dev > 0 && i < g->n_clusters; i++) {
        PrismKnobs other;
        if (!knob_chain(g, fw, knobs_file, set, g->clusters[i]->family, &other, error))
            return FALSE;
        if (memcmp(other.v, k->v, sizeof other.v) != 0) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT,
                        "grid %s: [grid] clusters %s and %s take different knobs from "
                        "framework profile %s ([knobs.FAMILY] groups), and a landscape records "
                        "one set of knobs: run them as separate grids",
                        g->path, first->name, g->clusters[i]->name, fw->path);
            return FALSE;
        }
    }
    return TRUE;
}

static void drop_point(PrismGridJobs *j)
{
    g_clear_pointer(&j->cm, prism_cost_model_free);
    g_clear_pointer(&j->space, prism_space_free);
}

void prism_grid_jobs_clear(PrismGridJobs *j)
{
    drop_point(j);
    g_free(j->first);
    g_free(j->weight);
    g_free(j->constants);
    g_free(j->space_sum);
}

/* Validate point @p i and build its cost model (and, unless @p space is NULL, its
 * space); errors name the point. With @p stoppable (the set-up) SIGINT/SIGTERM ends the
 * space's enumeration (PRISM_RUNTIME_ERROR_INTERRUPTED); the search's rebuilds of a point
 * run to the end (its stop hook polls between batches). */
static gboolean point_build(const PrismGridJobs *j, size_t i, PrismCostModel **cm,
                            PrismSpace **space, gboolean stoppable, GError **error)
{
    const PrismGrid *grid = j->pts->grid;
    PrismGridPoint p;
    prism_grid_point(j->pts, i, &p);
    if (grid != NULL && grid->mem_budget_gib > 0 &&
        p.training.mem_budget_bytes > p.cluster->mem_bytes) {
        g_autofree char *label = prism_grid_point_label(j->pts, i);
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "%s: [options] mem_budget %g GiB exceeds the %.1f GiB of a device", label,
                    grid->mem_budget_gib, p.cluster->mem_bytes / 1073741824.0);
        return FALSE;
    }
    gboolean ok =
        (grid == NULL ||
         (prism_training_validate(&p.training, error) &&
          (j->check == NULL || j->check(&p.training, p.cluster, j->knobs, error)))) &&
        (*cm = prism_cost_model_new(p.model, p.cluster, &p.training, j->knobs, error)) != NULL &&
        (space == NULL || (*space = prism_space_new_stoppable(
                               p.model, &p.training, p.devices, p.n_devices, j->filter,
                               stoppable ? j->stop : NULL, j->stop_user, error)) != NULL);
    if (!ok) {
        g_clear_pointer(cm, prism_cost_model_free);
        g_autofree char *label = prism_grid_point_label(j->pts, i);
        if (!g_str_has_prefix((*error)->message, "grid "))
            g_prefix_error(error, "%s: ", label);
    }
    return ok;
}

/* PrismSearchJobs.get: point @p i's cost model and space, built on demand; the point
 * made available before is freed (one point's memory at a time). */
static gboolean grid_get(void *user, size_t i, PrismSearchJob *out, GError **error)
{
    PrismGridJobs *j = user;
    if (j->cm == NULL || j->cur != i) {
        drop_point(j);
        if (!point_build(j, i, &j->cm, &j->space, FALSE, error))
            return FALSE;
        j->cur = i;
    }
    *out = (PrismSearchJob){.cm = j->cm, .space = j->space};
    return TRUE;
}

/* Set up point @p i (prism_grid_jobs_setup), adding its space's description to @p sum
 * (NULL: none). */
static gboolean setup_point(PrismGridJobs *j, size_t i, GChecksum *sum, GError **error)
{
    g_autoptr(PrismCostModel) cm = NULL;
    g_autoptr(PrismSpace) space = NULL;
    size_t ci = prism_grid_point_cluster(j->pts, i);
    if (!point_build(j, i, &cm, ci == 0 ? &space : NULL, TRUE, error)) {
        if (g_error_matches(*error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERRUPTED)) {
            /* the point's label is not the news: a grid names the point (the caller) */
            g_clear_error(error);
            g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERRUPTED,
                        "interrupted while enumerating the strategy space; nothing was written");
        }
        return FALSE;
    }
    PrismGridPoint p;
    prism_grid_point(j->pts, i, &p);
    j->max_levels = MAX(j->max_levels, p.cluster->n_levels);
    j->constants[i] =
        (PrismGridConstants){prism_cost_model_flops_per_step(cm), prism_cost_model_peak_flops(cm),
                             prism_cost_model_tokens_per_step(cm)};
    if (ci > 0) {
        size_t k = i - ci * j->pts->per_cluster;
        j->first[i + 1] = j->first[i] + (j->first[k + 1] - j->first[k]);
        j->weight[i] = j->weight[k];
        return TRUE;
    }
    PrismSearchJob job = {.cm = cm, .space = space};
    j->first[i + 1] = j->first[i] + prism_space_size(space);
    j->weight[i] = prism_search_job_weight(&job);
    size_t nd = 0;
    (void)prism_space_devices(space, &nd);
    j->jobs.multi_devices = j->jobs.multi_devices || nd > 1;
    if (sum != NULL) {
        g_autofree char *text = prism_space_describe(space, TRUE);
        g_checksum_update(sum, (const guchar *)text, (gssize)strlen(text));
        g_checksum_update(sum, (const guchar *)"\n", 1);
    }
    return TRUE;
}

gboolean prism_grid_jobs_setup(PrismGridJobs *j, PrismGridProgressFn progress, void *progress_user,
                               GError **error)
{
    const size_t n = j->pts->n_points;
    const PrismGrid *g = j->pts->grid;
    j->first = g_new0(uint64_t, n + 1);
    j->weight = g_new0(double, n);
    j->constants = g_new0(PrismGridConstants, n);
    j->jobs = (PrismSearchJobs){
        .n = n, .first = j->first, .weight = j->weight, .get = grid_get, .user = j};
    if (g == NULL)
        return setup_point(j, 0, NULL, error);
    g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
    for (size_t i = 0; i < n; i++) {
        if (progress != NULL)
            progress(progress_user, i, n, FALSE);
        /* a signal between points, or inside a point's enumeration (setup_point) */
        const gboolean ok =
            !(j->stop != NULL && j->stop(j->stop_user)) && setup_point(j, i, sum, error);
        if (!ok && (*error == NULL || g_error_matches(*error, PRISM_RUNTIME_ERROR,
                                                      PRISM_RUNTIME_ERROR_INTERRUPTED))) {
            g_clear_error(error);
            g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERRUPTED,
                        "interrupted while setting up grid %s (point %zu of %zu); nothing was "
                        "written",
                        g->path, i, n);
        }
        if (!ok)
            return FALSE;
    }
    j->space_sum = g_strdup(g_checksum_get_string(sum));
    if (progress != NULL)
        progress(progress_user, n, n, TRUE);
    return TRUE;
}
