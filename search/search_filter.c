// SPDX-License-Identifier: MIT
/*
 * search_filter.c - the user filters of the strategy space (--fix, --range, --only; the dims
 * and their domains are rows of registry.h). A filter is, per dimension, a list of constraint sets;
 * each set is a union of closed intervals and a value must lie in every set.
 * Nothing here is collective; a filter is plain data once built.
 */
#include <prism/space.h>

#include <errno.h>
#include <string.h>

#include <prism/core.h>

#include "search-internal.h"

typedef struct {
    uint64_t lo, hi;
} Interval;

struct PrismSpaceFilter {
    GPtrArray *sets[PRISM_DIM_COUNT]; /* of GArray<Interval>; NULL = unrestricted */
    GPtrArray *texts;                 /* "fix tp=8", ... in the order given */
    /* the overlap dims' domains (prism_space_filter_set_overlap): PrismOverlap bits the
     * framework can turn off, and those searched without a filter naming the dim */
    unsigned ov_supported, ov_searched;
    /* equal model chunks (prism_space_filter_set_uniform_chunks): pp*vpp divides the
     * model's split layer count, which the space knows */
    gboolean uniform_chunks;
    /* block recompute as checkpointing every N-th layer gives it
     * (prism_space_filter_set_every_nth): a rule on the model's layers, as above */
    gboolean every_nth;
    /* zero > 0 wherever cp > 1 (prism_space_filter_set_cp_shards): the framework shards
     * parameters over the data and context ranks whenever cp > 1 */
    gboolean cp_shards;
    /* a framework's default where the shape rules allow it
     * (prism_space_filter_set_default_where_allowed): sp on where tp > 1, the ZeRO stage
     * where dp*cp > 1; -1 = no such rule */
    int def_sp, def_zero;
};

PrismSpaceFilter *prism_space_filter_new(void)
{
    PrismSpaceFilter *f = g_new0(PrismSpaceFilter, 1);
    f->texts = g_ptr_array_new_with_free_func(g_free);
    f->def_sp = f->def_zero = -1;
    return f;
}

void prism_space_filter_free(PrismSpaceFilter *f)
{
    if (f == NULL)
        return;
    for (int d = 0; d < PRISM_DIM_COUNT; d++)
        if (f->sets[d] != NULL)
            g_ptr_array_unref(f->sets[d]);
    g_ptr_array_unref(f->texts);
    g_free(f);
}

PrismSpaceFilter *prism_space_filter_copy(const PrismSpaceFilter *f)
{
    PrismSpaceFilter *c = prism_space_filter_new();
    if (f == NULL)
        return c;
    for (int d = 0; d < PRISM_DIM_COUNT; d++) {
        if (f->sets[d] == NULL)
            continue;
        c->sets[d] = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
        for (guint i = 0; i < f->sets[d]->len; i++) {
            GArray *src = g_ptr_array_index(f->sets[d], i);
            GArray *dst = g_array_sized_new(FALSE, FALSE, sizeof(Interval), src->len);
            g_array_append_vals(dst, src->data, src->len);
            g_ptr_array_add(c->sets[d], dst);
        }
    }
    for (guint i = 0; i < f->texts->len; i++)
        g_ptr_array_add(c->texts, g_strdup(g_ptr_array_index(f->texts, i)));
    c->ov_supported = f->ov_supported;
    c->ov_searched = f->ov_searched;
    c->uniform_chunks = f->uniform_chunks;
    c->every_nth = f->every_nth;
    c->cp_shards = f->cp_shards;
    c->def_sp = f->def_sp;
    c->def_zero = f->def_zero;
    return c;
}

unsigned prism_dim_overlap_bit_internal(PrismDim dim)
{
    const PrismDimInfo *d = prism_dim_info(dim);
    return d != NULL ? d->overlap_bit : 0;
}

void prism_space_filter_set_overlap(PrismSpaceFilter *f, unsigned supported, unsigned searched)
{
    f->ov_supported = supported & PRISM_OVERLAP_ALL;
    f->ov_searched = searched & f->ov_supported;
}

