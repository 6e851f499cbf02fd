// SPDX-License-Identifier: MIT
/*
 * io_schema.c - the landscape column list and the conversion of rows (driver batches or
 * table rows) into typed column buffers. Nothing here is collective or thread-shared.
 */
#include <prism/io.h>

#include <string.h>

#include "io-internal.h"

static const char *const dim_names[PRISM_DIM_COUNT] = {
    [PRISM_DIM_DEVICES] = "devices",     [PRISM_DIM_DP] = "dp",
    [PRISM_DIM_TP] = "tp",               [PRISM_DIM_PP] = "pp",
    [PRISM_DIM_VPP] = "vpp",             [PRISM_DIM_CP] = "cp",
    [PRISM_DIM_EP] = "ep",               [PRISM_DIM_SP] = "sp",
    [PRISM_DIM_MBS] = "mbs",             [PRISM_DIM_M] = "m",
    [PRISM_DIM_ZERO] = "zero",           [PRISM_DIM_RECOMPUTE] = "recompute",
    [PRISM_DIM_RC_LAYERS] = "rc_layers", [PRISM_DIM_SCHEDULE] = "schedule",
};

/* The compact type of each dim: the width of its field in PrismStrategy (so no value
 * can be truncated); after shuffle + deflate the unused high bytes cost nothing. */
static const PrismStore dim_store[PRISM_DIM_COUNT] = {
    [PRISM_DIM_DEVICES] = PRISM_STORE_U32, [PRISM_DIM_DP] = PRISM_STORE_U32,
    [PRISM_DIM_TP] = PRISM_STORE_U32,      [PRISM_DIM_PP] = PRISM_STORE_U32,
    [PRISM_DIM_VPP] = PRISM_STORE_U32,     [PRISM_DIM_CP] = PRISM_STORE_U32,
    [PRISM_DIM_EP] = PRISM_STORE_U32,      [PRISM_DIM_SP] = PRISM_STORE_U8,
    [PRISM_DIM_MBS] = PRISM_STORE_U32,     [PRISM_DIM_M] = PRISM_STORE_U32,
    [PRISM_DIM_ZERO] = PRISM_STORE_U8,     [PRISM_DIM_RECOMPUTE] = PRISM_STORE_U8,
    [PRISM_DIM_RC_LAYERS] = PRISM_STORE_U16, [PRISM_DIM_SCHEDULE] = PRISM_STORE_U8,
};

static const char *const dim_docs[PRISM_DIM_COUNT] = {
    [PRISM_DIM_DEVICES] = "device count N",
    [PRISM_DIM_DP] = "data-parallel degree",
    [PRISM_DIM_TP] = "tensor-parallel degree",
    [PRISM_DIM_PP] = "pipeline stages",
    [PRISM_DIM_VPP] = "virtual pipeline chunks per stage",
    [PRISM_DIM_CP] = "context-parallel degree",
    [PRISM_DIM_EP] = "expert-parallel degree",
    [PRISM_DIM_SP] = "Megatron sequence parallel (0/1)",
    [PRISM_DIM_MBS] = "micro-batch size in sequences",
    [PRISM_DIM_M] = "micro-batches per step",
    [PRISM_DIM_ZERO] = "ZeRO stage 0..3",
    [PRISM_DIM_RECOMPUTE] = "recompute: 0 none, 1 selective, 2 full, 3 block",
    [PRISM_DIM_RC_LAYERS] = "k of recompute=block (full on the first k layers per chunk)",
    [PRISM_DIM_SCHEDULE] = "schedule: 0 1f1b, 1 interleaved, 2 gpipe, 3 zb-h1",
};

const char *prism_dim_name(PrismDim dim)
{
    return (unsigned)dim < PRISM_DIM_COUNT ? dim_names[dim] : "?";
}

