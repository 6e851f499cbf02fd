// SPDX-License-Identifier: MIT
/*
 * fwconfig_read.c - the format readers of fwconfig.c: a TOML subset (the one framework
 * job files use: comments, [table] and [a.b] headers, bare, quoted and dotted keys, basic
 * and literal strings, integers, floats, booleans and arrays of them; no Debian 12 package
 * carries a C TOML library), YAML through libyaml, JSON through json-glib, and shell
 * command lines. Each flattens to FwEntry "dotted.key" = value (fwconfig-internal.h).
 */
#include "fwconfig-internal.h"

#include <string.h>

#include <json-glib/json-glib.h>
#include <yaml.h>

#include <prism/core.h>

#define FW_MAX_DEPTH 64

void fw_entry_free(gpointer p)
{
    FwEntry *e = p;
    if (e == NULL)
        return;
    g_free(e->key);
    g_free(e->value);
    g_free(e);
}

static void add(GPtrArray *out, const char *key, const char *value, unsigned line)
{
    FwEntry *e = g_new0(FwEntry, 1);
    e->key = g_strdup(key);
    e->value = g_strdup(value);
    e->line = line;
    g_ptr_array_add(out, e);
}

static gboolean has_key(const GPtrArray *out, const char *key)
{
    for (guint i = 0; i < out->len; i++)
        if (strcmp(((const FwEntry *)out->pdata[i])->key, key) == 0)
            return TRUE;
    return FALSE;
}

/* ------------------------------------------------------------------ TOML subset */

typedef struct {
    const char *p, *path;
    unsigned line;
} Toml;

static gboolean toml_fail(const Toml *t, GError **error, const char *what)
{
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                "%s: line %u: malformed TOML: %s", t->path, t->line, what);
    return FALSE;
}

static void toml_space(Toml *t)
{
    while (*t->p == ' ' || *t->p == '\t')
        t->p++;
}

/* Skip spaces, comments and newlines (inside arrays). */
static void toml_space_nl(Toml *t)
{
    for (;;) {
        toml_space(t);
        if (*t->p == '#') {
            while (*t->p && *t->p != '\n')
                t->p++;
        }
        if (*t->p == '\r' && t->p[1] == '\n')
            t->p++;
        if (*t->p != '\n')
            return;
        t->p++;
        t->line++;
    }
}

static gboolean toml_bare(char c)
{
    return g_ascii_isalnum(c) || c == '_' || c == '-';
}

/* A basic "..." or literal '...' string, the quote at t->p. */
static char *toml_string(Toml *t, GError **error)
{
    char q = *t->p++;
    GString *s = g_string_new(NULL);
    for (;;) {
        char c = *t->p;
        if (c == '\0' || c == '\n') {
            g_string_free(s, TRUE);
            toml_fail(t, error, "a string is not closed on its line");
            return NULL;
        }
        t->p++;
        if (c == q)
            break;
        if (q == '"' && c == '\\') {
            char e = *t->p;
            const char *map = strchr("\"\"\\\\n\nt\tr\rb\bf\f", e);
            if (e == '\0' || map == NULL || ((map - "\"\"\\\\n\nt\tr\rb\bf\f") % 2) != 0) {
                g_string_free(s, TRUE);
                toml_fail(t, error,
                          "unknown escape in a string (allowed: \\\" \\\\ \\n \\t \\r \\b \\f)");
                return NULL;
            }
            g_string_append_c(s, map[1]);
            t->p++;
            continue;
        }
        g_string_append_c(s, c);
    }
    return g_string_free(s, FALSE);
}

/* One key part: bare or quoted. */
static char *toml_key_part(Toml *t, GError **error)
{
    if (*t->p == '"' || *t->p == '\'')
        return toml_string(t, error);
    const char *b = t->p;
    while (toml_bare(*t->p))
        t->p++;
    if (t->p == b) {
        toml_fail(t, error, "a key was expected (letters, digits, '_', '-' or a quoted name)");
        return NULL;
    }
    return g_strndup(b, (gsize)(t->p - b));
}