void prism_space_filter_set_uniform_chunks(PrismSpaceFilter *f, gboolean on)
{
    f->uniform_chunks = on;
}

gboolean prism_space_filter_uniform_internal(const PrismSpaceFilter *f)
{
    return f != NULL && f->uniform_chunks;
}

void prism_space_filter_set_every_nth(PrismSpaceFilter *f, gboolean on)
{
    f->every_nth = on;
}

gboolean prism_space_filter_every_nth_internal(const PrismSpaceFilter *f)
{
    return f != NULL && f->every_nth;
}

void prism_space_filter_set_cp_shards(PrismSpaceFilter *f, gboolean on)
{
    f->cp_shards = on;
}

gboolean prism_space_filter_cp_shards_internal(const PrismSpaceFilter *f, uint64_t cp,
                                               uint64_t zero)
{
    return f == NULL || !f->cp_shards || cp == 1 || zero > 0;
}

void prism_space_filter_set_default_where_allowed(PrismSpaceFilter *f, int sp, int zero)
{
    f->def_sp = sp >= 0 && sp <= 1 ? sp : -1;
    f->def_zero = zero >= 0 && zero <= 3 ? zero : -1;
}

gboolean prism_space_filter_default_internal(const PrismSpaceFilter *f, PrismDim dim,
                                             uint64_t value, gboolean allowed)
{
    const int want = f == NULL               ? -1
                     : dim == PRISM_DIM_SP   ? f->def_sp
                     : dim == PRISM_DIM_ZERO ? f->def_zero
                                             : -1;
    return want < 0 || value == (allowed ? (uint64_t)want : 0);
}

static gboolean in_set(const GArray *set, uint64_t v)
{
    const Interval *iv = (const Interval *)(const void *)set->data;
    for (guint i = 0; i < set->len; i++)
        if (v >= iv[i].lo && v <= iv[i].hi)
            return TRUE;
    return FALSE;
}

gboolean prism_space_filter_accepts_internal(const PrismSpaceFilter *f, PrismDim dim,
                                             uint64_t value)
{
    const unsigned ov = prism_dim_overlap_bit_internal(dim);
    /* an overlap dim: 1 (on) always; 0 (off) only where the framework supports it, and
     * without a filter naming the dim only where the framework searches it (space.h) */
    if (ov != 0 && value == 0 && (f == NULL || !(f->ov_supported & ov)))
        return FALSE;
    if (f == NULL || f->sets[dim] == NULL) { /* offload's default domain is {0, 1} (space.h) */
        if (ov != 0)
            return value == 1 || (f != NULL && (f->ov_searched & ov) != 0);
        return dim != PRISM_DIM_OFFLOAD || value <= PRISM_OFFLOAD_OPTIMIZER;
    }
    for (guint i = 0; i < f->sets[dim]->len; i++)
        if (!in_set(g_ptr_array_index(f->sets[dim], i), value))
            return FALSE;
    return TRUE;
}

gboolean prism_space_filter_restricts(const PrismSpaceFilter *f, PrismDim dim)
{
    return f != NULL && (unsigned)dim < PRISM_DIM_COUNT && f->sets[dim] != NULL;
}

gboolean prism_space_filter_accepts_strategy(const PrismSpaceFilter *f, const PrismStrategy *s)
{
    for (int d = 0; d < PRISM_DIM_COUNT; d++) {
        uint64_t v = prism_strategy_dim(s, (PrismDim)d);
        if (d == PRISM_DIM_RECOMPUTE)
            v = PRISM_RC_CODE(s->recompute, s->rc_layers);
        if (d == PRISM_DIM_RC_LAYERS && s->recompute != PRISM_RECOMPUTE_BLOCK)
            continue; /* rc_layers only restricts block strategies */
        const unsigned ov = prism_dim_overlap_bit_internal((PrismDim)d);
        if (ov != 0 && !prism_strategy_overlap_applies(s, (PrismOverlap)ov))
            continue; /* an overlap dim only restricts strategies where it applies (R12) */
        if (!prism_space_filter_accepts_internal(f, (PrismDim)d, v))
            return FALSE;
    }
    return prism_space_filter_default_internal(f, PRISM_DIM_SP, s->sp, s->tp > 1) &&
           prism_space_filter_default_internal(f, PRISM_DIM_ZERO, s->zero,
                                               (uint64_t)s->dp * s->cp > 1) &&
           prism_space_filter_cp_shards_internal(f, s->cp, s->zero);
}

