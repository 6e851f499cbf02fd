// SPDX-License-Identifier: MIT
/*
 * cmd_knobs.c - `prism knobs [--json] [--sources]`: every cost-model knob with its default,
 * the value in effect (after --set / --knobs), allowed range, unit and one-line doc; with
 * --sources the citation of each default (core.h "KIND: WHERE").
 * Collective like every command; rank 0 prints.
 */
#include "app-internal.h"

#include <json-glib/json-glib.h>

#include <prism/ranges.h>

#include <prism/cost.h>
#include <prism/knobs.h>

/* Member "range": {"lo", "hi", "scale", "pessimistic"[, "source"]} (ranges.h). */
static void range_json(JsonBuilder *b, const PrismKnobRange *r, gboolean sources)
{
    static const char *const scale[] = {"of the default", "factor", "of the peak's clock"};
    json_builder_set_member_name(b, "range");
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "lo");
    json_builder_add_double_value(b, r->lo);
    json_builder_set_member_name(b, "hi");
    json_builder_add_double_value(b, r->hi);
    json_builder_set_member_name(b, "scale");
    json_builder_add_string_value(b, scale[r->kind]);
    json_builder_set_member_name(b, "pessimistic");
    json_builder_add_string_value(b, r->hi_slow ? "hi" : "lo");
    if (sources)
        prism_app_source_json(b, r->source);
    json_builder_end_object(b);
}

/* "      range [lo, hi] ... pessimistic end, source" under a knob's --sources line. */
static void range_text(FILE *f, const PrismKnobRange *r)
{
    static const char *const scale[] = {"", " x the value in use", " x the peak's clock"};
    g_autofree char *name = g_strdup_printf("  range [%.4g, %.4g]%s", r->lo, r->hi, scale[r->kind]);
    g_autofree char *end = g_strdup_printf("slow: %s", r->hi_slow ? "hi" : "lo");
    prism_app_source_text(f, name, end, r->source);
}

/* The knobs; with --sources each knob's range, and the ranges of device fields (the
 * sustained clock) as entries of their own ({"name", "device_field": true, "range"}). */
static void print_json(FILE *f, const PrismKnobs *k, gboolean sources)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_array(b);
    for (int i = 0; i < PRISM_KNOB_COUNT; i++) {
        const PrismKnobInfo *ki = prism_knob_info((PrismKnobId)i);
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "name");
        json_builder_add_string_value(b, ki->name);
        json_builder_set_member_name(b, "value");
        json_builder_add_double_value(b, k->v[i]);
        json_builder_set_member_name(b, "default");
        json_builder_add_double_value(b, ki->def);
        json_builder_set_member_name(b, "min");
        json_builder_add_double_value(b, ki->min);
        json_builder_set_member_name(b, "max");
        json_builder_add_double_value(b, ki->max);
        json_builder_set_member_name(b, "unit");
        json_builder_add_string_value(b, ki->unit);
        json_builder_set_member_name(b, "doc");
        json_builder_add_string_value(b, ki->doc);
        if (sources)
            prism_app_source_json(b, ki->source);
        const PrismKnobRange *r = prism_knob_range_find(ki->name);
        if (r != NULL)
            range_json(b, r, sources);
        json_builder_end_object(b);
    }
    for (size_t i = 0; sources && i < prism_knob_range_count(); i++) {
        const PrismKnobRange *r = prism_knob_range(i);
        PrismKnobId id;
        if (prism_knob_lookup(r->name, &id, NULL))
            continue;
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "name");
        json_builder_add_string_value(b, r->name);
        json_builder_set_member_name(b, "device_field");
        json_builder_add_boolean_value(b, TRUE);
        prism_app_source_json(b, r->source);
        range_json(b, r, TRUE);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    prism_app_print_json(f, b);
}

gboolean prism_cmd_knobs(PrismComm *comm, int argc, char **argv, GError **error)
{
    PrismCommonOptions o = {.flags = PRISM_OPT_KNOBS | PRISM_OPT_JSON};
    g_autoptr(GOptionContext) ctx = g_option_context_new("- list the cost-model knobs");
    g_option_context_set_description(
        ctx, "Override knobs with --set NAME=VALUE (repeatable) or --knobs FILE on any "
             "command.\nDefaults and their reasoning are in cost/README.md; --sources prints each "
             "default's citation.");
    prism_app_add_common_options(ctx, &o);
    gboolean sources = FALSE;
    prism_app_add_sources_option(ctx, &sources);
    gboolean ok = FALSE;
    PrismKnobs k;
    if (!prism_app_parse(ctx, &argc, &argv, error))
        goto out;
    if (argc > 1) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "unexpected argument '%s' (see --help)", argv[1]);
        goto out;
    }
    prism_knobs_default(&k);
    if (o.knobs_file != NULL && !prism_knobs_load_file(&k, o.knobs_file, error))
        goto out;
    for (char **s = o.set; s != NULL && *s != NULL; s++)
        if (!prism_knobs_set(&k, *s, error)) {
            g_prefix_error(error, "--set: ");
            goto out;
        }
    FILE *f = prism_app_out(comm);
    if (f != NULL && o.json) {
        print_json(f, &k, sources);
    } else if (f != NULL && sources) {
        fprintf(f, "  %-28s %-12s %s\n", "knob", "default", "source (KIND: WHERE)");
        for (int i = 0; i < PRISM_KNOB_COUNT; i++) {
            const PrismKnobInfo *ki = prism_knob_info((PrismKnobId)i);
            char def[G_ASCII_DTOSTR_BUF_SIZE];
            prism_format_double(def, sizeof def, ki->def);
            prism_app_source_text(f, ki->name, def, ki->source);
            const PrismKnobRange *r = prism_knob_range_find(ki->name);
            if (r != NULL)
                range_text(f, r);
        }
        for (size_t i = 0; i < prism_knob_range_count(); i++) {
            const PrismKnobRange *r = prism_knob_range(i);
            PrismKnobId id;
            if (!prism_knob_lookup(r->name, &id, NULL)) {
                fprintf(f, "  %-28s %-12s (a device field, not a knob)\n", r->name, "-");
                range_text(f, r);
            }
        }
    } else if (f != NULL) {
        fprintf(f, "%-20s %12s %12s  %-9s %s\n", "knob", "value", "default", "unit", "doc");
        for (int i = 0; i < PRISM_KNOB_COUNT; i++) {
            const PrismKnobInfo *ki = prism_knob_info((PrismKnobId)i);
            fprintf(f, "%-20s %12g %12g  %-9s %s [%g, %g]%s\n", ki->name, k.v[i], ki->def, ki->unit,
                    ki->doc, ki->min, ki->max, k.v[i] != ki->def ? " (set)" : "");
        }
    }
    ok = TRUE;
out:
    prism_common_options_clear(&o);
    return ok;
}