/* A dotted key up to @p stop ('=' or ']'). */
static char *toml_key(Toml *t, GError **error)
{
    GString *k = g_string_new(NULL);
    for (;;) {
        toml_space(t);
        char *part = toml_key_part(t, error);
        if (part == NULL) {
            g_string_free(k, TRUE);
            return NULL;
        }
        if (k->len)
            g_string_append_c(k, '.');
        g_string_append(k, part);
        g_free(part);
        toml_space(t);
        if (*t->p != '.')
            break;
        t->p++;
    }
    return g_string_free(k, FALSE);
}

/* A scalar: number, boolean or bare date-like word, as its text. */
static char *toml_scalar(Toml *t, GError **error)
{
    if (*t->p == '"' || *t->p == '\'')
        return toml_string(t, error);
    const char *b = t->p;
    while (*t->p && (g_ascii_isalnum(*t->p) || strchr("+-._:", *t->p) != NULL))
        t->p++;
    if (t->p == b) {
        toml_fail(t, error, "a value was expected (a string, number, true, false or [array])");
        return NULL;
    }
    char *v = g_strndup(b, (gsize)(t->p - b));
    /* numbers may hold '_' between digits */
    char *w = v;
    for (char *r = v; *r; r++)
        if (*r != '_')
            *w++ = *r;
    *w = '\0';
    gboolean ok = strcmp(v, "true") == 0 || strcmp(v, "false") == 0;
    if (!ok) {
        char *end = NULL;
        (void)g_ascii_strtod(v, &end);
        ok = end != NULL && end != v && *end == '\0';
    }
    if (!ok) {
        g_free(v);
        toml_fail(t, error, "a value must be a quoted string, a number, true, false or an array");
        return NULL;
    }
    return v;
}

static char *toml_value(Toml *t, int depth, GError **error)
{
    if (*t->p == '{') {
        toml_fail(t, error, "inline tables are not read; write a [table] instead");
        return NULL;
    }
    if (*t->p != '[')
        return toml_scalar(t, error);
    if (depth > 8) {
        toml_fail(t, error, "arrays nested too deep");
        return NULL;
    }
    t->p++;
    GString *s = g_string_new(NULL);
    gboolean first = TRUE;
    for (;;) {
        toml_space_nl(t);
        if (*t->p == ']') {
            t->p++;
            break;
        }
        if (!first) {
            if (*t->p != ',') {
                g_string_free(s, TRUE);
                toml_fail(t, error, "',' or ']' expected in an array");
                return NULL;
            }
            t->p++;
            toml_space_nl(t);
            if (*t->p == ']') { /* trailing comma */
                t->p++;
                break;
            }
        }
        char *v = toml_value(t, depth + 1, error);
        if (v == NULL) {
            g_string_free(s, TRUE);
            return NULL;
        }
        g_string_append_printf(s, "%s%s", first ? "" : ",", v);
        g_free(v);
        first = FALSE;
    }
    return g_string_free(s, FALSE);
}

gboolean fw_read_toml(const char *text, const char *path, GPtrArray *out, GError **error)
{
    Toml t = {.p = text, .path = path, .line = 1};
    g_autofree char *table = NULL;
    g_autoptr(GHashTable) tables = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (;;) {
        toml_space_nl(&t);
        if (*t.p == '\0')
            return TRUE;
        if (*t.p == '[') {
            t.p++;
            if (*t.p == '[')
                return toml_fail(&t, error, "arrays of tables ([[...]]) are not read");
            char *k = toml_key(&t, error);
            if (k == NULL)
                return FALSE;
            if (*t.p != ']') {
                g_free(k);
                return toml_fail(&t, error, "']' expected after a table name");
            }
            t.p++;
            if (!g_hash_table_add(tables, g_strdup(k))) {
                g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                            "%s: line %u: malformed TOML: table [%s] defined twice", path, t.line,
                            k);
                g_free(k);
                return FALSE;
            }
            g_free(table);
            table = k;
        } else {
            g_autofree char *k = toml_key(&t, error);
            if (k == NULL)
                return FALSE;
            if (*t.p != '=')
                return toml_fail(&t, error, "'=' expected after a key");
            t.p++;
            toml_space(&t);
            unsigned line = t.line;
            g_autofree char *v = toml_value(&t, 0, error);
            if (v == NULL)
                return FALSE;
            g_autofree char *full = table ? g_strdup_printf("%s.%s", table, k) : g_strdup(k);
            if (has_key(out, full)) {
                g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                            "%s: line %u: malformed TOML: key %s given twice", path, line, full);
                return FALSE;
            }
            add(out, full, v, line);
        }
        toml_space(&t);
        if (*t.p == '#')
            while (*t.p && *t.p != '\n')
                t.p++;
        if (*t.p == '\r')
            t.p++;
        if (*t.p != '\n' && *t.p != '\0')
            return toml_fail(&t, error, "one key = value or [table] per line");
    }
}

