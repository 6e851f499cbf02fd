// SPDX-License-Identifier: MIT
/*
 * search_front.c - local Pareto fronts (offer, skyline, merge, serialisation).
 * The dominance relation and the canonical order are defined in front.h.
 *
 * Not thread-safe: one PrismFront per worker. Nothing here is collective; the
 * cross-rank merge is in search_reduce.c.
 */
#include <prism/front.h>

#include <math.h>
#include <string.h>

#include <prism/core.h>

#include "search-internal.h"

/* Points are stored as rows of (index, key[0..k-1]) in one double-sized stride. */
struct PrismFront {
    size_t k;
    /* the front, canonical */
    double *keys;
    uint64_t *idx;
    size_t n, cap;
    /* the front point that last rejected an offer (k >= 3): tried first, because
     * consecutive offers tend to be dominated by the same point */
    size_t hint;
    /* offers not yet folded in */
    double *pkeys;
    uint64_t *pidx;
    size_t pn, pcap;
};

#define FRONT_MAGIC 0x52465250u /* "PRFR" */
#define FRONT_VERSION 1u

PrismFront *prism_front_new(size_t n_obj)
{
    g_return_val_if_fail(n_obj >= 1 && n_obj <= PRISM_FRONT_MAX_OBJECTIVES, NULL);
    PrismFront *f = g_new0(PrismFront, 1);
    f->k = n_obj;
    return f;
}

void prism_front_free(PrismFront *f)
{
    if (f == NULL)
        return;
    g_free(f->keys);
    g_free(f->idx);
    g_free(f->pkeys);
    g_free(f->pidx);
    g_free(f);
}

PrismFront *prism_front_copy(const PrismFront *f)
{
    PrismFront *c = prism_front_new(f->k);
    c->n = c->cap = f->n;
    c->keys = g_memdup2(f->keys, f->n * f->k * sizeof(double));
    c->idx = g_memdup2(f->idx, f->n * sizeof(uint64_t));
    c->pn = c->pcap = f->pn;
    c->pkeys = g_memdup2(f->pkeys, f->pn * f->k * sizeof(double));
    c->pidx = g_memdup2(f->pidx, f->pn * sizeof(uint64_t));
    return c;
}

size_t prism_front_n_objectives(const PrismFront *f)
{
    return f->k;
}

size_t prism_front_size(const PrismFront *f)
{
    g_return_val_if_fail(f->pn == 0, 0);
    return f->n;
}

gboolean prism_front_covers(const PrismFront *f, const double *lb)
{
    const size_t k = f->k;
    for (size_t d = 0; d < k; d++)
        if (isnan(lb[d]))
            return FALSE;
    if (k == 2) {
        /* the 2-D staircase (canonical: key 0 ascending, key 1 descending): the last point
         * with key 0 <= lb[0] has the least key 1 of them */
        size_t lo = 0, hi = f->n; /* first point with key 0 > lb[0] */
        while (lo < hi) {
            const size_t mid = lo + (hi - lo) / 2;
            if (f->keys[2 * mid] <= lb[0])
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == 0)
            return FALSE;
        const double *q = f->keys + 2 * (lo - 1);
        return q[1] <= lb[1] && (q[0] < lb[0] || q[1] < lb[1]);
    }
    for (size_t i = 0; i < f->n; i++) {
        const double *q = f->keys + i * k;
        gboolean le = TRUE, lt = FALSE;
        for (size_t d = 0; d < k && le; d++) {
            le = q[d] <= lb[d];
            lt = lt || q[d] < lb[d];
        }
        if (le && lt)
            return TRUE;
        /* canonical order: the first key only grows from here */
        if (q[0] > lb[0])
            return FALSE;
    }
    return FALSE;
}

const double *prism_front_key(const PrismFront *f, size_t i)
{
    g_return_val_if_fail(f->pn == 0 && i < f->n, NULL);
    return f->keys + i * f->k;
}

uint64_t prism_front_index(const PrismFront *f, size_t i)
{
    g_return_val_if_fail(f->pn == 0 && i < f->n, 0);
    return f->idx[i];
}

/* memcpy that accepts a NULL source when there is nothing to copy (an empty front). */
static void copy_bytes(void *dst, const void *src, size_t n)
{
    if (n > 0)
        memcpy(dst, src, n);
}

/* q precedes p (front.h): q <= p everywhere and (some q < p, or equal keys and a smaller
 * index). */