char *prism_space_filter_describe(const PrismSpaceFilter *f)
{
    if (f == NULL || (f->texts->len == 0 && f->ov_supported == 0 && !f->uniform_chunks &&
                      !f->every_nth && !f->cp_shards && f->def_sp < 0 && f->def_zero < 0))
        return g_strdup("");
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < f->texts->len; i++)
        g_string_append_printf(s, "%s%s", i ? "; " : "",
                               (const char *)g_ptr_array_index(f->texts, i));
    if (f->ov_supported != 0) { /* the framework's overlap domains shape the space too */
        static const char *const names[] = {"tp", "dp", "param"};
        g_string_append_printf(s, "%soverlap off allowed:", s->len ? "; " : "");
        for (int b = 0; b < 3; b++)
            if (f->ov_supported & (1u << b))
                g_string_append_printf(s, " %s%s", names[b],
                                       f->ov_searched & (1u << b) ? "" : " (filter-only)");
    }
    if (f->uniform_chunks) /* the framework's equal model chunks */
        g_string_append_printf(s, "%sequal chunks: pp*vpp divides the layers", s->len ? "; " : "");
    if (f->every_nth) /* the framework's every-N-th-layer checkpointing */
        g_string_append_printf(s, "%srecompute=block:k only as every N-th layer",
                               s->len ? "; " : "");
    if (f->cp_shards) /* the framework shards whenever cp > 1 */
        g_string_append_printf(s, "%szero > 0 where cp > 1", s->len ? "; " : "");
    if (f->def_sp >= 0)
        g_string_append_printf(s, "%ssp=%d where tp > 1, else 0", s->len ? "; " : "", f->def_sp);
    if (f->def_zero >= 0)
        g_string_append_printf(s, "%szero=%d where dp*cp > 1, else 0", s->len ? "; " : "",
                               f->def_zero);
    return g_string_free(s, FALSE);
}

typedef enum { FILTER_FIX, FILTER_RANGE, FILTER_ONLY } FilterKind;

static const char *const kind_names[] = {"--fix", "--range", "--only"};

/* Parse one unsigned value of a numeric dimension. */
static gboolean parse_number(FilterKind kind, PrismDim dim, const char *text, uint64_t *out,
                             GError **error)
{
    const char *opt = kind_names[kind], *dn = prism_dim_name(dim);
    if (dim == PRISM_DIM_SP) {
        if (g_ascii_strcasecmp(text, "on") == 0 || g_ascii_strcasecmp(text, "true") == 0) {
            *out = 1;
            return TRUE;
        }
        if (g_ascii_strcasecmp(text, "off") == 0 || g_ascii_strcasecmp(text, "false") == 0) {
            *out = 0;
            return TRUE;
        }
    }
    char *end = NULL;
    errno = 0;
    guint64 v = (text[0] >= '0' && text[0] <= '9') ? g_ascii_strtoull(text, &end, 10) : 0;
    if (end == NULL || end == text || *end != '\0' || errno != 0) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "%s %s=%s: '%s' is not a non-negative integer", opt, dn, text, text);
        return FALSE;
    }
    const PrismDimInfo *info = prism_dim_info(dim);
    const uint64_t lo = info->lo, hi = info->hi;
    const char *allowed = info->allowed;
    if (v < lo || v > hi) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "%s %s=%s: out of range (allowed: %s)", opt, dn, text, allowed);
        return FALSE;
    }
    *out = v;
    return TRUE;
}