/* ------------------------------------------------------------------ YAML */

typedef struct {
    yaml_parser_t parser;
    const char *path;
} Yaml;

static gboolean yaml_next(Yaml *y, yaml_event_t *ev, GError **error)
{
    if (yaml_parser_parse(&y->parser, ev))
        return TRUE;
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                "%s: line %zu: malformed YAML: %s", y->path, y->parser.problem_mark.line + 1,
                y->parser.problem ? y->parser.problem : "syntax error");
    return FALSE;
}

static gboolean yaml_node(Yaml *y, yaml_event_t *ev, const char *prefix, int depth, GPtrArray *out,
                          GError **error);

static char *join_key(const char *prefix, const char *k)
{
    return *prefix ? g_strdup_printf("%s.%s", prefix, k) : g_strdup(k);
}

static gboolean yaml_node(Yaml *y, yaml_event_t *ev, const char *prefix, int depth, GPtrArray *out,
                          GError **error)
{
    unsigned line = (unsigned)ev->start_mark.line + 1;
    if (depth > FW_MAX_DEPTH) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "%s: line %u: YAML nested deeper than %d levels", y->path, line, FW_MAX_DEPTH);
        return FALSE;
    }
    switch (ev->type) {
    case YAML_SCALAR_EVENT:
        if (has_key(out, prefix)) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                        "%s: line %u: malformed YAML: key %s given twice", y->path, line, prefix);
            return FALSE;
        }
        add(out, prefix, (const char *)ev->data.scalar.value, line);
        return TRUE;
    case YAML_ALIAS_EVENT:
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "%s: line %u: YAML aliases (*name) are not read", y->path, line);
        return FALSE;
    case YAML_MAPPING_START_EVENT:
        for (;;) {
            yaml_event_t k;
            if (!yaml_next(y, &k, error))
                return FALSE;
            if (k.type == YAML_MAPPING_END_EVENT) {
                yaml_event_delete(&k);
                return TRUE;
            }
            if (k.type != YAML_SCALAR_EVENT) {
                g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                            "%s: line %zu: YAML keys must be plain names", y->path,
                            k.start_mark.line + 1);
                yaml_event_delete(&k);
                return FALSE;
            }
            g_autofree char *key = join_key(prefix, (const char *)k.data.scalar.value);
            yaml_event_delete(&k);
            yaml_event_t v;
            if (!yaml_next(y, &v, error))
                return FALSE;
            gboolean ok = yaml_node(y, &v, key, depth + 1, out, error);
            yaml_event_delete(&v);
            if (!ok)
                return FALSE;
        }
    case YAML_SEQUENCE_START_EVENT: {
        GString *joined = g_string_new(NULL);
        gboolean scalars = FALSE;
        unsigned items = 0;
        for (unsigned i = 0;; i++, items++) {
            yaml_event_t v;
            if (!yaml_next(y, &v, error)) {
                g_string_free(joined, TRUE);
                return FALSE;
            }
            if (v.type == YAML_SEQUENCE_END_EVENT) {
                yaml_event_delete(&v);
                break;
            }
            gboolean ok = TRUE;
            if (v.type == YAML_SCALAR_EVENT) {
                g_string_append_printf(joined, "%s%s", scalars ? "," : "",
                                       (const char *)v.data.scalar.value);
                scalars = TRUE;
            } else {
                g_autofree char *key = g_strdup_printf("%s%s%u", prefix, *prefix ? "." : "", i);
                ok = yaml_node(y, &v, key, depth + 1, out, error);
            }
            yaml_event_delete(&v);
            if (!ok) {
                g_string_free(joined, TRUE);
                return FALSE;
            }
        }
        if (scalars || items == 0) /* scalars joined; an empty list is an empty value */
            add(out, prefix, joined->str, line);
        g_string_free(joined, TRUE);
        return TRUE;
    }
    default:
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "%s: line %u: malformed YAML: unexpected event", y->path, line);
        return FALSE;
    }
}

