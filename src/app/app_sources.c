// SPDX-License-Identifier: MIT
/*
 * app_sources.c - how `prism knobs|clusters|frameworks --sources` print the citation of
 * each value (core.h, "KIND: WHERE"): text lines and the JSON "source" member.
 * Not collective; rank 0 prints.
 */
#include "app-internal.h"

#include <string.h>

void prism_app_add_sources_option(GOptionContext *ctx, gboolean *on)
{
    const GOptionEntry entries[] = {
        {"sources", 0, 0, G_OPTION_ARG_NONE, on,
         "print every value with its citation (KIND: WHERE, KIND one of published, count, "
         "code, derived, convention); with --json a \"source\" member per value",
         NULL},
        G_OPTION_ENTRY_NULL};
    g_option_context_add_main_entries(ctx, entries, NULL);
}

void prism_app_source_text(FILE *f, const char *name, const char *value, const char *source)
{
    PrismSourceKind kind;
    g_autofree char *where = NULL, *problem = NULL;
    prism_source_parse(source, &kind, &where, &problem);
    fprintf(f, "  %-28s %-12s %s: %s\n", name, value, prism_source_kind_name(kind),
            where ? where : problem);
}

/* Member "source": {"kind", "where"[, "problem"]} of the open object of @p b. */
static void source_member(JsonBuilder *b, PrismSourceKind kind, const char *where,
                          const char *problem)
{
    json_builder_set_member_name(b, "source");
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "kind");
    json_builder_add_string_value(b, prism_source_kind_name(kind));
    json_builder_set_member_name(b, "where");
    json_builder_add_string_value(b, where ? where : "");
    if (problem != NULL) {
        json_builder_set_member_name(b, "problem");
        json_builder_add_string_value(b, problem);
    }
    json_builder_end_object(b);
}

void prism_app_source_json(JsonBuilder *b, const char *source)
{
    PrismSourceKind kind;
    g_autofree char *where = NULL, *problem = NULL;
    prism_source_parse(source, &kind, &where, &problem);
    source_member(b, kind, where, problem);
}

static gboolean listed(const char *group, const char *const *list)
{
    return list != NULL && g_strv_contains(list, group);
}

/* A key file's value: a number where the whole text is one, else the text. */
static void value_json(JsonBuilder *b, const char *text)
{
    char *end = NULL;
    const double v = g_ascii_strtod(text, &end);
    if (*text != '\0' && end != text && *end == '\0')
        json_builder_add_double_value(b, v);
    else
        json_builder_add_string_value(b, text);
}

void prism_app_cited_keys(FILE *f, JsonBuilder *b, const GPtrArray *cited, const char *const *skip)
{
    if (b != NULL)
        json_builder_begin_array(b);
    for (guint i = 0; i < cited->len; i++) {
        const PrismCitedKey *c = g_ptr_array_index(cited, i);
        if (listed(c->group, skip))
            continue;
        g_autofree char *text =
            c->problem ? g_strdup_printf("none: %s", c->problem)
                       : g_strdup_printf("%s: %s", prism_source_kind_name(c->kind), c->where);
        if (b == NULL) {
            g_autofree char *name = g_strdup_printf("[%s] %s", c->group, c->key);
            fprintf(f, "  %-40s %-14s %s\n", name, c->value, text);
            continue;
        }
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "group");
        json_builder_add_string_value(b, c->group);
        json_builder_set_member_name(b, "key");
        json_builder_add_string_value(b, c->key);
        json_builder_set_member_name(b, "value");
        value_json(b, c->value);
        source_member(b, c->kind, c->where, c->problem);
        json_builder_end_object(b);
    }
    if (b != NULL)
        json_builder_end_array(b);
}