static gboolean precedes(const double *q, uint64_t qi, const double *p, uint64_t pi, size_t k)
{
    gboolean strict = FALSE;
    for (size_t j = 0; j < k; j++) {
        if (q[j] > p[j])
            return FALSE;
        strict |= q[j] < p[j];
    }
    return strict || qi < pi;
}

/* Is (p, pi) preceded by a point of the current (canonical) front? */
static gboolean front_precedes(PrismFront *f, const double *p, uint64_t pi)
{
    if (f->n == 0)
        return FALSE;
    if (f->k == 2) {
        /* The 2-D front is a staircase: k0 ascending, k1 strictly descending. The last
         * point with k0 <= p0 has the smallest k1 of those that could precede p. */
        size_t lo = 0, hi = f->n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (f->keys[2 * mid] <= p[0])
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == 0)
            return FALSE;
        return precedes(f->keys + 2 * (lo - 1), f->idx[lo - 1], p, pi, 2);
    }
    if (f->hint < f->n && precedes(f->keys + f->hint * f->k, f->idx[f->hint], p, pi, f->k))
        return TRUE;
    /* With 3 keys the bulk skyline is O(n log n) (Fenwick tree), so past a few thousand
     * points a linear scan per offer costs more than buffering the offer and letting the
     * next flush decide. */
    if (f->k == 3 && f->n > 2048)
        return FALSE;
    for (size_t i = 0; i < f->n; i++) {
        const double *q = f->keys + i * f->k;
        if (q[0] > p[0])
            break; /* canonical order: nothing further can precede p */
        if (precedes(q, f->idx[i], p, pi, f->k)) {
            f->hint = i;
            return TRUE;
        }
    }
    return FALSE;
}

void prism_front_offer(PrismFront *f, const double *key, uint64_t index)
{
    for (size_t j = 0; j < f->k; j++)
        if (isnan(key[j]))
            return;
    if (front_precedes(f, key, index))
        return;
    if (f->pn == f->pcap) {
        f->pcap = f->pcap ? 2 * f->pcap : 256;
        f->pkeys = g_renew(double, f->pkeys, f->pcap * f->k);
        f->pidx = g_renew(uint64_t, f->pidx, f->pcap);
    }
    memcpy(f->pkeys + f->pn * f->k, key, f->k * sizeof(double));
    f->pidx[f->pn++] = index;
    /* Flush once the buffer outgrows the front: keeps the work O(n log n) overall. */
    if (f->pn >= 4096 && f->pn >= 2 * f->n)
        prism_front_finish(f);
}

/* Sorting context: rows of k keys + index. */
typedef struct {
    const double *keys;
    const uint64_t *idx;
    size_t k;
} SortCtx;

static gint canonical_cmp(gconstpointer a, gconstpointer b, gpointer user)
{
    const SortCtx *c = user;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const double *x = c->keys + i * c->k, *y = c->keys + j * c->k;
    for (size_t d = 0; d < c->k; d++) {
        if (x[d] < y[d])
            return -1;
        if (x[d] > y[d])
            return 1;
    }
    return c->idx[i] < c->idx[j] ? -1 : c->idx[i] > c->idx[j];
}

/* Fenwick tree of prefix minima over ranks 1..n. */
static void fenwick_update(double *t, size_t n, size_t i, double v)
{
    for (; i <= n; i += i & (~i + 1))
        if (v < t[i])
            t[i] = v;
}

static double fenwick_query(const double *t, size_t i)
{
    double m = INFINITY;
    for (; i > 0; i -= i & (~i + 1))
        if (t[i] < m)
            m = t[i];
    return m;
}