double prism_dim_of_strategy(PrismDim dim, const PrismStrategy *s)
{
    switch (dim) {
    case PRISM_DIM_DEVICES: return s->devices;
    case PRISM_DIM_DP: return s->dp;
    case PRISM_DIM_TP: return s->tp;
    case PRISM_DIM_PP: return s->pp;
    case PRISM_DIM_VPP: return s->vpp;
    case PRISM_DIM_CP: return s->cp;
    case PRISM_DIM_EP: return s->ep;
    case PRISM_DIM_SP: return s->sp;
    case PRISM_DIM_MBS: return s->mbs;
    case PRISM_DIM_M: return s->m;
    case PRISM_DIM_ZERO: return s->zero;
    case PRISM_DIM_RECOMPUTE: return s->recompute;
    case PRISM_DIM_RC_LAYERS: return s->rc_layers;
    case PRISM_DIM_SCHEDULE: return s->schedule;
    case PRISM_DIM_COUNT: break;
    }
    return 0;
}

size_t prism_store_size(PrismStore store)
{
    switch (store) {
    case PRISM_STORE_F64: return 8;
    case PRISM_STORE_F32: return 4;
    case PRISM_STORE_U8: return 1;
    case PRISM_STORE_U16: return 2;
    case PRISM_STORE_U32: return 4;
    }
    return 8;
}

const char *prism_store_name(PrismStore store)
{
    switch (store) {
    case PRISM_STORE_F64: return "f64";
    case PRISM_STORE_F32: return "f32";
    case PRISM_STORE_U8: return "u8";
    case PRISM_STORE_U16: return "u16";
    case PRISM_STORE_U32: return "u32";
    }
    return "?";
}

PrismLandscapeSchema *prism_landscape_schema_new(void)
{
    return g_new0(PrismLandscapeSchema, 1);
}

void prism_landscape_schema_free(PrismLandscapeSchema *schema)
{
    if (schema == NULL)
        return;
    for (size_t i = 0; i < schema->n; i++) {
        g_free(schema->cols[i].name);
        g_free(schema->cols[i].unit);
        g_free(schema->cols[i].doc);
    }
    g_free(schema->cols);
    g_free(schema);
}

void prism_landscape_schema_add(PrismLandscapeSchema *schema, const char *name, const char *unit,
                                const char *doc, PrismStore store, PrismColumnSource source,
                                unsigned index)
{
    g_return_if_fail(schema != NULL && name != NULL);
    schema->cols = g_renew(PrismColumn, schema->cols, schema->n + 1);
    PrismColumn *c = &schema->cols[schema->n++];
    c->name = g_strdup(name);
    c->unit = g_strdup(unit ? unit : "");
    c->doc = g_strdup(doc ? doc : "");
    c->store = store;
    c->source = source;
    c->index = index;
}

void prism_landscape_schema_add_dims(PrismLandscapeSchema *schema)
{
    prism_landscape_schema_add(schema, "point", "id",
                               "grid point (job) of the row; 0 for a single setup",
                               PRISM_STORE_U32, PRISM_COLUMN_POINT, 0);
    for (unsigned d = 0; d < PRISM_DIM_COUNT; d++)
        prism_landscape_schema_add(schema, dim_names[d], d == PRISM_DIM_RECOMPUTE ||
                                                                 d == PRISM_DIM_SCHEDULE
                                                             ? "code"
                                                             : "count",
                                   dim_docs[d], dim_store[d], PRISM_COLUMN_DIM, d);
}

int prism_landscape_schema_find(const PrismLandscapeSchema *schema, const char *name)
{
    for (size_t i = 0; i < schema->n; i++)
        if (strcmp(schema->cols[i].name, name) == 0)
            return (int)i;
    return -1;
}

PrismLandscapeSchema *prism_io_schema_copy_internal(const PrismLandscapeSchema *schema)
{
    PrismLandscapeSchema *c = prism_landscape_schema_new();
    for (size_t i = 0; i < schema->n; i++) {
        const PrismColumn *s = &schema->cols[i];
        prism_landscape_schema_add(c, s->name, s->unit, s->doc, s->store, s->source, s->index);
    }
    return c;
}

size_t prism_io_row_bytes_internal(const PrismLandscapeSchema *schema)
{
    size_t b = 0;
    for (size_t i = 0; i < schema->n; i++)
        b += prism_store_size(schema->cols[i].store);
    return b;
}

double prism_io_load_internal(PrismStore store, const void *buf, size_t i)
{
    switch (store) {
    case PRISM_STORE_F64: return ((const double *)buf)[i];
    case PRISM_STORE_F32: return ((const float *)buf)[i];
    case PRISM_STORE_U8: return ((const uint8_t *)buf)[i];
    case PRISM_STORE_U16: return ((const uint16_t *)buf)[i];
    case PRISM_STORE_U32: return ((const uint32_t *)buf)[i];
    }
    return 0;
}