gboolean fw_read_yaml(const char *text, size_t len, const char *path, GPtrArray *out,
                      GError **error)
{
    Yaml y = {.path = path};
    if (!yaml_parser_initialize(&y.parser)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE, "%s: libyaml init failed",
                    path);
        return FALSE;
    }
    yaml_parser_set_input_string(&y.parser, (const unsigned char *)text, len);
    gboolean ok = TRUE, doc = FALSE;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_next(&y, &ev, error)) {
            ok = FALSE;
            break;
        }
        yaml_event_type_t type = ev.type;
        if (type == YAML_STREAM_END_EVENT) {
            yaml_event_delete(&ev);
            break;
        }
        if (type == YAML_DOCUMENT_START_EVENT) {
            if (doc) {
                yaml_event_delete(&ev);
                g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                            "%s: one YAML document expected, found several", path);
                ok = FALSE;
                break;
            }
            doc = TRUE;
        }
        if (type == YAML_MAPPING_START_EVENT || type == YAML_SEQUENCE_START_EVENT ||
            type == YAML_SCALAR_EVENT || type == YAML_ALIAS_EVENT) {
            if (type != YAML_MAPPING_START_EVENT) {
                g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                            "%s: line %zu: a YAML mapping (key: value lines) expected", path,
                            ev.start_mark.line + 1);
                yaml_event_delete(&ev);
                ok = FALSE;
                break;
            }
            ok = yaml_node(&y, &ev, "", 0, out, error);
        }
        yaml_event_delete(&ev);
        if (!ok)
            break;
    }
    yaml_parser_delete(&y.parser);
    return ok;
}

/* ------------------------------------------------------------------ JSON */

static void json_flat(JsonNode *n, const char *prefix, int depth, GPtrArray *out)
{
    if (depth > FW_MAX_DEPTH)
        return; /* json-glib's own limit is lower; kept for safety */
    switch (json_node_get_node_type(n)) {
    case JSON_NODE_OBJECT: {
        JsonObject *o = json_node_get_object(n);
        g_autoptr(GList) members = json_object_get_members(o);
        for (GList *l = members; l; l = l->next) {
            g_autofree char *k = join_key(prefix, l->data);
            json_flat(json_object_get_member(o, l->data), k, depth + 1, out);
        }
        if (members == NULL)
            add(out, prefix, "", 0);
        return;
    }
    case JSON_NODE_ARRAY: {
        JsonArray *a = json_node_get_array(n);
        GString *s = g_string_new(NULL);
        for (guint i = 0; i < json_array_get_length(a); i++) {
            JsonNode *e = json_array_get_element(a, i);
            if (JSON_NODE_HOLDS_VALUE(e)) {
                GPtrArray *one = g_ptr_array_new_with_free_func(fw_entry_free);
                json_flat(e, "x", depth + 1, one);
                g_string_append_printf(s, "%s%s", s->len ? "," : "",
                                       ((FwEntry *)one->pdata[0])->value);
                g_ptr_array_unref(one);
            } else {
                g_autofree char *k = g_strdup_printf("%s.%u", prefix, i);
                json_flat(e, k, depth + 1, out);
            }
        }
        add(out, prefix, s->str, 0);
        g_string_free(s, TRUE);
        return;
    }
    case JSON_NODE_NULL:
        add(out, prefix, "null", 0);
        return;
    case JSON_NODE_VALUE: {
        GType t = json_node_get_value_type(n);
        g_autofree char *v = NULL;
        if (t == G_TYPE_BOOLEAN)
            v = g_strdup(json_node_get_boolean(n) ? "true" : "false");
        else if (t == G_TYPE_INT64)
            v = g_strdup_printf("%" G_GINT64_FORMAT, json_node_get_int(n));
        else if (t == G_TYPE_DOUBLE) {
            char buf[G_ASCII_DTOSTR_BUF_SIZE];
            v = g_strdup(g_ascii_dtostr(buf, sizeof buf, json_node_get_double(n)));
        } else
            v = g_strdup(json_node_get_string(n) ? json_node_get_string(n) : "");
        add(out, prefix, v, 0);
        return;
    }
    }
}

