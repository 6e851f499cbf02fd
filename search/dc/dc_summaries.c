// SPDX-License-Identifier: MIT
/*
 * dc_summaries.c - the two exact summary types of the engine (dc.h): int64 (min,+)
 * matrices and matrices of (time, mem) Pareto sets, with their serialized forms.
 *
 * Integer arithmetic only, so every combine is exact and associative; ties cannot
 * depend on the evaluation order. Re-entrant; nothing here is collective.
 */
#include <prism/dc.h>

#include <stdlib.h>
#include <string.h>

#include <prism/core.h>

PrismMinPlus *prism_minplus_new(uint32_t rows, uint32_t cols, int64_t fill)
{
    PrismMinPlus *m = g_new0(PrismMinPlus, 1);
    m->rows = rows;
    m->cols = cols;
    size_t n = (size_t)rows * cols;
    m->v = g_new(int64_t, n ? n : 1);
    for (size_t i = 0; i < n; i++)
        m->v[i] = fill;
    return m;
}

PrismMinPlus *prism_minplus_identity(void)
{
    PrismMinPlus *m = prism_minplus_new(0, 0, 0);
    m->is_identity = TRUE;
    return m;
}

void prism_minplus_free(PrismMinPlus *m)
{
    if (m == NULL)
        return;
    g_free(m->v);
    g_free(m);
}

PrismMinPlus *prism_minplus_copy(const PrismMinPlus *m)
{
    PrismMinPlus *c = prism_minplus_new(m->rows, m->cols, 0);
    c->is_identity = m->is_identity;
    memcpy(c->v, m->v, (size_t)m->rows * m->cols * sizeof(int64_t));
    return c;
}

PrismMinPlus *prism_minplus_mul(const PrismMinPlus *a, const PrismMinPlus *b)
{
    if (a->is_identity)
        return prism_minplus_copy(b);
    if (b->is_identity)
        return prism_minplus_copy(a);
    g_return_val_if_fail(a->cols == b->rows, NULL);
    PrismMinPlus *c = prism_minplus_new(a->rows, b->cols, PRISM_DC_INF);
    for (uint32_t i = 0; i < a->rows; i++)
        for (uint32_t k = 0; k < a->cols; k++) {
            int64_t aik = a->v[(size_t)i * a->cols + k];
            if (aik == PRISM_DC_INF)
                continue;
            const int64_t *brow = b->v + (size_t)k * b->cols;
            int64_t *crow = c->v + (size_t)i * c->cols;
            /* branch-free saturating add and min: random leaves make branches
             * unpredictable (the tree order would otherwise run 2x slower) */
            for (uint32_t j = 0; j < b->cols; j++) {
                int64_t s;
                gboolean o = __builtin_add_overflow(aik, brow[j], &s);
                s = (o | (brow[j] == PRISM_DC_INF)) ? PRISM_DC_INF : s;
                crow[j] = s < crow[j] ? s : crow[j];
            }
        }
    return c;
}

PrismMinPlus *prism_minplus_add(const PrismMinPlus *a, const PrismMinPlus *b)
{
    g_return_val_if_fail(!a->is_identity && !b->is_identity, NULL);
    g_return_val_if_fail(a->rows == b->rows && a->cols == b->cols, NULL);
    PrismMinPlus *c = prism_minplus_new(a->rows, a->cols, 0);
    for (size_t i = 0; i < (size_t)a->rows * a->cols; i++)
        c->v[i] = prism_dc_add(a->v[i], b->v[i]);
    return c;
}

int64_t prism_minplus_min(const PrismMinPlus *m)
{
    int64_t best = PRISM_DC_INF;
    for (size_t i = 0; i < (size_t)m->rows * m->cols; i++)
        if (m->v[i] < best)
            best = m->v[i];
    return best;
}

gboolean prism_minplus_equal(const PrismMinPlus *a, const PrismMinPlus *b)
{
    if (a->is_identity != b->is_identity || a->rows != b->rows || a->cols != b->cols)
        return FALSE;
    return memcmp(a->v, b->v, (size_t)a->rows * a->cols * sizeof(int64_t)) == 0;
}

static void *mp_copy(const void *s)
{
    return prism_minplus_copy(s);
}

static void mp_free(void *s)
{
    prism_minplus_free(s);
}

static gboolean mp_equal(const void *a, const void *b)
{
    return prism_minplus_equal(a, b);
}

static size_t mp_size(const void *s)
{
    const PrismMinPlus *m = s;
    return 8 + (size_t)m->rows * m->cols * sizeof(int64_t);
}

