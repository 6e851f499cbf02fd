// SPDX-License-Identifier: MIT
/*
 * cmd_frameworks.c - `prism frameworks [NAME|FILE] [--json] [--sources]`: the framework
 * profiles found (framework.h), or one profile in full: the knobs it sets, its memory
 * conventions, its defaults for unstated dims and what its planner supports. --sources
 * gives every value of the profile with its citation (its `# source:` comment lines), and
 * the settings of sources.ini for the validation sources that ran it. Collective like every command
 * (every rank reads the files); rank 0 prints.
 */
#include "app-internal.h"

#include <prism/strategy.h>

static const char *dim_value(const PrismFramework *fw, int d, char *buf, size_t n)
{
    const int v = fw->def[d];
    if (v == PRISM_FW_NONE)
        return "plan";
    if (v == PRISM_FW_MBS_LOCAL)
        return "local";
    if (d == PRISM_FW_RECOMPUTE)
        return prism_recompute_name((PrismRecompute)v);
    if (d == PRISM_FW_SCHEDULE)
        return prism_schedule_name((PrismSchedule)v);
    g_snprintf(buf, n, "%d", v);
    return buf;
}

/* "tp, dp, param" of PrismOverlap bits, "none" for 0. Ownership: g_free(). */
static char *overlap_text(unsigned bits)
{
    if (bits == 0)
        return g_strdup("none");
    return g_strdup_printf("%s%s%s%s%s", bits & PRISM_OVERLAP_TP ? "tp" : "",
                           (bits & PRISM_OVERLAP_TP) && (bits & 6) ? ", " : "",
                           bits & PRISM_OVERLAP_DP ? "dp" : "",
                           (bits & PRISM_OVERLAP_DP) && (bits & 4) ? ", " : "",
                           bits & PRISM_OVERLAP_PARAM ? "param" : "");
}

/* " name=value, ..." of the knobs @p set marks (" none" without one), then a newline. */
static void text_knobs(FILE *f, const PrismKnobs *k, const gboolean *set)
{
    int n = 0;
    for (int i = 0; i < PRISM_KNOB_COUNT; i++)
        if (set[i])
            fprintf(f, "%s %s=%g", n++ ? "," : "", prism_knob_info((PrismKnobId)i)->name, k->v[i]);
    fprintf(f, "%s\n", n ? "" : " none");
}

/* {"name": value, ...} of the knobs @p set marks. */
static void json_knobs(JsonBuilder *b, const PrismKnobs *k, const gboolean *set)
{
    json_builder_begin_object(b);
    for (int i = 0; i < PRISM_KNOB_COUNT; i++)
        if (set[i]) {
            json_builder_set_member_name(b, prism_knob_info((PrismKnobId)i)->name);
            json_builder_add_double_value(b, k->v[i]);
        }
    json_builder_end_object(b);
}

static void show_text(FILE *f, const PrismFramework *fw)
{
    fprintf(f, "framework %s: %s\n  file: %s\n  source: %s\n", fw->name, fw->title, fw->path,
            fw->source ? fw->source : "-");
    fprintf(f, "knobs set:");
    text_knobs(f, &fw->knobs, fw->knob_set);
    for (unsigned d = 0; d < fw->n_dev; d++) {
        fprintf(f, "knobs on %s devices:", fw->dev[d].family);
        text_knobs(f, &fw->dev[d].knobs, fw->dev[d].knob_set);
    }
    fprintf(f,
            "memory: optimizer %s, grad_fp32 %g, context %g GB, counts %s, allocator "
            "reserve %g, expandable segments %g\n",
            prism_optimizer_name(fw->optimizer), fw->knobs.v[PRISM_KNOB_GRAD_FP32],
            fw->knobs.v[PRISM_KNOB_CUDA_CONTEXT] / 1e9, prism_mem_counts_name(fw->counts),
            fw->knobs.v[PRISM_KNOB_ALLOCATOR_RESERVE], fw->knobs.v[PRISM_KNOB_EXPANDABLE_SEGMENTS]);
    fprintf(f, "defaults (plan = no default: the planner picks it):");
    char buf[32];
    for (int d = 0; d < PRISM_FW_DIM_COUNT; d++)
        fprintf(f, "%s %s=%s", d ? "," : "", prism_framework_dim_name((PrismFrameworkDim)d),
                dim_value(fw, d, buf, sizeof buf));
    fprintf(f, ", pp_microbatches=%s, dtype=%s\n", fw->pp_microbatches_stages ? "stages" : "plan",
            fw->has_dtype ? prism_dtype_name(fw->dtype) : "-");
    g_autofree char *ov = overlap_text(fw->overlap), *ovs = overlap_text(fw->overlap_search);
    fprintf(f,
            "planning: only %s, uniform chunks %s, overlap off allowed: %s (searched by "
            "default: %s)\nmodel rows: %s, embeddings %s\n",
            fw->only ? fw->only : "(everything)", fw->uniform_chunks ? "yes" : "no", ov, ovs,
            fw->llama ? "llama" : "gpt",
            fw->tied_embeddings < 0 ? "(architecture default)"
            : fw->tied_embeddings   ? "tied"
                                    : "untied");
}