/* One value (or range for --range) of @p dim as an interval. */
static gboolean parse_value(FilterKind kind, PrismDim dim, const char *text, Interval *out,
                            GError **error)
{
    const char *opt = kind_names[kind], *dn = prism_dim_name(dim);
    if (*text == '\0') {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE, "%s %s: empty value", opt,
                    dn);
        return FALSE;
    }
    if (dim == PRISM_DIM_SCHEDULE || dim == PRISM_DIM_RECOMPUTE) {
        if (kind == FILTER_RANGE) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                        "--range %s=%s: %s takes names, not a range (use --only %s=...)", dn, text,
                        dn, dn);
            return FALSE;
        }
        if (dim == PRISM_DIM_SCHEDULE) {
            PrismSchedule s;
            if (!prism_schedule_parse(text, &s, error)) {
                g_prefix_error(error, "%s %s: ", opt, dn);
                return FALSE;
            }
            out->lo = out->hi = (uint64_t)s;
            return TRUE;
        }
        const char *colon = strchr(text, ':');
        g_autofree char *mode = colon ? g_strndup(text, (gsize)(colon - text)) : g_strdup(text);
        int r = -1;
        for (int i = 0; i < PRISM_RECOMPUTE_COUNT; i++)
            if (g_ascii_strcasecmp(mode, prism_recompute_name((PrismRecompute)i)) == 0)
                r = i;
        if (r < 0 || (colon != NULL && r != PRISM_RECOMPUTE_BLOCK)) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                        "%s recompute=%s: unknown value (allowed: none, selective, full, "
                        "block, block:K)",
                        opt, text);
            return FALSE;
        }
        if (r != PRISM_RECOMPUTE_BLOCK) {
            out->lo = out->hi = PRISM_RC_CODE(r, 0);
        } else if (colon == NULL) {
            out->lo = PRISM_RC_CODE(r, 1);
            out->hi = PRISM_RC_CODE(r, G_MAXUINT16);
        } else {
            uint64_t k = 0;
            if (!parse_number(kind, PRISM_DIM_RC_LAYERS, colon + 1, &k, error))
                return FALSE;
            out->lo = out->hi = PRISM_RC_CODE(r, k);
        }
        return TRUE;
    }
    if (kind != FILTER_RANGE) {
        if (!parse_number(kind, dim, text, &out->lo, error))
            return FALSE;
        out->hi = out->lo;
        return TRUE;
    }
    /* A:B, A: (no upper bound), :B, or a single A */
    const char *colon = strchr(text, ':');
    g_autofree char *a = colon ? g_strndup(text, (gsize)(colon - text)) : g_strdup(text);
    const char *b = colon ? colon + 1 : a;
    out->lo = dim == PRISM_DIM_ZERO || dim == PRISM_DIM_SP || dim == PRISM_DIM_FOLDING ||
                      dim == PRISM_DIM_OFFLOAD || prism_dim_overlap_bit_internal(dim) != 0
                  ? 0
                  : 1;
    out->hi = G_MAXUINT64;
    if (*a != '\0' && !parse_number(kind, dim, a, &out->lo, error))
        return FALSE;
    if (*b != '\0' && !parse_number(kind, dim, b, &out->hi, error))
        return FALSE;
    if (out->hi < out->lo) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "--range %s=%s: the range ends before it starts", dn, text);
        return FALSE;
    }
    return TRUE;
}