gboolean fw_read_json(const char *text, size_t len, const char *path, const char *prefix,
                      GPtrArray *out, GError **error)
{
    g_autoptr(JsonParser) p = json_parser_new();
    GError *e = NULL;
    if (!json_parser_load_from_data(p, text, (gssize)len, &e)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE, "%s: malformed JSON: %s",
                    path, e->message);
        g_error_free(e);
        return FALSE;
    }
    JsonNode *root = json_parser_get_root(p);
    if (root == NULL || !JSON_NODE_HOLDS_OBJECT(root)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "%s: malformed JSON: a top-level object {...} expected", path);
        return FALSE;
    }
    json_flat(root, prefix, 0, out);
    return TRUE;
}

/* ------------------------------------------------------------------ command lines */

typedef struct {
    char *text;
    unsigned line;
} Tok;

/* Shell words of @p text; a here-document's body (<<WORD ... WORD) is read as JSON under
 * "ds_config." (the DeepSpeed config a launch script writes). */
static gboolean shell_words(const char *text, const char *path, GArray *toks, GPtrArray *out,
                            GError **error)
{
    const char *p = text;
    unsigned line = 1;
    GString *w = NULL;
    unsigned wline = 1;
    char *pending_heredoc = NULL; /* delimiter seen, body starts at the next line */
    for (;;) {
        char c = *p;
        gboolean sep = c == '\0' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';' ||
                       c == '|' || c == '&' || c == '(' || c == ')' || c == '>';
        if (sep || (c == '<' && w == NULL && p[1] != '<')) {
            if (w != NULL) {
                Tok t = {g_string_free(w, FALSE), wline};
                g_array_append_val(toks, t);
                w = NULL;
            }
            if (c == '\0')
                break;
            if (c == '\n') {
                line++;
                if (pending_heredoc != NULL) {
                    /* the body runs to a line holding only the delimiter */
                    const char *body = p + 1, *q = body;
                    const char *end = NULL;
                    while (*q) {
                        const char *eol = strchr(q, '\n');
                        size_t n = eol ? (size_t)(eol - q) : strlen(q);
                        const char *a = q;
                        size_t m = n;
                        while (m && (*a == ' ' || *a == '\t')) {
                            a++;
                            m--;
                        }
                        while (m && (a[m - 1] == ' ' || a[m - 1] == '\t' || a[m - 1] == '\r'))
                            m--;
                        if (m == strlen(pending_heredoc) && strncmp(a, pending_heredoc, m) == 0) {
                            end = q;
                            break;
                        }
                        if (eol == NULL)
                            break;
                        q = eol + 1;
                    }
                    if (end == NULL) {
                        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                                    "%s: line %u: here-document not closed by a line '%s'", path,
                                    line - 1, pending_heredoc);
                        g_free(pending_heredoc);
                        return FALSE;
                    }
                    g_autofree char *body_text = g_strndup(body, (gsize)(end - body));
                    if (!fw_read_json(body_text, strlen(body_text), path, "ds_config", out,
                                      error)) {
                        g_prefix_error(error, "(here-document at line %u) ", line);
                        g_free(pending_heredoc);
                        return FALSE;
                    }
                    for (const char *r = body; r < end; r++)
                        if (*r == '\n')
                            line++;
                    const char *eol = strchr(end, '\n');
                    p = eol ? eol : end + strlen(end);
                    g_free(pending_heredoc);
                    pending_heredoc = NULL;
                    continue;
                }
            }
            p++;
            continue;
        }
        if (c == '<' && p[1] == '<') {
            if (w != NULL) {
                Tok t = {g_string_free(w, FALSE), wline};
                g_array_append_val(toks, t);
                w = NULL;
            }
            p += 2;
            if (*p == '-')
                p++;
            while (*p == ' ' || *p == '\t')
                p++;
            GString *d = g_string_new(NULL);
            char q = (*p == '\'' || *p == '"') ? *p++ : 0;
            while (*p && *p != '\n' && (q ? *p != q : (*p != ' ' && *p != '\t' && *p != ';')))
                g_string_append_c(d, *p++);
            if (q && *p == q)
                p++;
            if (d->len == 0) {
                g_string_free(d, TRUE);
                g_free(pending_heredoc);
                g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                            "%s: line %u: '<<' without a here-document delimiter", path, line);
                return FALSE;
            }
            g_free(pending_heredoc);
            pending_heredoc = g_string_free(d, FALSE);
            continue;
        }
        if (c == '#' && w == NULL) {
            while (*p && *p != '\n')
                p++;
            continue;
        }
        if (w == NULL) {
            w = g_string_new(NULL);
            wline = line;
        }
        if (c == '\\') {
            if (p[1] == '\n') {
                line++;
                p += 2;
                if (w->len == 0) {
                    g_string_free(w, TRUE);
                    w = NULL;
                }
                continue;
            }
            if (p[1] == '\0') {
                p++;
                continue;
            }
            g_string_append_c(w, p[1]);
            p += 2;
            continue;
        }
        if (c == '\'' || c == '"') {
            const char *q = p + 1;
            while (*q && *q != c) {
                if (c == '"' && *q == '\\' && q[1])
                    q++;
                if (*q == '\n')
                    line++;
                q++;
            }
            if (*q != c) {
                g_string_free(w, TRUE);
                g_free(pending_heredoc);
                g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                            "%s: line %u: a %s quote is not closed", path, wline,
                            c == '"' ? "double" : "single");
                return FALSE;
            }
            for (const char *r = p + 1; r < q; r++) {
                if (c == '"' && *r == '\\' && r + 1 < q)
                    r++;
                g_string_append_c(w, *r);
            }
            p = q + 1;
            continue;
        }
        g_string_append_c(w, c);
        p++;
    }
    if (pending_heredoc != NULL) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "%s: here-document '%s' has no body", path, pending_heredoc);
        g_free(pending_heredoc);
        return FALSE;
    }
    return TRUE;
}