static gboolean show_sources(FILE *f, JsonBuilder *b, const PrismFramework *fw, const GPtrArray *si,
                             GError **error);

/* The profile as one JSON object; with @p sources (citations @p si of sources.ini, NULL:
 * none) its cited values too. FALSE with @p error when they cannot be read. */
static gboolean show_json(JsonBuilder *b, const PrismFramework *fw, gboolean sources,
                          const GPtrArray *si, GError **error)
{
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "name");
    json_builder_add_string_value(b, fw->name);
    json_builder_set_member_name(b, "title");
    json_builder_add_string_value(b, fw->title);
    json_builder_set_member_name(b, "path");
    json_builder_add_string_value(b, fw->path);
    json_builder_set_member_name(b, "knobs");
    json_knobs(b, &fw->knobs, fw->knob_set);
    json_builder_set_member_name(b, "device_knobs");
    json_builder_begin_object(b);
    for (unsigned d = 0; d < fw->n_dev; d++) {
        json_builder_set_member_name(b, fw->dev[d].family);
        json_knobs(b, &fw->dev[d].knobs, fw->dev[d].knob_set);
    }
    json_builder_end_object(b);
    json_builder_set_member_name(b, "memory");
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "optimizer");
    json_builder_add_string_value(b, prism_optimizer_name(fw->optimizer));
    json_builder_set_member_name(b, "counts");
    json_builder_add_string_value(b, prism_mem_counts_name(fw->counts));
    json_builder_set_member_name(b, "allocator_reserve");
    json_builder_add_double_value(b, fw->knobs.v[PRISM_KNOB_ALLOCATOR_RESERVE]);
    json_builder_set_member_name(b, "expandable_segments");
    json_builder_add_boolean_value(b, fw->knobs.v[PRISM_KNOB_EXPANDABLE_SEGMENTS] > 0.5);
    json_builder_end_object(b);
    json_builder_set_member_name(b, "defaults");
    json_builder_begin_object(b);
    char buf[32];
    for (int d = 0; d < PRISM_FW_DIM_COUNT; d++) {
        json_builder_set_member_name(b, prism_framework_dim_name((PrismFrameworkDim)d));
        json_builder_add_string_value(b, dim_value(fw, d, buf, sizeof buf));
    }
    json_builder_set_member_name(b, "pp_microbatches");
    json_builder_add_string_value(b, fw->pp_microbatches_stages ? "stages" : "plan");
    json_builder_set_member_name(b, "dtype");
    json_builder_add_string_value(b, fw->has_dtype ? prism_dtype_name(fw->dtype) : "");
    json_builder_end_object(b);
    json_builder_set_member_name(b, "only");
    json_builder_add_string_value(b, fw->only ? fw->only : "");
    g_autofree char *ov = overlap_text(fw->overlap), *ovs = overlap_text(fw->overlap_search);
    json_builder_set_member_name(b, "overlap");
    json_builder_add_string_value(b, ov);
    json_builder_set_member_name(b, "overlap_search");
    json_builder_add_string_value(b, ovs);
    json_builder_set_member_name(b, "architecture");
    json_builder_add_string_value(b, fw->llama ? "llama" : "gpt");
    const gboolean ok = !sources || show_sources(NULL, b, fw, si, error);
    json_builder_end_object(b);
    return ok;
}

/* [profile] holds the title and the file's own source: a description, not values. */
static const char *const not_values[] = {"profile", NULL};

/* The groups of sources.ini that concern profile @p name: [sources] (its lines are picked
 * by value below) and every [SOURCE] whose [sources] entry names the profile.
 * Ownership: g_strfreev(). */
static char **source_groups(const GPtrArray *si, const char *name)
{
    GPtrArray *g = g_ptr_array_new();
    g_ptr_array_add(g, g_strdup("sources"));
    for (guint i = 0; i < si->len; i++) {
        const PrismCitedKey *c = g_ptr_array_index(si, i);
        if (strcmp(c->group, "sources") == 0 && strcmp(c->value, name) == 0)
            g_ptr_array_add(g, g_strdup(c->key));
    }
    g_ptr_array_add(g, NULL);
    return (char **)g_ptr_array_free(g, FALSE);
}

/* The sources.ini entries for profile @p name: the [sources] lines that name it and the
 * groups of those sources. */
static GPtrArray *source_entries(const GPtrArray *si, const char *name)
{
    g_auto(GStrv) groups = source_groups(si, name);
    GPtrArray *out = g_ptr_array_new();
    for (guint i = 0; i < si->len; i++) {
        const PrismCitedKey *c = g_ptr_array_index(si, i);
        const gboolean mapping = strcmp(c->group, "sources") == 0;
        if (mapping ? strcmp(c->value, name) == 0
                    : g_strv_contains((const char *const *)groups, c->group))
            g_ptr_array_add(out, (gpointer)c);
    }
    return out;
}

