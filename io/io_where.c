// SPDX-License-Identifier: MIT
/*
 * io_where.c - row filters for stored landscapes: "tp<=8,pp>=2,schedule=1f1b".
 * A conjunction of comparisons between a column and a constant. Nothing here is
 * collective; a parsed filter is read-only and may be shared.
 */
#include <prism/io.h>

#include <errno.h>
#include <math.h>
#include <string.h>

#include <prism/core.h>

#include "io-internal.h"

typedef enum { OP_LE, OP_GE, OP_LT, OP_GT, OP_EQ, OP_NE } Op;

static const char *const op_text[] = {"<=", ">=", "<", ">", "==", "!="};

typedef struct {
    size_t col;
    Op op;
    double value;
} Term;

struct PrismWhere {
    GArray *terms; /* Term */
};

void prism_where_free(PrismWhere *w)
{
    if (w == NULL)
        return;
    g_array_unref(w->terms);
    g_free(w);
}

/* Find the operator in @p term: the first of < > = ! (two-character forms first). */
static gboolean split_term(const char *term, char **name, Op *op, char **value)
{
    const char *p = strpbrk(term, "<>=!");
    if (p == NULL)
        return FALSE;
    size_t len = 1;
    if (p[0] == '<' && p[1] == '=') {
        *op = OP_LE;
        len = 2;
    } else if (p[0] == '>' && p[1] == '=') {
        *op = OP_GE;
        len = 2;
    } else if (p[0] == '=' && p[1] == '=') {
        *op = OP_EQ;
        len = 2;
    } else if (p[0] == '!' && p[1] == '=') {
        *op = OP_NE;
        len = 2;
    } else if (p[0] == '<') {
        *op = OP_LT;
    } else if (p[0] == '>') {
        *op = OP_GT;
    } else if (p[0] == '=') {
        *op = OP_EQ;
    } else {
        return FALSE;
    }
    *name = g_strstrip(g_strndup(term, (gsize)(p - term)));
    *value = g_strstrip(g_strdup(p + len));
    return **name != '\0' && **value != '\0' && strpbrk(*value, "<>=!") == NULL;
}

/* A code name of column @p c ("1f1b" -> 0), or -1. */
static int code_of(const PrismLandscapeColumn *c, const char *name)
{
    if (c->codes == NULL)
        return -1;
    g_auto(GStrv) codes = g_strsplit(c->codes, ",", -1);
    for (int i = 0; codes[i] != NULL; i++)
        if (g_ascii_strcasecmp(codes[i], name) == 0)
            return i;
    return -1;
}

PrismWhere *prism_where_parse(const char *text, const PrismLandscapeSchema *schema, GError **error)
{
    g_autoptr(PrismWhere) w = g_new0(PrismWhere, 1);
    w->terms = g_array_new(FALSE, FALSE, sizeof(Term));
    if (text == NULL)
        return g_steal_pointer(&w);
    g_auto(GStrv) parts = g_strsplit(text, ",", -1);
    for (char **p = parts; *p != NULL; p++) {
        g_autofree char *term = g_strstrip(g_strdup(*p));
        if (*term == '\0') {
            if (parts[1] == NULL)
                break; /* the whole text is blank */
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                        "--where '%s': an empty term (terms are COLUMN OP VALUE, separated by "
                        "commas)",
                        text);
            return NULL;
        }
        g_autofree char *name = NULL, *value = NULL;
        Term t = {0, OP_EQ, 0};
        if (!split_term(term, &name, &t.op, &value)) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                        "--where: '%s' is not COLUMN OP VALUE (OP one of <= >= < > == = !=)", term);
            return NULL;
        }
        int col = prism_io_schema_resolve_internal(schema, name);
        if (col < 0) {
            g_autofree char *close = prism_io_schema_close_names_internal(schema, name);
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                        "--where: unknown column '%s' (closest: %s; `prism info FILE` lists "
                        "the columns)",
                        name, close);
            return NULL;
        }
        t.col = (size_t)col;
        const PrismLandscapeColumn *c = &schema->cols[col];
        char *end = NULL;
        errno = 0;
        t.value = g_ascii_strtod(value, &end);
        if (end == value || *end != '\0' || errno != 0 || isnan(t.value)) {
            int code = code_of(c, value);
            if (code < 0) {
                if (c->codes != NULL)
                    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                                "--where: '%s' in '%s' is not a number nor a code of %s "
                                "(allowed: %s)",
                                value, term, c->name, c->codes);
                else
                    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                                "--where: '%s' in '%s' is not a number", value, term);
                return NULL;
            }
            t.value = code;
        }
        g_array_append_val(w->terms, t);
    }
    return g_steal_pointer(&w);
}

size_t prism_where_n_terms(const PrismWhere *w)
{
    return w->terms->len;
}

size_t prism_where_column(const PrismWhere *w, size_t i)
{
    return g_array_index(w->terms, Term, i).col;
}

gboolean prism_where_accepts(const PrismWhere *w, const double *const *values, size_t row)
{
    for (guint i = 0; i < w->terms->len; i++) {
        const Term *t = &g_array_index(w->terms, Term, i);
        double v = values[i][row];
        gboolean pass = FALSE;
        switch (t->op) {
        case OP_LE:
            pass = v <= t->value;
            break;
        case OP_GE:
            pass = v >= t->value;
            break;
        case OP_LT:
            pass = v < t->value;
            break;
        case OP_GT:
            pass = v > t->value;
            break;
        case OP_EQ:
            pass = v == t->value;
            break;
        case OP_NE:
            pass = v != t->value && !isnan(v);
            break;
        }
        if (!pass)
            return FALSE;
    }
    return TRUE;
}

char *prism_where_describe(const PrismWhere *w, const PrismLandscapeSchema *schema)
{
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < w->terms->len; i++) {
        const Term *t = &g_array_index(w->terms, Term, i);
        const PrismLandscapeColumn *c = &schema->cols[t->col];
        char num[G_ASCII_DTOSTR_BUF_SIZE];
        g_ascii_dtostr(num, sizeof num, t->value);
        g_auto(GStrv) codes = c->codes ? g_strsplit(c->codes, ",", -1) : NULL;
        const char *text =
            codes && t->value >= 0 && t->value < g_strv_length(codes) ? codes[(int)t->value] : num;
        g_string_append_printf(s, "%s%s %s %s", i ? ", " : "", c->name, op_text[t->op], text);
    }
    return g_string_free(s, FALSE);
}
