// SPDX-License-Identifier: MIT
/*
 * core_source.c - citations of shipped defaults (core.h): the "KIND: WHERE" text and the
 * `# source:` comment lines of key files. Thread-safe; nothing here is collective.
 */
#include <prism/core.h>

#include <string.h>

static const char *const kind_names[PRISM_SOURCE_KIND_COUNT] = {"none", "published", "count",
                                                                "code", "derived",   "convention"};

const char *prism_source_kind_name(PrismSourceKind kind)
{
    return (unsigned)kind < PRISM_SOURCE_KIND_COUNT ? kind_names[kind] : "none";
}

static gboolean fail(PrismSourceKind *kind, char **problem, char *text)
{
    *kind = PRISM_SOURCE_NONE;
    if (problem != NULL)
        *problem = text;
    else
        g_free(text);
    return FALSE;
}

gboolean prism_source_parse(const char *text, PrismSourceKind *kind, char **where, char **problem)
{
    if (where != NULL)
        *where = NULL;
    if (problem != NULL)
        *problem = NULL;
    if (text == NULL)
        return fail(kind, problem, g_strdup("no citation"));
    const char *colon = strchr(text, ':');
    g_autofree char *k = g_strstrip(g_strndup(text, colon ? (gsize)(colon - text) : strlen(text)));
    int found = -1;
    for (int i = 1; i < PRISM_SOURCE_KIND_COUNT; i++)
        if (strcmp(k, kind_names[i]) == 0)
            found = i;
    if (colon == NULL || found < 0)
        return fail(kind, problem,
                    g_strdup_printf("unknown kind '%s' in '%s' (allowed: published, count, "
                                    "code, derived, convention, as 'KIND: WHERE')",
                                    k, text));
    g_autofree char *w = g_strstrip(g_strdup(colon + 1));
    if (*w == '\0')
        return fail(kind, problem, g_strdup_printf("no WHERE after '%s:'", k));
    *kind = (PrismSourceKind)found;
    if (where != NULL)
        *where = g_steal_pointer(&w);
    return TRUE;
}

static void cited_free(gpointer p)
{
    PrismCitedKey *c = p;
    g_free(c->group);
    g_free(c->key);
    g_free(c->value);
    g_free(c->where);
    g_free(c->problem);
    g_free(c);
}

/* The `source:` line of a comment block (GLib strips each line's '#'): its text after
 * "source:", NULL without one; *n counts such lines. Ownership: g_free(). */
static char *source_line(const char *comment, int *n)
{
    *n = 0;
    char *found = NULL;
    g_auto(GStrv) lines = g_strsplit(comment ? comment : "", "\n", -1);
    for (char **l = lines; *l != NULL; l++) {
        const char *t = g_strchug(*l);
        if (!g_str_has_prefix(t, "source:"))
            continue;
        if ((*n)++ == 0)
            found = g_strdup(t + strlen("source:"));
    }
    return found;
}

GPtrArray *prism_keyfile_citations(const char *path, GError **error)
{
    g_autofree char *label = g_strdup_printf("key file %s", path);
    /* the checked reader first: repeated keys and groups are refused as everywhere */
    GKeyFile *checked = prism_keyfile_load(path, label, error);
    if (checked == NULL)
        return NULL;
    g_key_file_free(checked);
    g_autofree char *data = NULL;
    gsize len = 0;
    g_autoptr(GKeyFile) kf = g_key_file_new();
    if (!g_file_get_contents(path, &data, &len, NULL))
        return NULL; /* read a moment ago: only a race gets here */
    const size_t bom = prism_utf8_bom_len(data, len);
    if (!g_key_file_load_from_data(kf, data + bom, len - bom, G_KEY_FILE_KEEP_COMMENTS, NULL))
        return NULL;
    GPtrArray *out = g_ptr_array_new_with_free_func(cited_free);
    g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);
    for (char **g = groups; *g != NULL; g++) {
        g_auto(GStrv) keys = g_key_file_get_keys(kf, *g, NULL, NULL);
        for (char **k = keys; keys != NULL && *k != NULL; k++) {
            PrismCitedKey *c = g_new0(PrismCitedKey, 1);
            c->group = g_strdup(*g);
            c->key = g_strdup(*k);
            char *v = g_key_file_get_value(kf, *g, *k, NULL);
            c->value = v ? g_strstrip(v) : g_strdup("");
            g_autofree char *comment = g_key_file_get_comment(kf, *g, *k, NULL);
            int n = 0;
            g_autofree char *text = source_line(comment, &n);
            if (n > 1)
                c->problem = g_strdup_printf("%d source: lines (one per key)", n);
            else if (n == 0)
                c->problem = g_strdup("no '# source: KIND: WHERE' line in the comment above it");
            else
                prism_source_parse(text, &c->kind, &c->where, &c->problem);
            g_ptr_array_add(out, c);
        }
    }
    return out;
}
