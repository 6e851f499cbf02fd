// SPDX-License-Identifier: MIT
/*
 * search_topk.c - local top-k lists: the k smallest (key, index) points, kept sorted.
 *
 * Not thread-safe: one PrismTopK per worker. Nothing here is collective; the
 * cross-rank merge is in search_reduce.c.
 */
#include <prism/front.h>

#include <math.h>
#include <string.h>

#include <prism/core.h>

#include "search-internal.h"

#define TOPK_VERSION 1u

struct PrismTopK {
    size_t k, n;
    double *key;
    uint64_t *idx;
};

#define TOPK_MAGIC 0x4b545250u /* "PRTK" */

PrismTopK *prism_topk_new(size_t k)
{
    PrismTopK *t = g_new0(PrismTopK, 1);
    t->k = k;
    t->key = g_new(double, k ? k : 1);
    t->idx = g_new(uint64_t, k ? k : 1);
    return t;
}

void prism_topk_free(PrismTopK *t)
{
    if (t == NULL)
        return;
    g_free(t->key);
    g_free(t->idx);
    g_free(t);
}

PrismTopK *prism_topk_copy(const PrismTopK *t)
{
    PrismTopK *c = prism_topk_new(t->k);
    c->n = t->n;
    memcpy(c->key, t->key, t->n * sizeof(double));
    memcpy(c->idx, t->idx, t->n * sizeof(uint64_t));
    return c;
}

size_t prism_topk_capacity(const PrismTopK *t)
{
    return t->k;
}

size_t prism_topk_size(const PrismTopK *t)
{
    return t->n;
}

double prism_topk_key(const PrismTopK *t, size_t i)
{
    g_return_val_if_fail(i < t->n, NAN);
    return t->key[i];
}

uint64_t prism_topk_index(const PrismTopK *t, size_t i)
{
    g_return_val_if_fail(i < t->n, 0);
    return t->idx[i];
}

static gboolean before(double ka, uint64_t ia, double kb, uint64_t ib)
{
    return ka < kb || (ka == kb && ia < ib);
}

void prism_topk_offer(PrismTopK *t, double key, uint64_t index)
{
    if (isnan(key) || t->k == 0)
        return;
    if (t->n == t->k && !before(key, index, t->key[t->n - 1], t->idx[t->n - 1]))
        return;
    size_t pos = t->n;
    while (pos > 0 && before(key, index, t->key[pos - 1], t->idx[pos - 1]))
        pos--;
    if (pos > 0 && t->idx[pos - 1] == index && t->key[pos - 1] == key)
        return; /* the same point twice */
    size_t last = t->n < t->k ? t->n : t->k - 1;
    memmove(t->key + pos + 1, t->key + pos, (last - pos) * sizeof(double));
    memmove(t->idx + pos + 1, t->idx + pos, (last - pos) * sizeof(uint64_t));
    t->key[pos] = key;
    t->idx[pos] = index;
    if (t->n < t->k)
        t->n++;
}

PrismTopK *prism_topk_merge(const PrismTopK *a, const PrismTopK *b)
{
    PrismTopK *t = prism_topk_new(a->k);
    size_t i = 0, j = 0;
    while (t->n < t->k && (i < a->n || j < b->n)) {
        gboolean take_a =
            j == b->n || (i < a->n && !before(b->key[j], b->idx[j], a->key[i], a->idx[i]));
        double key = take_a ? a->key[i] : b->key[j];
        uint64_t idx = take_a ? a->idx[i++] : b->idx[j++];
        if (t->n > 0 && t->idx[t->n - 1] == idx && t->key[t->n - 1] == key)
            continue;
        t->key[t->n] = key;
        t->idx[t->n++] = idx;
    }
    return t;
}

gboolean prism_topk_equal(const PrismTopK *a, const PrismTopK *b)
{
    if (a->k != b->k || a->n != b->n)
        return FALSE;
    for (size_t i = 0; i < a->n; i++)
        if (a->idx[i] != b->idx[i] || a->key[i] != b->key[i])
            return FALSE;
    return TRUE;
}

void prism_topk_serialize(const PrismTopK *t, GByteArray *out)
{
    prism_put_u32_internal(out, TOPK_MAGIC);
    prism_put_u32_internal(out, TOPK_VERSION);
    prism_put_u64_internal(out, t->k);
    prism_put_u64_internal(out, t->n);
    for (size_t i = 0; i < t->n; i++) {
        prism_put_u64_internal(out, t->idx[i]);
        g_byte_array_append(out, (const guint8 *)&t->key[i], 8);
    }
}

PrismTopK *prism_topk_deserialize(const guint8 *data, size_t len, size_t *used, GError **error)
{
    uint32_t head[2];
    uint64_t k, n;
    size_t off = sizeof head + 16;
    if (len < off) {
        prism_corrupt_internal(error, "top-k (truncated header)");
        return NULL;
    }
    memcpy(head, data, sizeof head);
    memcpy(&k, data + 8, 8);
    memcpy(&n, data + 16, 8);
    if (head[0] != TOPK_MAGIC || head[1] != TOPK_VERSION || n > k || k > (1u << 30) ||
        n > (len - off) / 16) {
        prism_corrupt_internal(error, "top-k (bad header)");
        return NULL;
    }
    PrismTopK *t = prism_topk_new((size_t)k);
    t->n = (size_t)n;
    for (size_t i = 0; i < t->n; i++, off += 16) {
        memcpy(&t->idx[i], data + off, 8);
        memcpy(&t->key[i], data + off + 8, 8);
    }
    *used = off;
    return t;
}