/* @p label names the option in the filter's text ("--only" when NULL). */
static gboolean filter_add(PrismSpaceFilter *f, FilterKind kind, const char *label,
                           const char *text, GError **error)
{
    const char *opt = label != NULL ? label : kind_names[kind];
    /* Parse everything first so a bad option leaves @p f unchanged. */
    GArray *pending[PRISM_DIM_COUNT] = {NULL};
    gboolean ok = TRUE;
    PrismDim cur = PRISM_DIM_COUNT;
    g_auto(GStrv) tokens = g_strsplit(text, ",", -1);
    if (tokens[0] == NULL) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "%s: empty value (form: DIM=VALUE,...)", opt);
        return FALSE;
    }
    for (char **t = tokens; ok && *t != NULL; t++) {
        char *tok = g_strstrip(*t);
        char *eq = strchr(tok, '=');
        const char *val = tok;
        if (eq != NULL) {
            *eq = '\0';
            const char *name = g_strstrip(tok);
            val = g_strstrip(eq + 1);
            if (!prism_dim_lookup(name, &cur, error)) {
                g_prefix_error(error, "%s: ", opt);
                ok = FALSE;
                break;
            }
            if (pending[cur] != NULL) {
                g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT,
                            "%s %s: the dimension appears twice in one option", opt,
                            prism_dim_name(cur));
                ok = FALSE;
                break;
            }
            pending[cur] = g_array_new(FALSE, FALSE, sizeof(Interval));
        } else if (cur == PRISM_DIM_COUNT) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                        "%s '%s': expected DIM=VALUE (for example tp=8)", opt, text);
            ok = FALSE;
            break;
        } else if (kind != FILTER_ONLY) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                        "%s %s: one value per dimension (use --only %s=A,B,... for a list)", opt,
                        prism_dim_name(cur), prism_dim_name(cur));
            ok = FALSE;
            break;
        }
        Interval iv;
        if (!parse_value(kind, cur, val, &iv, error)) {
            ok = FALSE;
            break;
        }
        g_array_append_val(pending[cur], iv);
    }
    for (int d = 0; d < PRISM_DIM_COUNT; d++) {
        if (pending[d] == NULL)
            continue;
        if (ok) {
            if (f->sets[d] == NULL)
                f->sets[d] = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
            g_ptr_array_add(f->sets[d], pending[d]);
        } else {
            g_array_unref(pending[d]);
        }
    }
    if (ok)
        g_ptr_array_add(f->texts, g_strdup_printf("%s %s", opt, text));
    return ok;
}

gboolean prism_space_filter_fix(PrismSpaceFilter *f, const char *text, GError **error)
{
    return filter_add(f, FILTER_FIX, NULL, text, error);
}

gboolean prism_space_filter_range(PrismSpaceFilter *f, const char *text, GError **error)
{
    return filter_add(f, FILTER_RANGE, NULL, text, error);
}

gboolean prism_space_filter_only(PrismSpaceFilter *f, const char *text, GError **error)
{
    return filter_add(f, FILTER_ONLY, NULL, text, error);
}

gboolean prism_space_filter_only_from(PrismSpaceFilter *f, const char *label, const char *text,
                                      GError **error)
{
    return filter_add(f, FILTER_ONLY, label, text, error);
}

gboolean prism_space_filter_check_only(const char *name, const char *path, const char *only,
                                       GError **error)
{
    if (only == NULL || *only == '\0')
        return TRUE;
    g_autoptr(PrismSpaceFilter) f = prism_space_filter_new();
    g_autofree char *label = g_strdup_printf("framework %s: only", name);
    if (prism_space_filter_only_from(f, label, only, error))
        return TRUE;
    g_prefix_error(error, "framework profile %s [planning] only = '%s': ", path, only);
    return FALSE;
}

uint64_t *prism_divisors_internal(uint64_t n, size_t *count)
{
    GArray *lo = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    GArray *hi = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    for (uint64_t d = 1; d * d <= n; d++)
        if (n % d == 0) {
            g_array_append_val(lo, d);
            if (d * d != n) {
                uint64_t e = n / d;
                g_array_append_val(hi, e);
            }
        }
    for (guint i = hi->len; i > 0; i--)
        g_array_append_val(lo, g_array_index(hi, uint64_t, i - 1));
    g_array_unref(hi);
    *count = lo->len;
    return (uint64_t *)(void *)g_array_free(lo, FALSE);
}

char *prism_values_compact_internal(PrismDim dim, const uint64_t *v, size_t n, size_t width)
{
    GString *s = g_string_new(NULL);
    gboolean numeric = dim != PRISM_DIM_SCHEDULE && dim != PRISM_DIM_RECOMPUTE;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (numeric && j + 1 < n && v[j + 1] == v[j] + 1)
            j++;
        g_autofree char *a = prism_dim_value_text(dim, v[i]);
        GString *item = g_string_new(a);
        if (j >= i + 2) {
            g_string_append_printf(item, "..%" G_GUINT64_FORMAT, v[j]);
        } else {
            j = i;
        }
        if (s->len > 0 && s->len + 1 + item->len > width && j + 1 < n) {
            g_autofree char *last = prism_dim_value_text(dim, v[n - 1]);
            g_string_append_printf(s, " ... %s", last);
            g_string_free(item, TRUE);
            break;
        }
        g_string_append_printf(s, "%s%s", s->len ? " " : "", item->str);
        g_string_free(item, TRUE);
        i = j + 1;
    }
    return g_string_free(s, FALSE);
}