static void tok_clear(gpointer p)
{
    g_free(((Tok *)p)->text);
}

static gboolean is_flag_name(const char *name, const char *const *flags)
{
    for (int i = 0; flags && flags[i]; i++)
        if (strcmp(flags[i], name) == 0)
            return TRUE;
    return FALSE;
}

gboolean fw_read_args_flags(const char *text, const char *path, const char *const *flags,
                            GPtrArray *out, GError **error)
{
    g_autoptr(GArray) toks = g_array_new(FALSE, FALSE, sizeof(Tok));
    g_array_set_clear_func(toks, tok_clear);
    if (!shell_words(text, path, toks, out, error))
        return FALSE;
    for (guint i = 0; i < toks->len; i++) {
        const Tok *t = &g_array_index(toks, Tok, i);
        const char *s = t->text;
        if (s[0] == '-' && s[1] == '-' && s[2] != '\0') {
            const char *eq = strchr(s, '=');
            if (eq != NULL) {
                g_autofree char *k = g_strndup(s, (gsize)(eq - s));
                add(out, k, eq + 1, t->line);
                continue;
            }
            const char *next = i + 1 < toks->len ? g_array_index(toks, Tok, i + 1).text : NULL;
            gboolean takes = next != NULL && !is_flag_name(s, flags) &&
                             !(next[0] == '-' && !g_ascii_isdigit(next[1])) &&
                             !(strchr(next, '=') != NULL && strchr(next, '.') != NULL &&
                               strchr(next, '.') < strchr(next, '='));
            add(out, s, takes ? next : NULL, t->line);
            if (takes)
                i++;
            continue;
        }
        const char *eq = strchr(s, '=');
        if (eq != NULL && eq != s && s[0] != '-') {
            while (*s == '+')
                s++;
            eq = strchr(s, '=');
            if (eq == NULL || eq == s)
                continue;
            g_autofree char *k = g_strndup(s, (gsize)(eq - s));
            add(out, k, eq + 1, t->line);
        }
        /* other words (the launcher, the script name) say nothing prism reads */
    }
    return TRUE;
}

gboolean fw_read_args(const char *text, const char *path, GPtrArray *out, GError **error)
{
    return fw_read_args_flags(text, path, NULL, out, error);
}
