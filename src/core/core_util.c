// SPDX-License-Identifier: MIT
/*
 * core_util.c - error quarks, logging, clock, aligned memory and "did you mean" names.
 *
 * Thread-safe except prism_log's threshold cache (set once). Nothing here is collective.
 */
#include <prism/core.h>

#include <math.h> /* isfinite */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h> /* clock_gettime */

#include <json-glib/json-glib.h>

G_DEFINE_QUARK(prism - input - error - quark, prism_input_error)
G_DEFINE_QUARK(prism - runtime - error - quark, prism_runtime_error)

PrismLogLevel prism_log_threshold(void)
{
    static gsize once = 0;
    static PrismLogLevel level = PRISM_LOG_WARN;
    if (g_once_init_enter(&once)) {
        const char *env = g_getenv("PRISM_LOG");
        if (env != NULL) {
            if (g_ascii_strcasecmp(env, "error") == 0)
                level = PRISM_LOG_ERROR;
            else if (g_ascii_strcasecmp(env, "info") == 0)
                level = PRISM_LOG_INFO;
            else if (g_ascii_strcasecmp(env, "debug") == 0)
                level = PRISM_LOG_DEBUG;
        }
        g_once_init_leave(&once, 1);
    }
    return level;
}

void prism_log(PrismLogLevel level, int rank, const char *fmt, ...)
{
    static const char *const names[] = {"error", "warning", "info", "debug"};
    if (level > prism_log_threshold())
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    g_vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (rank >= 0)
        fprintf(stderr, "prism[rank %d] %s: %s\n", rank, names[level], line);
    else
        fprintf(stderr, "prism %s: %s\n", names[level], line);
}

double prism_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void *prism_aligned_new(size_t n, size_t size)
{
    /* g_aligned_alloc aborts on overflow/OOM like g_malloc; never returns NULL for n>0. */
    if (n == 0 || size == 0)
        return NULL;
    return g_aligned_alloc(n, size, 64);
}

void prism_aligned_free(void *p)
{
    g_aligned_free(p);
}

/* Case-insensitive Levenshtein distance, small strings only. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t *row = g_new(size_t, lb + 1);
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = g_ascii_tolower(a[i - 1]) == g_ascii_tolower(b[j - 1]) ? 0 : 1;
            size_t best = diag + cost;
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    size_t d = row[lb];
    g_free(row);
    return d;
}

char *prism_close_names(const char *name, const char *const *candidates, size_t n_candidates,
                        size_t max)
{
    GString *out = g_string_new(NULL);
    if (n_candidates == 0 || max == 0)
        return g_string_free(out, FALSE);
    size_t *dist = g_new(size_t, n_candidates);
    g_autofree char *lname = g_ascii_strdown(name, -1);
    for (size_t i = 0; i < n_candidates; i++) {
        g_autofree char *lc = g_ascii_strdown(candidates[i], -1);
        dist[i] = edit_distance(name, candidates[i]);
        /* A substring match is a strong hint whatever the length difference. */
        if (lname[0] != '\0' && (strstr(lc, lname) != NULL || strstr(lname, lc) != NULL))
            dist[i] = dist[i] < 2 ? dist[i] : 2;
    }
    for (size_t k = 0; k < max && k < n_candidates; k++) {
        size_t best = n_candidates;
        for (size_t i = 0; i < n_candidates; i++)
            if (dist[i] != (size_t)-1 && (best == n_candidates || dist[i] < dist[best]))
                best = i;
        if (best == n_candidates)
            break;
        g_string_append_printf(out, "%s%s", k ? ", " : "", candidates[best]);
        dist[best] = (size_t)-1;
    }
    g_free(dist);
    return g_string_free(out, FALSE);
}

gboolean prism_names_loosely_equal(const char *a, const char *b)
{
    g_return_val_if_fail(a != NULL && b != NULL, FALSE);
    for (;;) {
        while (*a == '-' || *a == '_' || *a == ' ')
            a++;
        while (*b == '-' || *b == '_' || *b == ' ')
            b++;
        if (*a == '\0' || *b == '\0')
            return *a == *b;
        if (g_ascii_tolower(*a++) != g_ascii_tolower(*b++))
            return FALSE;
    }
}

size_t prism_name_lookup(const char *name, const char *const *names, size_t n)
{
    g_return_val_if_fail(name != NULL && (names != NULL || n == 0), n);
    for (size_t i = 0; i < n; i++)
        if (g_ascii_strcasecmp(name, names[i]) == 0)
            return i;
    for (size_t i = 0; i < n; i++)
        if (prism_names_loosely_equal(name, names[i]))
            return i;
    return n;
}

void prism_format_double(char *buf, size_t len, double v)
{
    /* 17 significant digits always round-trip an IEEE double; %g drops trailing zeros. */
    static const char *const fmt[] = {"%.15g", "%.16g", "%.17g"};
    for (size_t i = 0; i < G_N_ELEMENTS(fmt); i++) {
        g_ascii_formatd(buf, (gint)len, fmt[i], v);
        if (g_ascii_strtod(buf, NULL) == v)
            return;
    }
}