gboolean prism_space_filter_framework(PrismSpaceFilter *f, const PrismFramework *fw, GError **error)
{
    if (fw == NULL)
        return TRUE;
    prism_space_filter_set_overlap(f, fw->overlap, fw->overlap_search);
    prism_space_filter_set_uniform_chunks(f, fw->uniform_chunks);
    prism_space_filter_set_every_nth(f, fw->rc_every_nth);
    prism_space_filter_set_cp_shards(f, fw->cp_shards);
    if (fw->sp_always) /* no switch: sp wherever tp > 1 (R4 keeps sp = 0 at tp = 1) */
        f->def_sp = 1;
    g_autofree char *label = g_strdup_printf("framework %s: only", fw->name);
    if (fw->only != NULL && *fw->only != '\0' &&
        !prism_space_filter_only_from(f, label, fw->only, error)) {
        g_prefix_error(error, "--framework %s ([planning] only of %s): ", fw->name, fw->path);
        return FALSE;
    }
    return TRUE;
}

char *prism_space_framework_unsupported(const PrismFramework *fw, const PrismModel *m,
                                        const PrismStrategy *s)
{
    if (fw == NULL)
        return NULL;
    g_autoptr(PrismSpaceFilter) f = prism_space_filter_new();
    if (!prism_space_filter_framework(f, fw, NULL))
        return NULL;
    if (fw->sp_always && s->tp > 1 && !s->sp)
        return g_strdup_printf("it runs tp=%u without sequence parallelism (%s has no switch "
                               "for it, [planning] sequence_parallel = always)",
                               s->tp, fw->name);
    if (fw->cp_shards && s->cp > 1 && s->zero == 0)
        return g_strdup_printf("it runs cp=%u with zero=0 (%s shards the parameters over the "
                               "data and context ranks whenever cp > 1, [planning] "
                               "context_parallel_sharding = always)",
                               s->cp, fw->name);
    if (!prism_space_filter_accepts_strategy(f, s)) {
        /* name the first dim the profile's only leaves out */
        for (int d = 0; d < PRISM_DIM_COUNT; d++) {
            uint64_t v = prism_strategy_dim(s, (PrismDim)d);
            if (d == PRISM_DIM_RECOMPUTE)
                v = PRISM_RC_CODE(s->recompute, s->rc_layers);
            if ((d == PRISM_DIM_RC_LAYERS && s->recompute != PRISM_RECOMPUTE_BLOCK) ||
                f->sets[d] == NULL || prism_space_filter_accepts_internal(f, (PrismDim)d, v))
                continue;
            g_autofree char *val = prism_dim_value_text((PrismDim)d, v);
            return g_strdup_printf("its %s=%s is outside the profile's [planning] only (%s)",
                                   prism_dim_name((PrismDim)d), val, fw->only);
        }
        return g_strdup_printf("it is outside the profile's [planning] only (%s)", fw->only);
    }
    const uint32_t L = prism_model_split_layers(m);
    if (fw->uniform_chunks && L % (s->pp * s->vpp) != 0)
        return g_strdup_printf("its model chunks are unequal (pp*vpp = %u does not divide the "
                               "%u layers, which %s asserts)",
                               s->pp * s->vpp, L, fw->name);
    const uint32_t per_chunk = (L + s->pp * s->vpp - 1) / (s->pp * s->vpp);
    if (fw->rc_every_nth && s->recompute == PRISM_RECOMPUTE_BLOCK &&
        prism_recompute_every_nth(per_chunk, s->vpp, s->rc_layers) == 0)
        return g_strdup_printf("recompute=block:%u is no every-N-th-layer checkpointing of %u "
                               "layers per chunk (%s checkpoints every N-th layer, [planning] "
                               "recompute_layers)",
                               s->rc_layers, per_chunk, fw->name);
    return NULL;
}