static void mp_serialize(const void *s, uint8_t *buf)
{
    const PrismMinPlus *m = s;
    memcpy(buf, &m->rows, 4);
    memcpy(buf + 4, &m->cols, 4);
    memcpy(buf + 8, m->v, (size_t)m->rows * m->cols * sizeof(int64_t));
}

static void *mp_deserialize(const uint8_t *buf, size_t n, GError **error)
{
    uint32_t rows = 0, cols = 0;
    if (n < 8)
        goto corrupt;
    memcpy(&rows, buf, 4);
    memcpy(&cols, buf + 4, 4);
    if ((rows == 0) != (cols == 0) || n != 8 + (size_t)rows * cols * sizeof(int64_t))
        goto corrupt;
    if (rows == 0)
        return prism_minplus_identity();
    PrismMinPlus *m = prism_minplus_new(rows, cols, 0);
    memcpy(m->v, buf + 8, (size_t)rows * cols * sizeof(int64_t));
    return m;
corrupt:
    g_set_error(error, PRISM_DC_ERROR, PRISM_DC_ERROR_CORRUPT,
                "min-plus summary: %zu bytes do not form u32 rows, u32 cols, rows*cols int64", n);
    return NULL;
}

const PrismDcType prism_minplus_type = {
    .name = "minplus",
    .copy = mp_copy,
    .free = mp_free,
    .equal = mp_equal,
    .size = mp_size,
    .serialize = mp_serialize,
    .deserialize = mp_deserialize,
};

static void *mp_identity(void *user)
{
    (void)user;
    return prism_minplus_identity();
}

static void *mp_combine(const void *a, const void *b, void *user)
{
    (void)user;
    return prism_minplus_mul(a, b);
}

static void *mp_leaf(size_t index, void *user)
{
    PrismMinPlus *const *items = user;
    return prism_minplus_copy(items[index]);
}

void prism_minplus_reduction_init(PrismDcReduction *r, PrismMinPlus *const *items)
{
    r->type = &prism_minplus_type;
    r->identity = mp_identity;
    r->combine = mp_combine;
    r->leaf = mp_leaf;
    r->user = (void *)items;
}

static int cmp_point(const void *pa, const void *pb)
{
    const PrismParetoPoint *a = pa, *b = pb;
    if (a->time != b->time)
        return a->time < b->time ? -1 : 1;
    if (a->mem != b->mem)
        return a->mem < b->mem ? -1 : 1;
    return 0;
}

uint32_t prism_pareto_prune(PrismParetoPoint *pts, uint32_t n)
{
    if (n == 0)
        return 0;
    qsort(pts, n, sizeof *pts, cmp_point);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (pts[i].time == PRISM_DC_INF || pts[i].mem == PRISM_DC_INF)
            continue;
        if (k == 0 || pts[i].mem < pts[k - 1].mem)
            pts[k++] = pts[i];
    }
    return k;
}

static PrismParetoMat *pareto_alloc(uint32_t rows, uint32_t cols, uint32_t total)
{
    PrismParetoMat *m = g_new0(PrismParetoMat, 1);
    m->rows = rows;
    m->cols = cols;
    size_t e = (size_t)rows * cols;
    m->count = g_new0(uint32_t, e ? e : 1);
    m->offset = g_new0(uint32_t, e + 1);
    m->pts = g_new(PrismParetoPoint, total ? total : 1);
    return m;
}

PrismParetoMat *prism_pareto_new(uint32_t rows, uint32_t cols, const PrismParetoPoint *const *lists,
                                 const uint32_t *lens)
{
    size_t e = (size_t)rows * cols;
    g_autoptr(GArray) all = g_array_new(FALSE, FALSE, sizeof(PrismParetoPoint));
    g_autofree uint32_t *counts = g_new0(uint32_t, e ? e : 1);
    for (size_t i = 0; i < e; i++) {
        if (lens[i] == 0)
            continue;
        g_autofree PrismParetoPoint *tmp = g_memdup2(lists[i], lens[i] * sizeof(PrismParetoPoint));
        counts[i] = prism_pareto_prune(tmp, lens[i]);
        g_array_append_vals(all, tmp, counts[i]);
    }
    PrismParetoMat *m = pareto_alloc(rows, cols, all->len);
    uint32_t off = 0;
    for (size_t i = 0; i < e; i++) {
        m->count[i] = counts[i];
        m->offset[i] = off;
        off += counts[i];
    }
    m->offset[e] = off;
    if (all->len > 0)
        memcpy(m->pts, all->data, (size_t)all->len * sizeof(PrismParetoPoint));
    return m;
}