/* One token outside strings: a number, true/false/null, or json-glib's broken forms. */
static void append_json_token(GString *out, const char *tok, size_t len)
{
    g_autofree char *t = g_strndup(tok, len);
    if (strcmp(t, "true") == 0 || strcmp(t, "false") == 0 || strcmp(t, "null") == 0) {
        g_string_append(out, t);
        return;
    }
    /* "3e-09.0": drop the ".0" json-glib appends after an exponent. */
    char *e = strpbrk(t, "eE");
    if (e != NULL && g_str_has_suffix(e, ".0"))
        t[strlen(t) - 2] = '\0';
    char *end = NULL;
    double v = g_ascii_strtod(t, &end);
    if (end == t || *end != '\0' || !isfinite(v)) {
        g_string_append(out, "null"); /* inf, nan and anything unparsable */
        return;
    }
    if (strpbrk(t, ".eE") == NULL) { /* an integer: keep every digit (int64 > 2^53) */
        g_string_append(out, t);
        return;
    }
    char num[G_ASCII_DTOSTR_BUF_SIZE];
    prism_format_double(num, sizeof num, v);
    g_string_append(out, num);
    if (strpbrk(num, ".eE") == NULL)
        g_string_append(out, ".0"); /* still a double for typed readers */
}

char *prism_json_to_string(void *root, gboolean pretty)
{
    g_autoptr(JsonGenerator) gen = json_generator_new();
    json_generator_set_pretty(gen, pretty);
    json_generator_set_indent(gen, 2);
    json_generator_set_root(gen, (JsonNode *)root);
    g_autofree char *raw = json_generator_to_data(gen, NULL);
    GString *out = g_string_sized_new(strlen(raw) + 16);
    for (const char *r = raw; *r != '\0';) {
        if (*r == '"') { /* copy a string verbatim, honouring escapes */
            const char *q = r + 1;
            while (*q != '\0' && *q != '"')
                q += (*q == '\\' && q[1] != '\0') ? 2 : 1;
            if (*q == '"')
                q++;
            g_string_append_len(out, r, q - r);
            r = q;
        } else if (g_ascii_isalnum(*r) || *r == '-' || *r == '+' || *r == '.') {
            const char *q = r;
            while (g_ascii_isalnum(*q) || *q == '-' || *q == '+' || *q == '.')
                q++;
            append_json_token(out, r, (size_t)(q - r));
            r = q;
        } else {
            g_string_append_c(out, *r++);
        }
    }
    return g_string_free(out, FALSE);
}

/* Scan key-file text for a group or a key (within one group) given twice. */
static gboolean keyfile_check_unique(const char *data, size_t len, const char *label,
                                     GError **error)
{
    g_autoptr(GHashTable) groups = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_autoptr(GHashTable) keys = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_autofree char *group = g_strdup("");
    g_autofree char *text = g_strndup(data, len);
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    for (guint i = 0; lines[i] != NULL; i++) {
        const char *line = g_strstrip(lines[i]);
        gsize n = strlen(line);
        if (n == 0 || line[0] == '#')
            continue;
        guint lineno = i + 1, *first = NULL;
        if (line[0] == '[' && line[n - 1] == ']') {
            g_free(group);
            group = g_strndup(line + 1, n - 2);
            first = g_hash_table_lookup(groups, group);
            if (first != NULL) {
                g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                            "%s: group [%s] is given twice (lines %u and %u)", label, group,
                            GPOINTER_TO_UINT(first), lineno);
                return FALSE;
            }
            g_hash_table_insert(groups, g_strdup(group), GUINT_TO_POINTER(lineno));
            continue;
        }
        const char *eq = strchr(line, '=');
        if (eq == NULL)
            continue; /* GKeyFile reports malformed lines itself */
        g_autofree char *key = g_strstrip(g_strndup(line, (gsize)(eq - line)));
        g_autofree char *full = g_strdup_printf("%s\n%s", group, key);
        first = g_hash_table_lookup(keys, full);
        if (first != NULL) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                        "%s: [%s] key '%s' is given twice (lines %u and %u)", label, group, key,
                        GPOINTER_TO_UINT(first), lineno);
            return FALSE;
        }
        g_hash_table_insert(keys, g_steal_pointer(&full), GUINT_TO_POINTER(lineno));
    }
    return TRUE;
}

size_t prism_utf8_bom_len(const char *data, size_t len)
{
    return len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

void *prism_keyfile_from_data(const char *data, size_t len, const char *label, GError **error)
{
    /* GKeyFile would read a byte order mark as part of the first line ("not a key-value
     * pair, group, or comment") */
    const size_t bom = prism_utf8_bom_len(data, len);
    data += bom;
    len -= bom;
    if (!keyfile_check_unique(data, len, label, error))
        return NULL;
    GKeyFile *kf = g_key_file_new();
    GError *local = NULL;
    if (!g_key_file_load_from_data(kf, len ? data : "", len, G_KEY_FILE_NONE, &local)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE, "%s: malformed key file: %s",
                    label, local->message);
        g_error_free(local);
        g_key_file_free(kf);
        return NULL;
    }
    return kf;
}

void *prism_keyfile_load(const char *path, const char *label, GError **error)
{
    g_autofree char *data = NULL;
    gsize len = 0;
    GError *local = NULL;
    if (!g_file_get_contents(path, &data, &len, &local)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_FILE, "%s: %s", label,
                    local->message);
        g_error_free(local);
        return NULL;
    }
    return prism_keyfile_from_data(data, len, label, error);
}
