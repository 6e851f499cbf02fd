// SPDX-License-Identifier: MIT
/*
 * io_schema.c - the landscape column list and the conversion of rows (driver batches or
 * table rows) into typed column buffers. Nothing here is collective or thread-shared.
 */
#include <prism/io.h>

#include <math.h>
#include <string.h>

#include <prism/core.h>

#include "io-internal.h"

/* The compact type of each dim: the width of its field in PrismStrategy (registry.h), so
 * no value can be truncated; after shuffle + deflate the unused high bytes cost nothing. */
static PrismStore dim_store(PrismDim d)
{
    switch (prism_dim_info(d)->bytes) {
    case 1:
        return PRISM_STORE_U8;
    case 2:
        return PRISM_STORE_U16;
    default:
        return PRISM_STORE_U32;
    }
}

size_t prism_store_size(PrismStore store)
{
    switch (store) {
    case PRISM_STORE_F64:
        return 8;
    case PRISM_STORE_F32:
        return 4;
    case PRISM_STORE_U8:
        return 1;
    case PRISM_STORE_U16:
        return 2;
    case PRISM_STORE_U32:
        return 4;
    }
    return 8;
}

const char *prism_store_name(PrismStore store)
{
    switch (store) {
    case PRISM_STORE_F64:
        return "f64";
    case PRISM_STORE_F32:
        return "f32";
    case PRISM_STORE_U8:
        return "u8";
    case PRISM_STORE_U16:
        return "u16";
    case PRISM_STORE_U32:
        return "u32";
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
        g_free(schema->cols[i].codes);
    }
    g_free(schema->cols);
    g_free(schema);
}

void prism_landscape_schema_add(PrismLandscapeSchema *schema, const char *name, const char *unit,
                                const char *doc, PrismStore store, PrismLandscapeSource source,
                                unsigned index)
{
    g_return_if_fail(schema != NULL && name != NULL);
    schema->cols = g_renew(PrismLandscapeColumn, schema->cols, schema->n + 1);
    PrismLandscapeColumn *c = &schema->cols[schema->n++];
    c->name = g_strdup(name);
    c->unit = g_strdup(unit ? unit : "");
    c->doc = g_strdup(doc ? doc : "");
    c->store = store;
    c->source = source;
    c->index = index;
    c->codes = NULL;
}

void prism_landscape_schema_set_codes(PrismLandscapeSchema *schema, size_t col, const char *codes)
{
    g_return_if_fail(schema != NULL && col < schema->n);
    g_free(schema->cols[col].codes);
    schema->cols[col].codes = g_strdup(codes);
}

void prism_landscape_schema_add_dims(PrismLandscapeSchema *schema)
{
    prism_landscape_schema_add(schema, "point", "id",
                               "grid point (job) of the row; 0 for a single setup", PRISM_STORE_U32,
                               PRISM_LS_SOURCE_POINT, 0);
    for (size_t i = 0; i < PRISM_DIM_COUNT; i++) {
        const PrismDim d = prism_dim_user_order[i];
        const PrismDimInfo *info = prism_dim_info(d);
        if (info->codes == NULL) {
            prism_landscape_schema_add(schema, info->name, "count", info->doc, dim_store(d),
                                       PRISM_LS_SOURCE_DIM, d);
            continue;
        }
        /* a code dim: its doc lists the codes ("schedule: 0 1f1b, 1 interleaved, ..."), its
         * codes attribute names them in code order */
        GString *doc = g_string_new(info->doc), *names = g_string_new(NULL);
        for (uint32_t k = 0; k < info->n_codes; k++) {
            g_string_append_printf(doc, "%s%u %s", k ? ", " : ": ", k, info->codes[k]);
            g_string_append_printf(names, "%s%s", k ? "," : "", info->codes[k]);
        }
        prism_landscape_schema_add(schema, info->name, "code", doc->str, dim_store(d),
                                   PRISM_LS_SOURCE_DIM, d);
        prism_landscape_schema_set_codes(schema, schema->n - 1, names->str);
        g_string_free(doc, TRUE);
        g_string_free(names, TRUE);
    }
}