static gint cmp_double(gconstpointer a, gconstpointer b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Rank (1-based) of v among the sorted unique values u[0..n-1]. */
static size_t value_rank(const double *u, size_t n, double v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (u[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo + 1;
}

/*
 * Skyline of n rows (keys, idx) into f->keys/idx, canonical. In canonical order a point
 * can only be preceded by points before it, and it is preceded iff some earlier point
 * is <= it in every key (equal keys: the earlier one has the smaller index; the same
 * point twice keeps one copy).
 */
static size_t skyline_core(size_t k, const double *keys, const uint64_t *idx, size_t n,
                           double *out_keys, uint64_t *out_idx)
{
    size_t *order = g_new(size_t, n ? n : 1);
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    SortCtx ctx = {keys, idx, k};
    g_qsort_with_data(order, (gint)n, sizeof(size_t), canonical_cmp, &ctx);
    size_t m = 0;
    if (k == 2) {
        double best = INFINITY;
        for (size_t r = 0; r < n; r++) {
            const double *p = keys + order[r] * 2;
            if (p[1] < best) {
                best = p[1];
                memcpy(out_keys + m * 2, p, 2 * sizeof(double));
                out_idx[m++] = idx[order[r]];
            }
        }
    } else if (k == 3) {
        double *u = g_new(double, n ? n : 1);
        for (size_t i = 0; i < n; i++)
            u[i] = keys[i * 3 + 1];
        qsort(u, n, sizeof(double), cmp_double);
        size_t nu = 0;
        for (size_t i = 0; i < n; i++)
            if (nu == 0 || u[nu - 1] != u[i])
                u[nu++] = u[i];
        double *tree = g_new(double, nu + 1);
        for (size_t i = 0; i <= nu; i++)
            tree[i] = INFINITY;
        for (size_t r = 0; r < n; r++) {
            const double *p = keys + order[r] * 3;
            size_t rk = value_rank(u, nu, p[1]);
            if (fenwick_query(tree, rk) <= p[2])
                continue;
            fenwick_update(tree, nu, rk, p[2]);
            memcpy(out_keys + m * 3, p, 3 * sizeof(double));
            out_idx[m++] = idx[order[r]];
        }
        g_free(tree);
        g_free(u);
    } else {
        for (size_t r = 0; r < n; r++) {
            const double *p = keys + order[r] * k;
            gboolean dominated = FALSE;
            for (size_t q = 0; q < m && !dominated; q++) {
                const double *s = out_keys + q * k;
                size_t d = 0;
                while (d < k && s[d] <= p[d])
                    d++;
                dominated = d == k;
            }
            if (!dominated) {
                memcpy(out_keys + m * k, p, k * sizeof(double));
                out_idx[m++] = idx[order[r]];
            }
        }
    }
    g_free(order);
    return m;
}

/* Replace the front of @p f by the skyline of n rows. */
static void skyline(PrismFront *f, const double *keys, const uint64_t *idx, size_t n)
{
    double *out_keys = g_new(double, (n ? n : 1) * f->k);
    uint64_t *out_idx = g_new(uint64_t, n ? n : 1);
    size_t m = skyline_core(f->k, keys, idx, n, out_keys, out_idx);
    if (m < n) { /* the front keeps what it holds, not the rows it came from */
        out_keys = g_renew(double, out_keys, (m ? m : 1) * f->k);
        out_idx = g_renew(uint64_t, out_idx, m ? m : 1);
    }
    g_free(f->keys);
    g_free(f->idx);
    f->keys = out_keys;
    f->idx = out_idx;
    f->n = f->cap = m;
    f->hint = 0;
}

void prism_front_offer_batch(PrismFront *f, size_t n, const double *keys, const uint64_t *idx)
{
    size_t k = f->k;
    /* The 2-D pre-filter is a binary search, and a small front is scanned quickly:
     * offer directly. */
    if (k == 2 || n < 16 || f->n < 64) {
        for (size_t i = 0; i < n; i++)
            prism_front_offer(f, keys + i * k, idx[i]);
        return;
    }
    /* k >= 3 and a large front: the batch's own skyline first (one sort), so only its
     * few survivors pay for the scan against the front. */
    double *bk = g_new(double, n *k), *sk = g_new(double, n *k);
    uint64_t *bi = g_new(uint64_t, n), *si = g_new(uint64_t, n);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        gboolean nan = FALSE;
        for (size_t j = 0; j < k; j++)
            nan |= isnan(keys[i * k + j]);
        if (nan)
            continue;
        memcpy(bk + m * k, keys + i * k, k * sizeof(double));
        bi[m++] = idx[i];
    }
    size_t s = skyline_core(k, bk, bi, m, sk, si);
    for (size_t i = 0; i < s; i++)
        prism_front_offer(f, sk + i * k, si[i]);
    g_free(bk);
    g_free(sk);
    g_free(bi);
    g_free(si);
}

void prism_front_finish(PrismFront *f)
{
    if (f->pn == 0)
        return;
    size_t n = f->n + f->pn, k = f->k;
    double *keys = g_new(double, n *k);
    uint64_t *idx = g_new(uint64_t, n);
    copy_bytes(keys, f->keys, f->n * k * sizeof(double));
    copy_bytes(keys + f->n * k, f->pkeys, f->pn * k * sizeof(double));
    copy_bytes(idx, f->idx, f->n * sizeof(uint64_t));
    copy_bytes(idx + f->n, f->pidx, f->pn * sizeof(uint64_t));
    f->pn = 0;
    skyline(f, keys, idx, n);
    g_free(keys);
    g_free(idx);
}

void prism_front_trim(PrismFront *f)
{
    prism_front_finish(f);
    g_clear_pointer(&f->pkeys, g_free);
    g_clear_pointer(&f->pidx, g_free);
    f->pcap = 0;
}

PrismFront *prism_front_merge(const PrismFront *a, const PrismFront *b)
{
    g_return_val_if_fail(a->k == b->k && a->pn == 0 && b->pn == 0, NULL);
    PrismFront *f = prism_front_new(a->k);
    size_t n = a->n + b->n, k = a->k;
    double *keys = g_new(double, (n ? n : 1) * k);
    uint64_t *idx = g_new(uint64_t, n ? n : 1);
    copy_bytes(keys, a->keys, a->n * k * sizeof(double));
    copy_bytes(keys + a->n * k, b->keys, b->n * k * sizeof(double));
    copy_bytes(idx, a->idx, a->n * sizeof(uint64_t));
    copy_bytes(idx + a->n, b->idx, b->n * sizeof(uint64_t));
    skyline(f, keys, idx, n);
    g_free(keys);
    g_free(idx);
    return f;
}

gboolean prism_front_equal(const PrismFront *a, const PrismFront *b)
{
    if (a->k != b->k || a->n != b->n || a->pn != 0 || b->pn != 0)
        return FALSE;
    for (size_t i = 0; i < a->n; i++) {
        if (a->idx[i] != b->idx[i])
            return FALSE;
        for (size_t j = 0; j < a->k; j++)
            if (a->keys[i * a->k + j] != b->keys[i * a->k + j])
                return FALSE;
    }
    return TRUE;
}

void prism_put_u32_internal(GByteArray *out, uint32_t v)
{
    g_byte_array_append(out, (const guint8 *)&v, sizeof v);
}

void prism_put_u64_internal(GByteArray *out, uint64_t v)
{
    g_byte_array_append(out, (const guint8 *)&v, sizeof v);
}

gboolean prism_corrupt_internal(GError **error, const char *what)
{
    g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERNAL, "corrupt serialised %s",
                what);
    return FALSE;
}

void prism_front_serialize(const PrismFront *f, GByteArray *out)
{
    g_return_if_fail(f->pn == 0);
    prism_put_u32_internal(out, FRONT_MAGIC);
    prism_put_u32_internal(out, FRONT_VERSION);
    prism_put_u32_internal(out, (uint32_t)f->k);
    prism_put_u32_internal(out, 0);
    prism_put_u64_internal(out, f->n);
    for (size_t i = 0; i < f->n; i++) {
        prism_put_u64_internal(out, f->idx[i]);
        g_byte_array_append(out, (const guint8 *)(f->keys + i * f->k), (guint)(f->k * 8));
    }
}

PrismFront *prism_front_deserialize(const guint8 *data, size_t len, size_t *used, GError **error)
{
    uint32_t head[4];
    uint64_t n;
    if (len < sizeof head + sizeof n) {
        prism_corrupt_internal(error, "front (truncated header)");
        return NULL;
    }
    memcpy(head, data, sizeof head);
    memcpy(&n, data + sizeof head, sizeof n);
    size_t k = head[2];
    if (head[0] != FRONT_MAGIC || head[1] != FRONT_VERSION || k < 1 ||
        k > PRISM_FRONT_MAX_OBJECTIVES) {
        prism_corrupt_internal(error, "front (bad header)");
        return NULL;
    }
    size_t row = 8 + 8 * k, off = sizeof head + sizeof n;
    if (n > (len - off) / row) {
        prism_corrupt_internal(error, "front (truncated points)");
        return NULL;
    }
    PrismFront *f = prism_front_new(k);
    f->n = f->cap = (size_t)n;
    f->keys = g_new(double, (f->n ? f->n : 1) * k);
    f->idx = g_new(uint64_t, f->n ? f->n : 1);
    for (size_t i = 0; i < f->n; i++, off += row) {
        memcpy(&f->idx[i], data + off, 8);
        memcpy(f->keys + i * k, data + off + 8, 8 * k);
    }
    *used = off;
    return f;
}
