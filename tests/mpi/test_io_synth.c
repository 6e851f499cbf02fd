// SPDX-License-Identifier: MIT
/* test_io_synth.c - see test_io_synth.h. Not collective. */
#include "test_io_synth.h"

#include <math.h>
#include <string.h>

void synth_row(uint64_t g, PrismLandscapeRow *row)
{
    memset(row, 0, sizeof *row);
    uint64_t seg = g / SEG;
    PrismStrategy *s = &row->strategy;
    s->devices = 64u << (seg % 3);
    s->pp = 1 + (uint32_t)(seg % 4);
    s->vpp = 1 + (uint32_t)(seg % 2);
    s->schedule = (uint8_t)(seg % 4);
    s->recompute = (uint8_t)((seg / 2) % 4);
    s->rc_layers = (uint16_t)(seg % 5);
    s->tp = 1u << (g % 4);
    s->cp = 1 + (uint32_t)((g / 4) % 2);
    s->dp = 1 + (uint32_t)(g % 13);
    s->ep = 1 + (uint32_t)((g / 7) % 3);
    s->sp = (uint8_t)(g % 2);
    s->mbs = 1 + (uint32_t)(g % 3);
    s->m = (uint32_t)(g % 100000);
    s->zero = (uint8_t)(g % 4);
    s->overlap_off = (uint8_t)((g / 5) % 8); /* every overlap column takes 0 and 1 */
    row->index = g;
    row->point = (uint32_t)(g / JOB);
    for (int c = 0; c < PRISM_COL_COUNT; c++)
        row->cols[c] = 1e3 * sin((double)g * 0.37 + c) + c;
    row->cols[PRISM_COL_FEASIBLE] = g % 3 != 0;
    row->cols[PRISM_COL_REASON] = g % 3 == 0 ? 2 : 0;
}

PrismLandscapeSchema *synth_schema(void)
{
    PrismLandscapeSchema *s = prism_landscape_schema_new();
    prism_landscape_schema_add_dims(s);
    prism_landscape_schema_add(s, "step_time", "s", "step", PRISM_STORE_F64, PRISM_LS_SOURCE_COST,
                               PRISM_COL_TIME_STEP);
    prism_landscape_schema_add(s, "peak_mem", "bytes", "peak", PRISM_STORE_F32,
                               PRISM_LS_SOURCE_COST, PRISM_COL_MEM_PEAK);
    prism_landscape_schema_add(s, "mfu", "fraction", NULL, PRISM_STORE_F32, PRISM_LS_SOURCE_COST,
                               PRISM_COL_MFU);
    prism_landscape_schema_add(s, "bytes_l0", "bytes", NULL, PRISM_STORE_F64, PRISM_LS_SOURCE_COST,
                               PRISM_COL_BYTES_L0);
    prism_landscape_schema_add(s, "peak_stage", "index", NULL, PRISM_STORE_U16,
                               PRISM_LS_SOURCE_COST, PRISM_COL_PEAK_STAGE);
    prism_landscape_schema_add(s, "feasible", "flag", NULL, PRISM_STORE_U8, PRISM_LS_SOURCE_COST,
                               PRISM_COL_FEASIBLE);
    prism_landscape_schema_add(s, "reason", "code", NULL, PRISM_STORE_U8, PRISM_LS_SOURCE_COST,
                               PRISM_COL_REASON);
    return s;
}

/* The expected stored value of column @p col for row g, computed independently of io/. */
double synth_expected(const PrismLandscapeColumn *col, uint64_t g)
{
    PrismLandscapeRow row;
    synth_row(g, &row);
    double v = 0;
    if (col->source == PRISM_LS_SOURCE_POINT)
        v = row.point;
    else if (col->source == PRISM_LS_SOURCE_COST)
        v = row.cols[col->index];
    else {
        const PrismStrategy *s = &row.strategy;
        double dims[PRISM_DIM_COUNT] = {0};
        dims[PRISM_DIM_DEVICES] = s->devices;
        dims[PRISM_DIM_DP] = s->dp;
        dims[PRISM_DIM_TP] = s->tp;
        dims[PRISM_DIM_PP] = s->pp;
        dims[PRISM_DIM_VPP] = s->vpp;
        dims[PRISM_DIM_CP] = s->cp;
        dims[PRISM_DIM_EP] = s->ep;
        dims[PRISM_DIM_SP] = s->sp;
        dims[PRISM_DIM_MBS] = s->mbs;
        dims[PRISM_DIM_M] = s->m;
        dims[PRISM_DIM_ZERO] = s->zero;
        dims[PRISM_DIM_RECOMPUTE] = s->recompute;
        dims[PRISM_DIM_RC_LAYERS] = s->rc_layers;
        dims[PRISM_DIM_SCHEDULE] = s->schedule;
        dims[PRISM_DIM_ETP] = s->etp != 0 ? s->etp : s->tp;
        dims[PRISM_DIM_FOLDING] = prism_strategy_folding(s);
        dims[PRISM_DIM_OFFLOAD] = s->offload;
        for (int d = 0; d < 3; d++)
            dims[PRISM_DIM_TP_OVERLAP + d] =
                (double)prism_strategy_dim(s, PRISM_DIM_TP_OVERLAP + d);
        v = dims[col->index];
    }
    switch (col->store) {
    case PRISM_STORE_F32:
        return (double)(float)v;
    case PRISM_STORE_U8:
        return (double)(uint8_t)v;
    case PRISM_STORE_U16:
        return (double)(uint16_t)v;
    case PRISM_STORE_U32:
        return (double)(uint32_t)v;
    case PRISM_STORE_F64:
        break;
    }
    return v;
}