void prism_landscape_schema_add_intervals(PrismLandscapeSchema *schema)
{
    static const struct {
        const char *name, *unit, *doc;
        PrismStore store;
    } iv[PRISM_IV_COUNT] = {
        [PRISM_IV_STEP_LO] = {"step_lo", "s",
                              "step time at the optimistic corner of the published ranges "
                              "(the least of it and step_time; not widened by a track record)",
                              PRISM_STORE_F64},
        [PRISM_IV_STEP_HI] = {"step_hi", "s",
                              "step time at the pessimistic corner of the published ranges "
                              "(the largest of it and step_time; not widened)",
                              PRISM_STORE_F64},
        [PRISM_IV_MEM_HI] = {"mem_hi", "bytes",
                             "device memory (allocated x the allocator's reserve + CUDA context "
                             "+ NCCL buffers) at the pessimistic corner of the published ranges",
                             PRISM_STORE_F64},
        [PRISM_IV_MEM_RISK] = {"mem_risk", "code",
                               "memory class: fits (mem_hi within the usable memory), at risk "
                               "(the point's device figure fits, mem_hi does not), does not fit",
                               PRISM_STORE_U8},
    };
    for (unsigned i = 0; i < PRISM_IV_COUNT; i++)
        prism_landscape_schema_add(schema, iv[i].name, iv[i].unit, iv[i].doc, iv[i].store,
                                   PRISM_LS_SOURCE_INTERVAL, i);
    prism_landscape_schema_set_codes(schema, schema->n - 1, "fits,at risk,does not fit");
}

int prism_landscape_schema_find(const PrismLandscapeSchema *schema, const char *name)
{
    for (size_t i = 0; i < schema->n; i++)
        if (strcmp(schema->cols[i].name, name) == 0)
            return (int)i;
    return -1;
}