PrismParetoMat *prism_pareto_identity(void)
{
    PrismParetoMat *m = pareto_alloc(0, 0, 0);
    m->is_identity = TRUE;
    return m;
}

void prism_pareto_free(PrismParetoMat *m)
{
    if (m == NULL)
        return;
    g_free(m->count);
    g_free(m->offset);
    g_free(m->pts);
    g_free(m);
}

PrismParetoMat *prism_pareto_copy(const PrismParetoMat *m)
{
    size_t e = (size_t)m->rows * m->cols;
    uint32_t total = m->offset[e];
    PrismParetoMat *c = pareto_alloc(m->rows, m->cols, total);
    c->is_identity = m->is_identity;
    memcpy(c->count, m->count, e * sizeof(uint32_t));
    memcpy(c->offset, m->offset, (e + 1) * sizeof(uint32_t));
    memcpy(c->pts, m->pts, (size_t)total * sizeof(PrismParetoPoint));
    return c;
}

/* Build a matrix from per-entry GArrays (already pruned). */
static PrismParetoMat *pareto_from_arrays(uint32_t rows, uint32_t cols, GArray **entries)
{
    size_t e = (size_t)rows * cols;
    uint32_t total = 0;
    for (size_t i = 0; i < e; i++)
        total += entries[i]->len;
    PrismParetoMat *m = pareto_alloc(rows, cols, total);
    uint32_t off = 0;
    for (size_t i = 0; i < e; i++) {
        m->count[i] = entries[i]->len;
        m->offset[i] = off;
        if (entries[i]->len > 0)
            memcpy(m->pts + off, entries[i]->data,
                   (size_t)entries[i]->len * sizeof(PrismParetoPoint));
        off += entries[i]->len;
    }
    m->offset[e] = off;
    return m;
}

/* Append the Minkowski sum of two fronts to @p out. */
static void minkowski_append(GArray *out, const PrismParetoPoint *a, uint32_t na,
                             const PrismParetoPoint *b, uint32_t nb)
{
    for (uint32_t x = 0; x < na; x++)
        for (uint32_t y = 0; y < nb; y++) {
            PrismParetoPoint p = {prism_dc_add(a[x].time, b[y].time),
                                  prism_dc_add(a[x].mem, b[y].mem)};
            g_array_append_val(out, p);
        }
}

static void prune_array(GArray *a)
{
    uint32_t n = prism_pareto_prune((PrismParetoPoint *)(void *)a->data, a->len);
    g_array_set_size(a, n);
}

static PrismParetoMat *pareto_combine(const PrismParetoMat *a, const PrismParetoMat *b,
                                      gboolean product)
{
    uint32_t rows = a->rows, cols = b->cols;
    size_t e = (size_t)rows * cols;
    GArray **entries = g_new(GArray *, e ? e : 1);
    for (uint32_t i = 0; i < rows; i++)
        for (uint32_t j = 0; j < cols; j++) {
            GArray *out = g_array_new(FALSE, FALSE, sizeof(PrismParetoPoint));
            if (product) {
                for (uint32_t k = 0; k < a->cols; k++) {
                    size_t ea = (size_t)i * a->cols + k, eb = (size_t)k * b->cols + j;
                    minkowski_append(out, a->pts + a->offset[ea], a->count[ea],
                                     b->pts + b->offset[eb], b->count[eb]);
                }
            } else {
                size_t ee = (size_t)i * cols + j;
                minkowski_append(out, a->pts + a->offset[ee], a->count[ee], b->pts + b->offset[ee],
                                 b->count[ee]);
            }
            prune_array(out);
            entries[(size_t)i * cols + j] = out;
        }
    PrismParetoMat *m = pareto_from_arrays(rows, cols, entries);
    for (size_t i = 0; i < e; i++)
        g_array_free(entries[i], TRUE);
    g_free(entries);
    return m;
}

PrismParetoMat *prism_pareto_mul(const PrismParetoMat *a, const PrismParetoMat *b)
{
    if (a->is_identity)
        return prism_pareto_copy(b);
    if (b->is_identity)
        return prism_pareto_copy(a);
    g_return_val_if_fail(a->cols == b->rows, NULL);
    return pareto_combine(a, b, TRUE);
}

PrismParetoMat *prism_pareto_add(const PrismParetoMat *a, const PrismParetoMat *b)
{
    g_return_val_if_fail(!a->is_identity && !b->is_identity, NULL);
    g_return_val_if_fail(a->rows == b->rows && a->cols == b->cols, NULL);
    return pareto_combine(a, b, FALSE);
}