/* Profile @p fw's cited values and its validation sources' (from @p si, NULL: none): text
 * to @p f, or members "sources" and "validation_sources" of @p b's open object. FALSE with
 * @p error when the profile file cannot be read again. */
static gboolean show_sources(FILE *f, JsonBuilder *b, const PrismFramework *fw, const GPtrArray *si,
                             GError **error)
{
    g_autoptr(GPtrArray) cited = prism_keyfile_citations(fw->path, error);
    if (cited == NULL)
        return FALSE;
    g_autoptr(GPtrArray) entries = si ? source_entries(si, fw->name) : g_ptr_array_new();
    if (b != NULL) {
        json_builder_set_member_name(b, "sources");
        prism_app_cited_keys(NULL, b, cited, not_values);
        json_builder_set_member_name(b, "validation_sources");
        prism_app_cited_keys(NULL, b, entries, NULL);
    } else if (f != NULL) {
        fprintf(f, "framework %s (%s): every value and its source\n", fw->name, fw->path);
        prism_app_cited_keys(f, NULL, cited, not_values);
        if (entries->len > 0) {
            fprintf(f, "validation sources run with it (sources.ini):\n");
            prism_app_cited_keys(f, NULL, entries, NULL);
        }
    }
    return TRUE;
}

/* sources.ini's citations, or NULL (no file found: nothing to show). */
static GPtrArray *sources_ini(GError **error)
{
    g_autofree char *p = prism_framework_data_file("sources.ini", NULL);
    return p ? prism_keyfile_citations(p, error) : NULL;
}

gboolean prism_cmd_frameworks(PrismComm *comm, int argc, char **argv, GError **error)
{
    PrismCommonOptions o = {.flags = PRISM_OPT_JSON};
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("[NAME|FILE] - list framework profiles, or show one");
    g_option_context_set_description(
        ctx, "Profiles are key files NAME.ini searched in $PRISM_FRAMEWORKS_DIR, "
             "<bindir>/frameworks,\n<bindir>/../share/prism/frameworks and the source tree's "
             "cost/frameworks. Use one with\n--framework NAME|FILE (plan, sweep, explain, "
             "validate). --sources prints every value with its citation, the profile's\n"
             "'# source: KIND: WHERE' comment lines, and the sources.ini settings of the "
             "validation sources\nthat ran it.");
    prism_app_add_common_options(ctx, &o);
    gboolean sources = FALSE;
    prism_app_add_sources_option(ctx, &sources);
    gboolean ok = FALSE;
    /* declared before the first goto: the cleanups run at every exit */
    g_auto(GStrv) names = NULL;
    g_autoptr(JsonBuilder) b = NULL;
    g_autoptr(GPtrArray) si = NULL;
    FILE *f = prism_app_out(comm);
    if (!prism_app_parse(ctx, &argc, &argv, error))
        goto out;
    if (argc > 2) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "one framework at most, got '%s' and '%s'", argv[1], argv[2]);
        goto out;
    }
    if (sources) {
        GError *local = NULL;
        si = sources_ini(&local);
        if (local != NULL) {
            g_propagate_error(error, local);
            goto out;
        }
    }
    if (argc == 2) {
        g_autoptr(PrismFramework) fw = prism_app_framework_resolve(argv[1], error);
        if (fw == NULL)
            goto out;
        if (o.json) {
            b = json_builder_new();
            if (!show_json(b, fw, sources, si, error))
                goto out;
            if (f != NULL)
                prism_app_print_json(f, b);
        } else if (sources) {
            if (!show_sources(f, NULL, fw, si, error))
                goto out;
        } else if (f != NULL) {
            show_text(f, fw);
        }
        ok = TRUE;
        goto out;
    }
    names = prism_framework_names();
    b = json_builder_new();
    json_builder_begin_array(b);
    for (char **n = names; *n != NULL; n++) {
        g_autoptr(PrismFramework) fw = prism_app_framework_resolve(*n, error);
        if (fw == NULL)
            goto out;
        if (o.json) {
            if (!show_json(b, fw, sources, si, error))
                goto out;
        } else if (sources) {
            if (n != names && f != NULL)
                fputc('\n', f);
            if (!show_sources(f, NULL, fw, si, error))
                goto out;
        } else if (f != NULL) {
            fprintf(f, "%-20s %s\n", fw->name, fw->title);
        }
    }
    json_builder_end_array(b);
    if (f != NULL && o.json)
        prism_app_print_json(f, b);
    if (f != NULL && !o.json && names[0] == NULL)
        fprintf(f, "no framework profiles found (set PRISM_FRAMEWORKS_DIR)\n");
    ok = TRUE;
out:
    prism_common_options_clear(&o);
    return ok;
}