int prism_io_schema_resolve_internal(const PrismLandscapeSchema *schema, const char *name)
{
    int c = prism_landscape_schema_find(schema, name);
    if (c >= 0)
        return c;
    /* The cost model's aliases (explain JSON paths), dim aliases, then friendly names. */
    PrismCostCol col;
    if (prism_col_lookup(name, &col, NULL))
        return prism_landscape_schema_find(schema, prism_col_info(col)->name);
    PrismDim dim;
    if (prism_dim_lookup(name, &dim, NULL))
        return prism_landscape_schema_find(schema, prism_dim_name(dim));
    static const char *const aliases[][2] = {
        {"step", "step_time"},     {"time_step", "step_time"},     {"memory", "peak_mem"},
        {"mem_peak", "peak_mem"},  {"throughput", "tokens_per_s"}, {"tokens", "tokens_per_s"},
        {"bubble", "bubble_time"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(aliases); i++)
        if (g_ascii_strcasecmp(name, aliases[i][0]) == 0)
            return prism_landscape_schema_find(schema, aliases[i][1]);
    return -1;
}

char *prism_io_schema_close_names_internal(const PrismLandscapeSchema *schema, const char *name)
{
    g_autofree const char **names = g_new0(const char *, schema->n + 1);
    for (size_t i = 0; i < schema->n; i++)
        names[i] = schema->cols[i].name;
    return prism_close_names(name, names, schema->n, 3);
}

PrismLandscapeSchema *prism_io_schema_copy_internal(const PrismLandscapeSchema *schema)
{
    PrismLandscapeSchema *c = prism_landscape_schema_new();
    for (size_t i = 0; i < schema->n; i++) {
        const PrismLandscapeColumn *s = &schema->cols[i];
        prism_landscape_schema_add(c, s->name, s->unit, s->doc, s->store, s->source, s->index);
        c->cols[i].codes = g_strdup(s->codes);
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
    case PRISM_STORE_F64:
        return ((const double *)buf)[i];
    case PRISM_STORE_F32:
        return ((const float *)buf)[i];
    case PRISM_STORE_U8:
        return ((const uint8_t *)buf)[i];
    case PRISM_STORE_U16:
        return ((const uint16_t *)buf)[i];
    case PRISM_STORE_U32:
        return ((const uint32_t *)buf)[i];
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
    switch (store) {
    case PRISM_STORE_F64:
        for (size_t i = 0; i < n; i++)
            ((double *)dst)[at + i] = v;
        break;
    case PRISM_STORE_F32:
        for (size_t i = 0; i < n; i++)
            ((float *)dst)[at + i] = (float)v;
        break;
    case PRISM_STORE_U8:
        memset((uint8_t *)dst + at, (uint8_t)v, n);
        break;
    case PRISM_STORE_U16:
        for (size_t i = 0; i < n; i++)
            ((uint16_t *)dst)[at + i] = (uint16_t)v;
        break;
    case PRISM_STORE_U32:
        for (size_t i = 0; i < n; i++)
            ((uint32_t *)dst)[at + i] = (uint32_t)v;
        break;
    }
}

/* The lane array of a per-row dim, or NULL for a structural (segment-key) dim. */
static const double *lane_of(const PrismLanes *l, unsigned dim)
{
    switch (dim) {
    case PRISM_DIM_DP:
        return l->dp;
    case PRISM_DIM_TP:
        return l->tp;
    case PRISM_DIM_CP:
        return l->cp;
    case PRISM_DIM_EP:
        return l->ep;
    case PRISM_DIM_SP:
        return l->sp;
    case PRISM_DIM_MBS:
        return l->mbs;
    case PRISM_DIM_M:
        return l->m;
    case PRISM_DIM_ZERO:
        return l->zero;
    case PRISM_DIM_ETP:
        return l->etp != NULL ? l->etp : l->tp;
    case PRISM_DIM_FOLDING:
        return l->fold; /* NULL: tied rows, the constant 0 below */
    case PRISM_DIM_TP_OVERLAP:
        return l->tp_ov; /* NULL: all on, the constant 1 below */
    case PRISM_DIM_DP_OVERLAP:
        return l->dp_ov;
    case PRISM_DIM_PARAM_OVERLAP:
        return l->param_ov;
    default:
        return NULL;
    }
}

static double key_dim(const PrismSegmentKey *k, unsigned dim)
{
    switch (dim) {
    case PRISM_DIM_DEVICES:
        return k->devices;
    case PRISM_DIM_PP:
        return k->pp;
    case PRISM_DIM_VPP:
        return k->vpp;
    case PRISM_DIM_RECOMPUTE:
        return k->recompute;
    case PRISM_DIM_RC_LAYERS:
        return k->rc_layers;
    case PRISM_DIM_SCHEDULE:
        return k->schedule;
    case PRISM_DIM_OFFLOAD:
        return k->offload;
    case PRISM_DIM_TP_OVERLAP:
    case PRISM_DIM_DP_OVERLAP:
    case PRISM_DIM_PARAM_OVERLAP:
        return 1; /* lanes without overlap columns: every option on */
    default:
        return 0;
    }
}

void prism_io_pack_batch_internal(const PrismLandscapeSchema *schema, const PrismRowBatch *batch,
                                  size_t from, size_t n, void *const *bufs, size_t at)
{
    for (size_t c = 0; c < schema->n; c++) {
        const PrismLandscapeColumn *col = &schema->cols[c];
        switch (col->source) {
        case PRISM_LS_SOURCE_POINT:
            store_constant(col->store, bufs[c], at, (double)batch->job, n);
            break;
        case PRISM_LS_SOURCE_DIM: {
            const double *lane = lane_of(batch->lanes, col->index);
            if (lane != NULL)
                store_doubles(col->store, bufs[c], at, lane + from, n);
            else
                store_constant(col->store, bufs[c], at, key_dim(batch->key, col->index), n);
            break;
        }
        case PRISM_LS_SOURCE_COST:
        case PRISM_LS_SOURCE_DERIVED: /* a writer's schema has none; the value if it had */
            store_doubles(col->store, bufs[c], at, batch->cols->col[col->index] + from, n);
            break;
        case PRISM_LS_SOURCE_FLOPS_TIME:
            store_constant(col->store, bufs[c], at, batch->flops_time, n);
            break;
        case PRISM_LS_SOURCE_INTERVAL: /* a sink without the columns stores NaN (never) */
            if (batch->iv[col->index] != NULL)
                store_doubles(col->store, bufs[c], at, batch->iv[col->index] + from, n);
            else
                store_constant(col->store, bufs[c], at, col->store == PRISM_STORE_F64 ? NAN : 0, n);
            break;
        }
    }
}

void prism_io_pack_row_internal(const PrismLandscapeSchema *schema, const PrismLandscapeRow *row,
                                void *const *bufs, size_t at)
{
    for (size_t c = 0; c < schema->n; c++) {
        const PrismLandscapeColumn *col = &schema->cols[c];
        double v = 0;
        switch (col->source) {
        case PRISM_LS_SOURCE_POINT:
            v = row->point;
            break;
        case PRISM_LS_SOURCE_DIM:
            v = (double)prism_strategy_dim(&row->strategy, (PrismDim)col->index);
            break;
        case PRISM_LS_SOURCE_COST:
        case PRISM_LS_SOURCE_DERIVED:
            v = row->cols[col->index];
            break;
        case PRISM_LS_SOURCE_FLOPS_TIME: /* not in a row; the tables store hfu instead */
            v = NAN;
            break;
        case PRISM_LS_SOURCE_INTERVAL:
            v = row->iv[col->index];
            break;
        }
        store_doubles(col->store, bufs[c], at, &v, 1);
    }
}