gboolean prism_pareto_equal(const PrismParetoMat *a, const PrismParetoMat *b)
{
    if (a->is_identity != b->is_identity || a->rows != b->rows || a->cols != b->cols)
        return FALSE;
    size_t e = (size_t)a->rows * a->cols;
    if (memcmp(a->count, b->count, e * sizeof(uint32_t)) != 0)
        return FALSE;
    return memcmp(a->pts, b->pts, (size_t)a->offset[e] * sizeof(PrismParetoPoint)) == 0;
}

PrismParetoPoint *prism_pareto_overall(const PrismParetoMat *m, uint32_t *n)
{
    size_t e = (size_t)m->rows * m->cols;
    uint32_t total = m->offset[e];
    PrismParetoPoint *all = g_memdup2(m->pts, (total ? total : 1) * sizeof(PrismParetoPoint));
    *n = prism_pareto_prune(all, total);
    return all;
}

static void *pm_copy(const void *s)
{
    return prism_pareto_copy(s);
}

static void pm_free(void *s)
{
    prism_pareto_free(s);
}

static gboolean pm_equal(const void *a, const void *b)
{
    return prism_pareto_equal(a, b);
}

static size_t pm_size(const void *s)
{
    const PrismParetoMat *m = s;
    size_t e = (size_t)m->rows * m->cols;
    return 8 + e * 4 + (size_t)m->offset[e] * 16;
}

static void pm_serialize(const void *s, uint8_t *buf)
{
    const PrismParetoMat *m = s;
    size_t e = (size_t)m->rows * m->cols;
    memcpy(buf, &m->rows, 4);
    memcpy(buf + 4, &m->cols, 4);
    memcpy(buf + 8, m->count, e * 4);
    uint8_t *p = buf + 8 + e * 4;
    for (uint32_t i = 0; i < m->offset[e]; i++) {
        memcpy(p, &m->pts[i].time, 8);
        memcpy(p + 8, &m->pts[i].mem, 8);
        p += 16;
    }
}

static void *pm_deserialize(const uint8_t *buf, size_t n, GError **error)
{
    uint32_t rows = 0, cols = 0;
    if (n < 8)
        goto corrupt;
    memcpy(&rows, buf, 4);
    memcpy(&cols, buf + 4, 4);
    if ((rows == 0) != (cols == 0))
        goto corrupt;
    if (rows == 0) {
        if (n != 8)
            goto corrupt;
        return prism_pareto_identity();
    }
    size_t e = (size_t)rows * cols;
    if (e > (n - 8) / 4)
        goto corrupt;
    uint64_t total = 0;
    for (size_t i = 0; i < e; i++) {
        uint32_t c;
        memcpy(&c, buf + 8 + i * 4, 4);
        total += c;
    }
    if (n != 8 + e * 4 + total * 16)
        goto corrupt;
    PrismParetoMat *m = pareto_alloc(rows, cols, (uint32_t)total);
    memcpy(m->count, buf + 8, e * 4);
    uint32_t off = 0;
    for (size_t i = 0; i < e; i++) {
        m->offset[i] = off;
        off += m->count[i];
    }
    m->offset[e] = off;
    const uint8_t *p = buf + 8 + e * 4;
    for (uint32_t i = 0; i < off; i++) {
        memcpy(&m->pts[i].time, p, 8);
        memcpy(&m->pts[i].mem, p + 8, 8);
        p += 16;
    }
    return m;
corrupt:
    g_set_error(error, PRISM_DC_ERROR, PRISM_DC_ERROR_CORRUPT,
                "Pareto summary: %zu bytes do not form rows, cols, counts and points", n);
    return NULL;
}

const PrismDcType prism_pareto_type = {
    .name = "pareto",
    .copy = pm_copy,
    .free = pm_free,
    .equal = pm_equal,
    .size = pm_size,
    .serialize = pm_serialize,
    .deserialize = pm_deserialize,
};

static void *pm_identity(void *user)
{
    (void)user;
    return prism_pareto_identity();
}

static void *pm_combine(const void *a, const void *b, void *user)
{
    (void)user;
    return prism_pareto_mul(a, b);
}

static void *pm_leaf(size_t index, void *user)
{
    PrismParetoMat *const *items = user;
    return prism_pareto_copy(items[index]);
}

void prism_pareto_reduction_init(PrismDcReduction *r, PrismParetoMat *const *items)
{
    r->type = &prism_pareto_type;
    r->identity = pm_identity;
    r->combine = pm_combine;
    r->leaf = pm_leaf;
    r->user = (void *)items;
}