/* Uneven partition: rank r's share is proportional to r + 1. */
void synth_weighted_block(uint64_t n, int rank, int size, uint64_t *lo, uint64_t *hi)
{
    uint64_t w = (uint64_t)size * (uint64_t)(size + 1) / 2;
    uint64_t before = (uint64_t)rank * (uint64_t)(rank + 1) / 2;
    *lo = n * before / w;
    *hi = n * (before + (uint64_t)rank + 1) / w;
}

/* Feed rows [lo, hi) in batches that respect segment and job boundaries. */
gboolean synth_feed(PrismRowSink *sink, uint64_t lo, uint64_t hi, GError **error)
{
    enum { MAXB = 97 };
    double lane[13][MAXB];
    double *cols = g_new0(double, (size_t)PRISM_COL_COUNT *MAXB);
    PrismCostOut out;
    for (int c = 0; c < PRISM_COL_COUNT; c++)
        out.col[c] = cols + (size_t)c * MAXB;
    gboolean ok = TRUE;
    for (uint64_t g = lo; g < hi && ok;) {
        uint64_t stop = MIN(hi, g + MAXB);
        stop = MIN(stop, (g / SEG + 1) * SEG);
        stop = MIN(stop, (g / JOB + 1) * JOB);
        size_t n = (size_t)(stop - g);
        PrismLandscapeRow row;
        PrismSegmentKey key = {0};
        for (size_t i = 0; i < n; i++) {
            synth_row(g + i, &row);
            const PrismStrategy *s = &row.strategy;
            lane[0][i] = s->tp;
            lane[1][i] = s->cp;
            lane[2][i] = s->dp;
            lane[3][i] = s->ep;
            lane[4][i] = s->sp;
            lane[5][i] = s->mbs;
            lane[6][i] = s->m;
            lane[7][i] = s->zero;
            lane[8][i] = prism_strategy_etp(s);
            lane[9][i] = prism_strategy_folding(s);
            for (int d = 0; d < 3; d++)
                lane[10 + d][i] = (double)prism_strategy_dim(s, PRISM_DIM_TP_OVERLAP + d);
            for (int c = 0; c < PRISM_COL_COUNT; c++)
                out.col[c][i] = row.cols[c];
            key = (PrismSegmentKey){s->devices,   s->pp,        s->vpp,    s->schedule,
                                    s->recompute, s->rc_layers, s->offload};
        }
        PrismLanes lanes = {lane[0], lane[1], lane[2], lane[3], lane[4],  lane[5],  lane[6],
                            lane[7], n,       lane[8], lane[9], lane[10], lane[11], lane[12],
                            NULL,    NULL,    0,       0,       NULL,     0};
        PrismRowBatch b = {g,    n,   row.point, g - (uint64_t)row.point * JOB, &key, &lanes,
                           &out, 0.0, {NULL}};
        ok = sink->rows(sink->user, &b, error);
        g = stop;
    }
    g_free(cols);
    return ok;
}

gboolean synth_write_file(PrismComm *comm, const char *path, GError **error)
{
    g_autoptr(PrismLandscapeSchema) schema = synth_schema();
    PrismLandscapeOptions o;
    prism_landscape_options_default(&o);
    o.chunk_rows = 1000;
    o.spill_rows = 333;
    o.fsync = FALSE;
    o.force = TRUE;
    g_autoptr(PrismLandscape) ls = prism_landscape_new(comm, path, schema, &o);
    prism_landscape_add_attr(ls, "objectives", "step_time,peak_mem", FALSE);
    uint64_t lo, hi;
    synth_weighted_block(TOTAL, comm->rank, comm->size, &lo, &hi);
    PrismRowSink sink = prism_landscape_sink(ls);
    if (!prism_landscape_prepare(ls, error) || !sink.begin(sink.user, TOTAL, lo, hi, error))
        return FALSE;
    GError *local = NULL;
    gboolean fed = synth_feed(&sink, lo, hi, &local);
    gboolean ended = sink.end(sink.user, fed, error);
    if (!fed) {
        g_propagate_error(error, local);
        return FALSE;
    }
    return ended && prism_landscape_finish(ls, NULL, 0, NULL, 0, error);
}
