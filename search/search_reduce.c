// SPDX-License-Identifier: MIT
/*
 * search_reduce.c - the cross-rank merge of fronts, top-k lists and search results: each
 * object is serialised and reduced with the ordered rank tree of core
 * (prism_comm_reduce_ordered(), comm.h), whose combine step deserialises both sides,
 * merges (lower ranks on the left) and serialises again; the result is broadcast and
 * decoded on every rank. The tree's status frames carry a rank's local failure (no
 * local result) to every rank, so nobody is left blocked. Collective on the
 * communicator passed in.
 */
#include <prism/front.h>

#include <string.h>

#include <prism/core.h>

#include "search-internal.h"

/* The combine step of the tree: merge(deserialize(left), deserialize(right)). */
static gboolean combine_objects(const guint8 *left, size_t left_len, const guint8 *right,
                                size_t right_len, GByteArray *out, gpointer user, GError **error)
{
    const PrismReduceOps *ops = user;
    void *a = ops->deserialize(left, left_len, error);
    if (a == NULL)
        return FALSE;
    void *b = ops->deserialize(right, right_len, error);
    if (b == NULL) {
        ops->free(a);
        return FALSE;
    }
    void *merged = ops->merge(a, b);
    ops->serialize(merged, out);
    ops->free(merged);
    ops->free(b);
    ops->free(a);
    return TRUE;
}

gboolean prism_reduce_tree_internal(PrismComm *comm, const PrismReduceOps *ops, void **obj,
                                    GError **error)
{
    GError *local = NULL;
    gboolean ok = *obj != NULL;
    if (!ok)
        g_set_error(&local, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERNAL,
                    "rank %d has no local result to reduce", comm->rank);
    if (comm->size == 1) { /* nothing travels: the local object is the result */
        if (!ok)
            g_propagate_error(error, local);
        return ok;
    }
    g_autoptr(GByteArray) mine = g_byte_array_new();
    if (ok)
        ops->serialize(*obj, mine);
    g_autoptr(GByteArray) all = NULL;
    if (!prism_comm_reduce_ordered(comm, PRISM_COMM_TAG_SEARCH, mine->data, mine->len, ok,
                                   combine_objects, (gpointer)ops, PRISM_COMM_REDUCE_ALL, &all,
                                   &local)) {
        g_propagate_error(error, local);
        return FALSE;
    }
    void *result = ops->deserialize(all->data, all->len, &local);
    if (!prism_comm_agree(comm, result != NULL, &local)) {
        if (result != NULL)
            ops->free(result);
        g_propagate_error(error, local);
        return FALSE;
    }
    if (*obj != NULL)
        ops->free(*obj);
    *obj = result;
    return TRUE;
}

static void front_ser(const void *obj, GByteArray *out)
{
    prism_front_serialize(obj, out);
}

static void *front_de(const guint8 *data, size_t len, GError **error)
{
    size_t used = 0;
    return prism_front_deserialize(data, len, &used, error);
}

static void *front_merge(const void *a, const void *b)
{
    return prism_front_merge(a, b);
}

static void front_free(void *f)
{
    prism_front_free(f);
}

gboolean prism_front_reduce(PrismComm *comm, PrismFront **f, GError **error)
{
    static const PrismReduceOps ops = {front_ser, front_de, front_merge, front_free};
    if (*f != NULL)
        prism_front_finish(*f);
    return prism_reduce_tree_internal(comm, &ops, (void **)f, error);
}

static void topk_ser(const void *obj, GByteArray *out)
{
    prism_topk_serialize(obj, out);
}

static void *topk_de(const guint8 *data, size_t len, GError **error)
{
    size_t used = 0;
    return prism_topk_deserialize(data, len, &used, error);
}

static void *topk_merge(const void *a, const void *b)
{
    return prism_topk_merge(a, b);
}

static void topk_free(void *t)
{
    prism_topk_free(t);
}

gboolean prism_topk_reduce(PrismComm *comm, PrismTopK **t, GError **error)
{
    static const PrismReduceOps ops = {topk_ser, topk_de, topk_merge, topk_free};
    return prism_reduce_tree_internal(comm, &ops, (void **)t, error);
}