/* Store n doubles as @p store at dst[at..]. Integer columns hold exact small integers
 * (dims, codes, flags): the cast is exact. f32 rounds to nearest. */
static void store_doubles(PrismStore store, void *dst, size_t at, const double *src, size_t n)
{
    switch (store) {
    case PRISM_STORE_F64:
        memcpy((double *)dst + at, src, n * sizeof(double));
        break;
    case PRISM_STORE_F32:
        for (size_t i = 0; i < n; i++)
            ((float *)dst)[at + i] = (float)src[i];
        break;
    case PRISM_STORE_U8:
        for (size_t i = 0; i < n; i++)
            ((uint8_t *)dst)[at + i] = (uint8_t)src[i];
        break;
    case PRISM_STORE_U16:
        for (size_t i = 0; i < n; i++)
            ((uint16_t *)dst)[at + i] = (uint16_t)src[i];
        break;
    case PRISM_STORE_U32:
        for (size_t i = 0; i < n; i++)
            ((uint32_t *)dst)[at + i] = (uint32_t)src[i];
        break;
    }
}

static void store_constant(PrismStore store, void *dst, size_t at, double v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        store_doubles(store, dst, at + i, &v, 1);
}

/* The lane array of a per-row dim, or NULL for a structural (segment-key) dim. */
static const double *lane_of(const PrismLanes *l, unsigned dim)
{
    switch (dim) {
    case PRISM_DIM_DP: return l->dp;
    case PRISM_DIM_TP: return l->tp;
    case PRISM_DIM_CP: return l->cp;
    case PRISM_DIM_EP: return l->ep;
    case PRISM_DIM_SP: return l->sp;
    case PRISM_DIM_MBS: return l->mbs;
    case PRISM_DIM_M: return l->m;
    case PRISM_DIM_ZERO: return l->zero;
    default: return NULL;
    }
}

static double key_dim(const PrismSegmentKey *k, unsigned dim)
{
    switch (dim) {
    case PRISM_DIM_DEVICES: return k->devices;
    case PRISM_DIM_PP: return k->pp;
    case PRISM_DIM_VPP: return k->vpp;
    case PRISM_DIM_RECOMPUTE: return k->recompute;
    case PRISM_DIM_RC_LAYERS: return k->rc_layers;
    case PRISM_DIM_SCHEDULE: return k->schedule;
    default: return 0;
    }
}

void prism_io_pack_batch_internal(const PrismLandscapeSchema *schema, const PrismRowBatch *batch,
                                  size_t from, size_t n, void *const *bufs, size_t at)
{
    for (size_t c = 0; c < schema->n; c++) {
        const PrismColumn *col = &schema->cols[c];
        switch (col->source) {
        case PRISM_COLUMN_POINT:
            store_constant(col->store, bufs[c], at, (double)batch->job, n);
            break;
        case PRISM_COLUMN_DIM: {
            const double *lane = lane_of(batch->lanes, col->index);
            if (lane != NULL)
                store_doubles(col->store, bufs[c], at, lane + from, n);
            else
                store_constant(col->store, bufs[c], at, key_dim(batch->key, col->index), n);
            break;
        }
        case PRISM_COLUMN_COST:
            store_doubles(col->store, bufs[c], at, batch->cols->col[col->index] + from, n);
            break;
        }
    }
}

void prism_io_pack_row_internal(const PrismLandscapeSchema *schema, const PrismLandscapeRow *row,
                                void *const *bufs, size_t at)
{
    for (size_t c = 0; c < schema->n; c++) {
        const PrismColumn *col = &schema->cols[c];
        double v = 0;
        switch (col->source) {
        case PRISM_COLUMN_POINT: v = row->point; break;
        case PRISM_COLUMN_DIM: v = prism_dim_of_strategy((PrismDim)col->index, &row->strategy); break;
        case PRISM_COLUMN_COST: v = row->cols[col->index]; break;
        }
        store_doubles(col->store, bufs[c], at, &v, 1);
    }
}
