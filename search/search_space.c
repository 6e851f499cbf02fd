// SPDX-License-Identifier: MIT
/*
 * search_space.c - enumeration of the strategy space and its stable global index
 * (rank/unrank). The layout is described in space.h; the shape rules it implements
 * are R1-R10 of strategy.h (test_space.c proves by brute force that the enumerated set
 * equals the set prism_strategy_check() accepts).
 *
 * Nothing here is collective. A built space is logically read-only. Building it counts
 * the lanes without storing them; its lane tables (the bulk of its memory) are built on
 * demand from the facts the space keeps (the model's tp rules, gbs, seq and a copy of
 * the filter), one (device count, pp) at a time, and can be dropped with
 * prism_space_release_lanes(), so many spaces can be alive while only one holds lanes.
 */
#include <prism/space.h>

#include <stdatomic.h>
#include <string.h>

#include <prism/core.h>

#include "search-internal.h"

/* Lane table columns, in PrismLanes field order. */
enum {
    LT_TP,
    LT_CP,
    LT_DP,
    LT_EP,
    LT_SP,
    LT_MBS,
    LT_M,
    LT_ZERO,
    LT_ETP,
    LT_FOLD,
    LT_TOV, /* tp_overlap, dp_overlap, param_overlap: 1 on, 0 off (R12) */
    LT_DOV,
    LT_POV,
    LT_COUNT
};

typedef struct {
    uint32_t devices, pp;
    uint32_t m_rule; /* PrismMRule (registry.h): the micro-batch counts the table admits */
    size_t n;
    double *col[LT_COUNT]; /* 64-byte aligned; NULL once released (rebuilt on demand) */
    /* the lanes' GEMM keys (PrismLanes.gkey_id): per lane the index of its (tp, cp, mbs,
     * ep, etp) among the table's distinct keys, in order of first appearance; a fresh
     * serial at every build */
    uint32_t *gkey_id;
    double *gkeys; /* [n_gkeys][5] */
    uint32_t n_gkeys;
    uint64_t gkey_serial;
    /* the lanes' static keys (PrismLanes.skey_id): (tp, cp, ep, zero, etp), numbered the
     * same way under the same serial */
    uint32_t *skey_id;
    uint32_t n_skeys;
} LaneTable;

/* What R2 needs of one layer spec: tp must divide heads and hidden_a/b (0 divides
 * nothing away: 0 % tp == 0), and with standard attention divide kv or be a multiple. */
typedef struct {
    uint64_t heads, kv, hidden_a, hidden_b;
    gboolean standard;
} TpSpec;

/* Model-derived facts the rules need, computed once and kept by the space (the model
 * itself need not outlive the space). */
typedef struct {
    TpSpec *tp_specs;
    uint32_t n_tp_specs;
    PrismBlockSpec *ssm_specs; /* the specs with a Mamba-2 or gated-DeltaNet mixer (R2, R3) */
    uint32_t n_ssm_specs;
    uint64_t gbs, seq;
    uint32_t layers;
    uint64_t expert_gcd; /* gcd of routed-expert counts; 0 = dense */
    uint64_t width_gcd;  /* gcd of routed-expert widths (R2 for etp); 0 = dense */
} Facts;

struct PrismSpace {
    uint32_t *devices;
    size_t n_devices;
    uint32_t layers;
    uint64_t gbs, seq;
    GArray *tables;        /* LaneTable */
    GArray *segs;          /* PrismSpaceSegment */
    size_t *dev_first_seg; /* n_devices + 1 */
    uint64_t size;
    Facts fx;                    /* to rebuild released lane tables */
    PrismSpaceFilter *filter;    /* copy; NULL = none */
    GArray *lane_vals[LT_COUNT]; /* distinct values of each lane column, ascending */
    PrismSpaceStopFn stop;       /* polled while the space is enumerated; NULL: never */
    void *stop_user;
    gboolean stopped; /* the hook said stop: the space is incomplete */
};

/* Poll the stop hook (between lane tables: each takes at most milliseconds to count). */
static gboolean build_stopped(PrismSpace *sp)
{
    if (!sp->stopped && sp->stop != NULL && sp->stop(sp->stop_user))
        sp->stopped = TRUE;
    return sp->stopped;
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b != 0) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The hybrid layers' R2 (cp 1) and R3 rules at (tp, cp): prism_strategy_ssm_ok. */
static gboolean ssm_valid(const Facts *fx, uint64_t tp, uint64_t cp)
{
    for (uint32_t i = 0; i < fx->n_ssm_specs; i++)
        if (!prism_strategy_ssm_ok(&fx->ssm_specs[i], (uint32_t)tp, (uint32_t)cp, NULL))
            return FALSE;
    return TRUE;
}

/* R2 for one tp (mirrors prism_strategy_check exactly). */
static gboolean tp_valid(const Facts *fx, uint64_t tp)
{
    if (!ssm_valid(fx, tp, 1))
        return FALSE;
    for (uint32_t i = 0; i < fx->n_tp_specs; i++) {
        const TpSpec *t = &fx->tp_specs[i];
        if (t->heads % tp != 0 || t->hidden_a % tp != 0 || t->hidden_b % tp != 0)
            return FALSE;
        if (t->standard && t->kv % tp != 0 && tp % t->kv != 0)
            return FALSE;
    }
    return TRUE;
}

/* The R2 facts of every spec, as prism_strategy_check reads them. */
static void facts_init(Facts *fx, const PrismModel *m, const PrismTraining *training,
                       uint32_t layers)
{
    *fx = (Facts){.gbs = training->gbs, .seq = training->seq, .layers = layers};
    fx->tp_specs = g_new0(TpSpec, m->n_specs ? m->n_specs : 1);
    fx->n_tp_specs = m->n_specs;
    fx->ssm_specs = g_new0(PrismBlockSpec, m->n_specs ? m->n_specs : 1);
    for (uint32_t i = 0; i < m->n_specs; i++)
        if (m->specs[i].mixer == PRISM_MIXER_MAMBA2 || m->specs[i].mixer == PRISM_MIXER_GDN)
            fx->ssm_specs[fx->n_ssm_specs++] = m->specs[i];
    for (uint32_t i = 0; i < m->n_specs; i++) {
        const PrismAttnSpec *a = &m->specs[i].attn;
        const PrismMlpSpec *p = &m->specs[i].mlp;
        fx->tp_specs[i] =
            (TpSpec){.heads = a->n_heads,
                     .kv = a->n_kv_heads,
                     .standard = a->kind == PRISM_ATTN_STANDARD,
                     .hidden_a = p->n_experts == 0 ? p->ffn_hidden : 0, /* experts: etp (R2) */
                     .hidden_b = p->n_experts > 0 && p->n_shared > 0 ? p->shared_hidden : 0};
        if (p->n_experts > 0) {
            fx->expert_gcd = gcd_u64(fx->expert_gcd, p->n_experts);
            fx->width_gcd = gcd_u64(fx->width_gcd, p->expert_hidden);
        }
    }
}

/* Add @p x to the ascending duplicate-free @p set. */
static void set_add(GArray *set, uint64_t x)
{
    const uint64_t *v = (const uint64_t *)(const void *)set->data;
    guint lo = 0, hi = set->len;
    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == set->len || v[lo] != x)
        g_array_insert_val(set, lo, x);
}

/* The GEMM key columns (what fixes a lane's GEMM shapes; cost.h PrismLanes.gkey_id). */
static const int gemm_key_cols[5] = {LT_TP, LT_CP, LT_MBS, LT_EP, LT_ETP};
/* The static key columns: what fixes a lane's parameter, gradient and optimizer bytes within
 * a segment (dp follows from tp and cp in a lane table; cost.h PrismLanes.skey_id). */
static const int static_key_cols[5] = {LT_TP, LT_CP, LT_EP, LT_ZERO, LT_ETP};

static gboolean key_equal(const double *x, const double *y)
{
    return x[0] == y[0] && x[1] == y[1] && x[2] == y[2] && x[3] == y[3] && x[4] == y[4];
}

static uint64_t key_hash(const double *k)
{
    uint64_t h = 0x9e3779b97f4a7c15u;
    for (int j = 0; j < 5; j++) {
        uint64_t b;
        memcpy(&b, &k[j], sizeof b);
        h = (h ^ b) * 0xff51afd7ed558ccdu;
        h ^= h >> 29;
    }
    return h;
}

/* Number the distinct keys (the columns @p cols) of the built table @p t in order of first
 * appearance: per lane its id into @p id_out, and the keys themselves into @p keys_out when
 * it is non-NULL. Returns the number of keys. Open addressing over the ids. */
static uint32_t number_keys(const LaneTable *t, const int cols[5], uint32_t **id_out,
                            double **keys_out)
{
    g_autoptr(GArray) keys = g_array_new(FALSE, FALSE, sizeof(double));
    size_t cap = 64;
    uint32_t *slot = g_new0(uint32_t, cap); /* id + 1, 0 = empty */
    uint32_t *lane_id = g_new(uint32_t, t->n ? t->n : 1);
    uint32_t id = 0;
    for (size_t i = 0; i < t->n; i++) {
        double k[5];
        for (int j = 0; j < 5; j++)
            k[j] = t->col[cols[j]][i];
        /* runs of equal keys are common (the lane order), so compare with the last first */
        if (i > 0 && key_equal(k, &g_array_index(keys, double, 5 * (size_t)id))) {
            lane_id[i] = id;
            continue;
        }
        size_t h = (size_t)key_hash(k) & (cap - 1);
        while (slot[h] != 0 &&
               !key_equal(k, &g_array_index(keys, double, 5 * (size_t)(slot[h] - 1))))
            h = (h + 1) & (cap - 1);
        if (slot[h] != 0) {
            id = slot[h] - 1;
        } else {
            id = keys->len / 5;
            g_array_append_vals(keys, k, 5);
            slot[h] = id + 1;
            if (2 * (size_t)(id + 1) > cap) { /* keep the load under a half */
                g_free(slot);
                cap *= 2;
                slot = g_new0(uint32_t, cap);
                for (uint32_t e = 0; e <= id; e++) {
                    size_t x =
                        (size_t)key_hash(&g_array_index(keys, double, 5 * (size_t)e)) & (cap - 1);
                    while (slot[x] != 0)
                        x = (x + 1) & (cap - 1);
                    slot[x] = e + 1;
                }
            }
        }
        lane_id[i] = id;
    }
    g_free(slot);
    const uint32_t n_keys = keys->len / 5;
    *id_out = lane_id;
    if (keys_out != NULL)
        *keys_out = (double *)(void *)g_array_free(g_steal_pointer(&keys), FALSE);
    return n_keys;
}

/* Number the GEMM keys and the static keys of the built table @p t (cost.h
 * PrismLanes.gkey_id, skey_id) under a fresh serial. */
static void number_lane_keys(LaneTable *t)
{
    static atomic_uint_fast64_t serials;
    t->n_gkeys = number_keys(t, gemm_key_cols, &t->gkey_id, &t->gkeys);
    t->n_skeys = number_keys(t, static_key_cols, &t->skey_id, NULL);
    t->gkey_serial = atomic_fetch_add(&serials, 1) + 1;
}

/* Free a table's columns and key ids (it is rebuilt on demand). */
static void table_clear(LaneTable *t)
{
    for (int c = 0; c < LT_COUNT; c++)
        g_clear_pointer(&t->col[c], prism_aligned_free);
    g_clear_pointer(&t->gkey_id, g_free);
    g_clear_pointer(&t->gkeys, g_free);
    g_clear_pointer(&t->skey_id, g_free);
    t->n_gkeys = 0;
    t->n_skeys = 0;
}

#define ACCEPT(dim, v) prism_space_filter_accepts_internal(filter, (dim), (v))

/* Column builder for one lane table. Without columns (col[0] == NULL) it only counts the
 * lanes and collects each column's distinct values (the set-up of a space: no lane is
 * stored, so its memory does not grow with the rows); with them it writes the lanes into
 * columns of the count the set-up found (cap), in place. */
typedef struct {
    double *col[LT_COUNT]; /* cap doubles each; all NULL when counting only */
    size_t n, cap;
    GArray *const *vals; /* distinct values per column, or NULL */
    double prev[LT_COUNT];
} LaneBuilder;

static void lane_push(LaneBuilder *b, const double v[LT_COUNT])
{
    g_assert(b->col[0] == NULL || b->n < b->cap);
    for (int c = 0; c < LT_COUNT; c++) {
        if (b->col[c] != NULL)
            b->col[c][b->n] = v[c];
        if (b->vals != NULL && (b->n == 0 || v[c] != b->prev[c]))
            set_add(b->vals[c], (uint64_t)v[c]);
        b->prev[c] = v[c];
    }
    b->n++;
}

/* Every lane valid for (N, pp, R8 rule) that passes the lane filters, in index order
 * (tp, cp, ep, sp, mbs, zero, etp, tp_overlap, dp_overlap, param_overlap ascending). Rules: R1 (dp
 * derived), R2, R3, R4, R5, R8, R9. etp: a dense model has etp = tp only; a MoE model every etp
 * dividing the expert widths (R2) with etp*ep dividing tp*cp*dp (R5). folding is derived
 * (strategy.h). With @p store the table's columns are filled, otherwise only t->n (and @p vals). */
static void build_lanes(const Facts *fx, const PrismSpaceFilter *filter, LaneTable *t,
                        GArray *const *vals, gboolean store)
{
    LaneBuilder b = {.vals = vals};
    /* the registry's domains of the two lane dims that are no divisors */
    const PrismDimInfo *sp_dom = prism_dim_info(PRISM_DIM_SP),
                       *zero_dom = prism_dim_info(PRISM_DIM_ZERO);
    /* storing: the set-up counted the lanes (t->n) */
    b.cap = store ? t->n : 0;
    for (int c = 0; c < LT_COUNT && store; c++)
        b.col[c] = prism_aligned_new(b.cap ? b.cap : 1, sizeof(double));
    uint64_t per_pp = t->devices / t->pp;
    size_t n_tp = 0;
    g_autofree uint64_t *tps = prism_divisors_internal(per_pp, &n_tp);
    for (size_t i = 0; i < n_tp; i++) {
        uint64_t tp = tps[i];
        if (!tp_valid(fx, tp) || !ACCEPT(PRISM_DIM_TP, tp))
            continue;
        size_t n_cp = 0;
        g_autofree uint64_t *cps = prism_divisors_internal(per_pp / tp, &n_cp);
        for (size_t j = 0; j < n_cp; j++) {
            uint64_t cp = cps[j];
            if (cp > 1 && (fx->seq % (2 * cp) != 0 || !ssm_valid(fx, tp, cp))) /* R3 */
                continue;
            uint64_t dp = per_pp / tp / cp; /* R1 */
            if (!ACCEPT(PRISM_DIM_CP, cp) || !ACCEPT(PRISM_DIM_DP, dp))
                continue;
            if (fx->gbs % dp != 0) /* R8: gbs = dp*mbs*m */
                continue;
            uint64_t per_dp = fx->gbs / dp;
            size_t n_ep = 1, n_mbs = 0;
            uint64_t one = 1;
            g_autofree uint64_t *eps =
                fx->expert_gcd ? prism_divisors_internal(fx->expert_gcd, &n_ep) : NULL;
            g_autofree uint64_t *mbss = prism_divisors_internal(per_dp, &n_mbs);
            size_t n_etp = 1;
            g_autofree uint64_t *etps =
                fx->width_gcd ? prism_divisors_internal(gcd_u64(per_pp, fx->width_gcd), &n_etp)
                              : NULL;
            for (size_t e = 0; e < n_ep; e++) {
                uint64_t ep = eps ? eps[e] : one;                  /* R5 */
                if (per_pp % ep != 0 || !ACCEPT(PRISM_DIM_EP, ep)) /* R5 */
                    continue;
                for (uint64_t sp = sp_dom->lo; sp <= sp_dom->hi; sp++) {
                    if (!prism_strategy_sp_ok((uint32_t)sp, (uint32_t)tp, (uint32_t)cp, fx->seq,
                                              NULL)) /* R4 */
                        continue;
                    if (!ACCEPT(PRISM_DIM_SP, sp) ||
                        !prism_space_filter_default_internal(filter, PRISM_DIM_SP, sp, tp > 1))
                        continue;
                    for (size_t k = 0; k < n_mbs; k++) {
                        uint64_t mbs = mbss[k], m = per_dp / mbs;
                        if (!prism_schedule_m_ok((PrismMRule)t->m_rule, m, t->pp)) /* R8 */
                            continue;
                        if (!ACCEPT(PRISM_DIM_MBS, mbs) || !ACCEPT(PRISM_DIM_M, m))
                            continue;
                        for (uint64_t z = zero_dom->lo; z <= zero_dom->hi; z++) {
                            if (!prism_strategy_zero_ok((uint32_t)z, dp * cp, NULL)) /* R9 */
                                continue;
                            if (!ACCEPT(PRISM_DIM_ZERO, z) ||
                                !prism_space_filter_default_internal(filter, PRISM_DIM_ZERO, z,
                                                                     dp * cp > 1) ||
                                !prism_space_filter_cp_shards_internal(filter, cp, z))
                                continue;
                            for (size_t x = 0; x < n_etp; x++) {
                                const uint64_t etp = etps ? etps[x] : tp;
                                if (per_pp % (etp * ep) != 0) /* R5 */
                                    continue;
                                const uint64_t fold = etp == tp && (dp * cp) % ep == 0 ? 0 : 1;
                                if (!ACCEPT(PRISM_DIM_ETP, etp) || !ACCEPT(PRISM_DIM_FOLDING, fold))
                                    continue;
                                /* R12: an overlap option is searched (0 off, 1 on) where it
                                 * applies; elsewhere it is blank, 1, and no filter sees it */
                                const gboolean a_tp = tp > 1 && sp == 1;
                                const gboolean a_dp = dp * cp > 1 && z < 3;
                                const gboolean a_pg = dp * cp > 1 && (z == 1 || z == 2);
                                for (uint64_t to = a_tp ? 0 : 1; to <= 1; to++) {
                                    if (a_tp && !ACCEPT(PRISM_DIM_TP_OVERLAP, to))
                                        continue;
                                    for (uint64_t dov = a_dp ? 0 : 1; dov <= 1; dov++) {
                                        if (a_dp && !ACCEPT(PRISM_DIM_DP_OVERLAP, dov))
                                            continue;
                                        for (uint64_t po = a_pg ? 0 : 1; po <= 1; po++) {
                                            if (a_pg && !ACCEPT(PRISM_DIM_PARAM_OVERLAP, po))
                                                continue;
                                            const double v[LT_COUNT] = {
                                                [LT_TP] = (double)tp,   [LT_CP] = (double)cp,
                                                [LT_DP] = (double)dp,   [LT_EP] = (double)ep,
                                                [LT_SP] = (double)sp,   [LT_MBS] = (double)mbs,
                                                [LT_M] = (double)m,     [LT_ZERO] = (double)z,
                                                [LT_ETP] = (double)etp, [LT_FOLD] = (double)fold,
                                                [LT_TOV] = (double)to,  [LT_DOV] = (double)dov,
                                                [LT_POV] = (double)po};
                                            lane_push(&b, v);
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    g_assert(!store || b.n == b.cap);
    t->n = b.n;
    for (int c = 0; c < LT_COUNT && store; c++)
        t->col[c] = b.col[c];
}

/* Free the lane tables of every (device count, pp) but @p devices x @p pp (0: of all). */
static void release_tables(const PrismSpace *sp, uint32_t devices, uint32_t pp)
{
    for (guint i = 0; i < sp->tables->len; i++) {
        LaneTable *t = &g_array_index(sp->tables, LaneTable, i);
        if (t->devices != devices || t->pp != pp)
            table_clear(t);
    }
}

/* The lane table @p t of @p sp, built on first use (a space is set up by counting its
 * lanes only). A space is logically read-only: building gives the same lanes in the
 * same order every time. At most the tables of one (device count, pp) are held at a
 * time, at most five (one per R8 rule): building one frees the others. The segments
 * are ordered by device count, then pp, so a walk in index order builds each table
 * once. */
static const LaneTable *lane_table(const PrismSpace *sp, uint32_t t)
{
    LaneTable *lt = &g_array_index(sp->tables, LaneTable, t);
    if (lt->col[0] == NULL) {
        release_tables(sp, lt->devices, lt->pp);
        build_lanes(&sp->fx, sp->filter, lt, NULL, TRUE); /* as many lanes as counted */
    }
    return lt;
}

void prism_space_release_lanes(const PrismSpace *sp)
{
    release_tables(sp, 0, 0);
}

static void add_segment_off(PrismSpace *sp, uint32_t n, uint32_t pp, uint32_t vpp,
                            PrismSchedule sch, PrismRecompute rc, uint32_t k, uint32_t off,
                            uint32_t table)
{
    const LaneTable *t = &g_array_index(sp->tables, LaneTable, table);
    /* zeroed first, then set member by member: an initializer leaves the padding bytes
     * (after the key and the table id) unspecified, and the segments are compared and
     * copied as bytes (test_space compares two enumerations with memcmp; the sanitizer
     * build left stack garbage there) */
    PrismSpaceSegment seg;
    memset(&seg, 0, sizeof seg);
    seg.key.devices = n;
    seg.key.pp = pp;
    seg.key.vpp = vpp;
    seg.key.schedule = (uint8_t)sch;
    seg.key.recompute = (uint8_t)rc;
    seg.key.rc_layers = (uint16_t)k;
    seg.key.offload = (uint8_t)off;
    seg.first = sp->size;
    seg.count = t->n;
    seg.table = table;
    g_array_append_val(sp->segs, seg);
    sp->size += t->n;
}

/* Segments of one (N, pp, vpp, schedule, recompute, k): every offload the filter admits
 * (R11; without a filter on offload its default domain {0, 1}), innermost key. */
static void add_segment(PrismSpace *sp, const PrismSpaceFilter *filter, uint32_t n, uint32_t pp,
                        uint32_t vpp, PrismSchedule sch, PrismRecompute rc, uint32_t k,
                        uint32_t table)
{
    for (uint32_t off = 0; off < PRISM_OFFLOAD_COUNT; off++)
        if (ACCEPT(PRISM_DIM_OFFLOAD, off))
            add_segment_off(sp, n, pp, vpp, sch, rc, k, off, table);
}

/* Segments of one (N, pp, vpp, schedule): every recompute mode allowed (R10). */
static void add_recompute_segments(PrismSpace *sp, const PrismSpaceFilter *filter, uint32_t n,
                                   uint32_t pp, uint32_t vpp, PrismSchedule sch, uint32_t table)
{
    uint32_t chunks = pp * vpp, per_chunk = (sp->layers + chunks - 1) / chunks;
    for (int rc = 0; rc < PRISM_RECOMPUTE_BLOCK; rc++)
        if (ACCEPT(PRISM_DIM_RECOMPUTE, PRISM_RC_CODE(rc, 0)))
            add_segment(sp, filter, n, pp, vpp, (PrismSchedule)sch, (PrismRecompute)rc, 0, table);
    const gboolean nth = prism_space_filter_every_nth_internal(filter);
    for (uint32_t k = 1; k < per_chunk && k <= G_MAXUINT16; k++)
        if (ACCEPT(PRISM_DIM_RECOMPUTE, PRISM_RC_CODE(PRISM_RECOMPUTE_BLOCK, k)) &&
            ACCEPT(PRISM_DIM_RC_LAYERS, k) &&
            (!nth || prism_recompute_every_nth(per_chunk, vpp, k) != 0))
            add_segment(sp, filter, n, pp, vpp, sch, PRISM_RECOMPUTE_BLOCK, k, table);
}

/* Lane table id for (N, pp, R8 rule), building it on first use. */
static uint32_t table_for(PrismSpace *sp, const Facts *fx, const PrismSpaceFilter *filter,
                          uint32_t n, uint32_t pp, uint32_t m_rule, GHashTable *ids)
{
    uint64_t key = ((uint64_t)pp << 3) | m_rule;
    gpointer val;
    if (g_hash_table_lookup_extended(ids, &key, NULL, &val))
        return GPOINTER_TO_UINT(val);
    LaneTable t = {.devices = n, .pp = pp, .m_rule = m_rule};
    build_lanes(fx, filter, &t, sp->lane_vals, FALSE); /* counted, not stored */
    g_array_append_val(sp->tables, t);
    uint32_t id = sp->tables->len - 1;
    g_hash_table_insert(ids, g_memdup2(&key, sizeof key), GUINT_TO_POINTER(id));
    return id;
}

/* The segments of (n, pp, vpp): every schedule the registry allows there (R7), in code
 * order, with the lane table of its micro-batch rule (R8). */
static void add_schedule_segments(PrismSpace *sp, const Facts *fx, const PrismSpaceFilter *filter,
                                  uint32_t n, uint32_t pp, uint32_t vpp, GHashTable *ids)
{
    for (uint32_t sch = 0; sch < PRISM_SCHEDULE_COUNT; sch++) {
        const PrismScheduleInfo *si = prism_schedule_info(sch);
        const gboolean vpp_ok = si->vpp == PRISM_VPP_ONE    ? vpp == 1
                                : si->vpp == PRISM_VPP_MANY ? vpp > 1
                                                            : vpp == 2;
        if (!vpp_ok || (pp == 1 && !si->single_stage) || (si->pp_even && pp % 2 != 0) ||
            !ACCEPT(PRISM_DIM_SCHEDULE, sch))
            continue;
        uint32_t t = table_for(sp, fx, filter, n, pp, si->m, ids);
        if (g_array_index(sp->tables, LaneTable, t).n > 0)
            add_recompute_segments(sp, filter, n, pp, vpp, (PrismSchedule)sch, t);
    }
}

/* Segments of one device count, in key order (pp, vpp, schedule, recompute, k, offload).
 * R6, R7, R11. */
static void build_device(PrismSpace *sp, const Facts *fx, const PrismSpaceFilter *filter,
                         uint32_t n)
{
    g_autoptr(GHashTable) ids = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    size_t n_pp = 0;
    g_autofree uint64_t *pps = prism_divisors_internal(n, &n_pp);
    /* the framework's equal model chunks: pp*vpp divides the layers */
    const uint32_t U = prism_space_filter_uniform_internal(filter) ? sp->layers : 0;
    for (size_t i = 0; i < n_pp && !build_stopped(sp); i++) {
        uint32_t pp = (uint32_t)pps[i];
        if (pp > sp->layers || !ACCEPT(PRISM_DIM_PP, pp) || (U != 0 && U % pp != 0))
            continue;
        /* vpp = 1: the schedules of one chunk per device (R7: only single_stage ones at
         * pp = 1; pp_even ones at even pp). Schedule codes ascend, so segments stay in key
         * order. */
        if (ACCEPT(PRISM_DIM_VPP, 1))
            add_schedule_segments(sp, fx, filter, n, pp, 1, ids);
        /* vpp > 1: pp > 1, pp*vpp <= L, vpp <= PRISM_VPP_MAX; the schedules of many chunks
         * at every vpp (interleaved: m a multiple of pp), and at vpp = 2 also the V
         * schedules (ZB-V, DualPipeV: m >= 2pp). */
        if (pp == 1)
            continue;
        for (uint32_t vpp = 2; (uint64_t)pp * vpp <= sp->layers && vpp <= PRISM_VPP_MAX; vpp++) {
            if (build_stopped(sp))
                break;
            if (!ACCEPT(PRISM_DIM_VPP, vpp) || (U != 0 && U % (pp * vpp) != 0))
                continue;
            add_schedule_segments(sp, fx, filter, n, pp, vpp, ids);
        }
    }
}

static PrismSpace *space_build(const PrismModel *model, const PrismTraining *training,
                               const uint32_t *devices, size_t n_devices,
                               const PrismSpaceFilter *filter, PrismSpaceStopFn stop,
                               void *stop_user)
{
    PrismSpace *sp = g_new0(PrismSpace, 1);
    sp->stop = stop;
    sp->stop_user = stop_user;
    sp->devices = g_memdup2(devices, n_devices * sizeof(uint32_t));
    sp->n_devices = n_devices;
    sp->layers = prism_model_split_layers(model);
    sp->gbs = training->gbs;
    sp->seq = training->seq;
    sp->tables = g_array_new(FALSE, FALSE, sizeof(LaneTable));
    sp->segs = g_array_new(FALSE, FALSE, sizeof(PrismSpaceSegment));
    sp->dev_first_seg = g_new0(size_t, n_devices + 1);
    facts_init(&sp->fx, model, training, sp->layers);
    sp->filter = filter ? prism_space_filter_copy(filter) : NULL;
    for (int c = 0; c < LT_COUNT; c++)
        sp->lane_vals[c] = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    for (size_t d = 0; d < n_devices; d++) {
        sp->dev_first_seg[d] = sp->segs->len;
        if (ACCEPT(PRISM_DIM_DEVICES, devices[d]) && !build_stopped(sp))
            build_device(sp, &sp->fx, filter, devices[d]);
    }
    sp->stop = NULL; /* the hook is the caller's for this call only */
    sp->dev_first_seg[n_devices] = sp->segs->len;
    return sp;
}

void prism_space_free(PrismSpace *sp)
{
    if (sp == NULL)
        return;
    for (guint i = 0; i < sp->tables->len; i++)
        table_clear(&g_array_index(sp->tables, LaneTable, i));
    for (int c = 0; c < LT_COUNT; c++)
        g_array_unref(sp->lane_vals[c]);
    g_free(sp->fx.tp_specs);
    g_free(sp->fx.ssm_specs);
    g_clear_pointer(&sp->filter, prism_space_filter_free);
    g_array_unref(sp->tables);
    g_array_unref(sp->segs);
    g_free(sp->dev_first_seg);
    g_free(sp->devices);
    g_free(sp);
}

/* Why is the space empty? Sets an INFEASIBLE error naming the culprit. */
static void explain_empty(const PrismModel *model, const PrismTraining *training,
                          const uint32_t *devices, size_t n_devices, const PrismSpaceFilter *filter,
                          GError **error)
{
    g_autofree uint64_t *dv = g_new(uint64_t, n_devices);
    for (size_t i = 0; i < n_devices; i++)
        dv[i] = devices[i];
    g_autofree char *devs = prism_space_values_compact(PRISM_DIM_DEVICES, dv, n_devices, 60);
    g_autoptr(PrismSpace) all = space_build(model, training, devices, n_devices, NULL, NULL, NULL);
    if (all->size == 0) {
        /* Show the rule the simplest split (pure data parallelism) breaks. */
        PrismStrategy s = {
            .devices = devices[0],
            .dp = devices[0],
            .tp = 1,
            .pp = 1,
            .vpp = 1,
            .cp = 1,
            .ep = 1,
            .mbs = 1,
            .m = training->gbs % devices[0] == 0 ? (uint32_t)(training->gbs / devices[0]) : 1};
        GError *why = NULL;
        (void)prism_strategy_check(&s, model, training, &why);
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_INFEASIBLE,
                    "no valid strategy for %s on %s devices with gbs=%" G_GUINT64_FORMAT
                    ", seq=%" G_GUINT64_FORMAT
                    ": every split breaks a shape rule of strategy.h (for example dp=%u,tp=1,"
                    "pp=1: %s); try other --devices or --gbs",
                    model->name, devs, training->gbs, training->seq, devices[0],
                    why ? why->message : "rejected");
        g_clear_error(&why);
        return;
    }
    for (int d = 0; d < PRISM_DIM_COUNT; d++) {
        if (!prism_space_filter_restricts(filter, (PrismDim)d))
            continue;
        size_t n = 0;
        g_autofree uint64_t *vals = prism_space_dim_values(all, (PrismDim)d, &n);
        gboolean any = FALSE;
        if (d == PRISM_DIM_RECOMPUTE || d == PRISM_DIM_RC_LAYERS) {
            size_t ns = 0;
            const PrismSpaceSegment *segs = prism_space_segments(all, &ns);
            for (size_t i = 0; i < ns && !any; i++) {
                const PrismSegmentKey *k = &segs[i].key;
                any =
                    d == PRISM_DIM_RECOMPUTE
                        ? prism_space_filter_accepts_internal(
                              filter, (PrismDim)d, PRISM_RC_CODE(k->recompute, k->rc_layers))
                        : (k->recompute != PRISM_RECOMPUTE_BLOCK ||
                           prism_space_filter_accepts_internal(filter, (PrismDim)d, k->rc_layers));
            }
        } else {
            for (size_t i = 0; i < n && !any; i++)
                any = prism_space_filter_accepts_internal(filter, (PrismDim)d, vals[i]);
        }
        if (!any) {
            g_autofree char *valid = prism_space_values_compact((PrismDim)d, vals, n, 60);
            g_autofree char *desc = prism_space_filter_describe(filter);
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_INFEASIBLE,
                        "the filters (%s) exclude every valid value of %s: the valid values "
                        "for %s on %s devices are %s",
                        desc, prism_dim_name((PrismDim)d), model->name, devs, valid);
            return;
        }
    }
    g_autofree char *desc = prism_space_filter_describe(filter);
    if (prism_space_filter_uniform_internal(filter)) {
        /* the framework's equal chunks may be what empties it */
        g_autoptr(PrismSpaceFilter) uneven = prism_space_filter_copy(filter);
        prism_space_filter_set_uniform_chunks(uneven, FALSE);
        g_autoptr(PrismSpace) u =
            space_build(model, training, devices, n_devices, uneven, NULL, NULL);
        if (u->size > 0) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_INFEASIBLE,
                        "the filters (%s) leave no valid strategy with equal model chunks: "
                        "the framework needs pp*vpp to divide the %u layers of %s, and none of "
                        "the %" G_GUINT64_FORMAT " strategies the other filters allow does",
                        desc, prism_model_split_layers(model), model->name, u->size);
            return;
        }
    }
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_INFEASIBLE,
                "the filters (%s) together leave no valid strategy (each dimension alone has "
                "valid values; the shape rules R1-R10 of strategy.h rule out the combination; "
                "`prism plan --count` without the filters shows the valid values)",
                desc);
}

PrismSpace *prism_space_new(const PrismModel *model, const PrismTraining *training,
                            const uint32_t *devices, size_t n_devices,
                            const PrismSpaceFilter *filter, GError **error)
{
    return prism_space_new_stoppable(model, training, devices, n_devices, filter, NULL, NULL,
                                     error);
}

PrismSpace *prism_space_new_stoppable(const PrismModel *model, const PrismTraining *training,
                                      const uint32_t *devices, size_t n_devices,
                                      const PrismSpaceFilter *filter, PrismSpaceStopFn stop,
                                      void *stop_user, GError **error)
{
    g_return_val_if_fail(model != NULL && training != NULL, NULL);
    if (n_devices == 0 || devices == NULL) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE, "the device list is empty");
        return NULL;
    }
    for (size_t i = 0; i < n_devices; i++)
        if (devices[i] == 0 || (i > 0 && devices[i] <= devices[i - 1])) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                        "device counts must be >= 1, ascending and unique (got %u at "
                        "position %zu)",
                        devices[i], i + 1);
            return NULL;
        }
    if (training->gbs == 0 || training->seq == 0) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE, "gbs and seq must be >= 1");
        return NULL;
    }
    /* an overlap dim whose filter admits no value the framework offers (R12: 1 always, 0
     * where the framework can turn the option off) */
    for (int d = PRISM_DIM_TP_OVERLAP; d <= PRISM_DIM_PARAM_OVERLAP; d++)
        if (prism_space_filter_restricts(filter, (PrismDim)d) &&
            !prism_space_filter_accepts_internal(filter, (PrismDim)d, 0) &&
            !prism_space_filter_accepts_internal(filter, (PrismDim)d, 1)) {
            g_autofree char *desc = prism_space_filter_describe(filter);
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_INFEASIBLE,
                        "the filters (%s) exclude every value of %s: it takes only 1 (on) "
                        "here, because no --framework profile whose [planning] overlap lists "
                        "the option allows turning it off",
                        desc, prism_dim_name((PrismDim)d));
            return NULL;
        }
    PrismSpace *sp = space_build(model, training, devices, n_devices, filter, stop, stop_user);
    if (sp->stopped) {
        g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERRUPTED,
                    "interrupted while enumerating the strategy space");
        prism_space_free(sp);
        return NULL;
    }
    if (sp->size == 0) {
        explain_empty(model, training, devices, n_devices, filter, error);
        prism_space_free(sp);
        return NULL;
    }
    return sp;
}

uint64_t prism_space_size(const PrismSpace *sp)
{
    return sp->size;
}

const PrismSpaceSegment *prism_space_segments(const PrismSpace *sp, size_t *n)
{
    *n = sp->segs->len;
    return (const PrismSpaceSegment *)(const void *)sp->segs->data;
}

size_t prism_space_find_segment(const PrismSpace *sp, uint64_t index)
{
    const PrismSpaceSegment *s = (const PrismSpaceSegment *)(const void *)sp->segs->data;
    size_t lo = 0, hi = sp->segs->len; /* invariant: s[lo].first <= index < s[hi].first */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid].first <= index)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

void prism_space_lanes(const PrismSpace *sp, size_t seg, uint64_t lane, size_t n, PrismLanes *out)
{
    const PrismSpaceSegment *s = &g_array_index(sp->segs, PrismSpaceSegment, seg);
    g_assert(lane + n <= s->count);
    LaneTable *t = (LaneTable *)lane_table(sp, s->table);
    /* the GEMM key ids, numbered on the first evaluation only (_unrank and _rank, which
     * may rebuild tables often, never need them); prism_space_lanes runs on one thread
     * while a table is built (the search builds them before its threads start) */
    if (t->gkey_id == NULL)
        number_lane_keys(t);
    out->tp = t->col[LT_TP] + lane;
    out->cp = t->col[LT_CP] + lane;
    out->dp = t->col[LT_DP] + lane;
    out->ep = t->col[LT_EP] + lane;
    out->sp = t->col[LT_SP] + lane;
    out->mbs = t->col[LT_MBS] + lane;
    out->m = t->col[LT_M] + lane;
    out->zero = t->col[LT_ZERO] + lane;
    out->n = n;
    out->etp = t->col[LT_ETP] + lane;
    out->fold = t->col[LT_FOLD] + lane;
    out->tp_ov = t->col[LT_TOV] + lane;
    out->dp_ov = t->col[LT_DOV] + lane;
    out->param_ov = t->col[LT_POV] + lane;
    out->gkey_id = t->gkey_id + lane;
    out->gkeys = t->gkeys;
    out->n_gkeys = t->n_gkeys;
    out->gkey_serial = t->gkey_serial;
    out->skey_id = t->skey_id + lane;
    out->n_skeys = t->n_skeys;
}

size_t prism_space_n_tables(const PrismSpace *sp)
{
    return sp->tables->len;
}

size_t prism_space_table_size(const PrismSpace *sp, size_t t)
{
    return g_array_index(sp->tables, LaneTable, t).n;
}

gboolean prism_space_unrank(const PrismSpace *sp, uint64_t index, PrismStrategy *out)
{
    if (index >= sp->size)
        return FALSE;
    size_t si = prism_space_find_segment(sp, index);
    const PrismSpaceSegment *s = &g_array_index(sp->segs, PrismSpaceSegment, si);
    const LaneTable *t = lane_table(sp, s->table);
    size_t l = (size_t)(index - s->first);
    *out = (PrismStrategy){
        .devices = s->key.devices,
        .pp = s->key.pp,
        .vpp = s->key.vpp,
        .schedule = s->key.schedule,
        .recompute = s->key.recompute,
        .rc_layers = s->key.rc_layers,
        .offload = s->key.offload,
        .tp = (uint32_t)t->col[LT_TP][l],
        .cp = (uint32_t)t->col[LT_CP][l],
        .dp = (uint32_t)t->col[LT_DP][l],
        .ep = (uint32_t)t->col[LT_EP][l],
        .sp = (uint8_t)t->col[LT_SP][l],
        .mbs = (uint32_t)t->col[LT_MBS][l],
        .m = (uint32_t)t->col[LT_M][l],
        .zero = (uint8_t)t->col[LT_ZERO][l],
        .etp = (uint32_t)t->col[LT_ETP][l],
        .overlap_off = (uint8_t)((t->col[LT_TOV][l] == 0.0 ? PRISM_OVERLAP_TP : 0) |
                                 (t->col[LT_DOV][l] == 0.0 ? PRISM_OVERLAP_DP : 0) |
                                 (t->col[LT_POV][l] == 0.0 ? PRISM_OVERLAP_PARAM : 0)),
    };
    return TRUE;
}

static int key_cmp(const PrismSegmentKey *a, const PrismSegmentKey *b)
{
    const uint32_t x[6] = {a->pp, a->vpp, a->schedule, a->recompute, a->rc_layers, a->offload};
    const uint32_t y[6] = {b->pp, b->vpp, b->schedule, b->recompute, b->rc_layers, b->offload};
    for (int i = 0; i < 6; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

static int lane_cmp(const LaneTable *t, size_t l, const double want[10])
{
    static const int cols[10] = {LT_TP,   LT_CP,  LT_EP,  LT_SP,  LT_MBS,
                                 LT_ZERO, LT_ETP, LT_TOV, LT_DOV, LT_POV};
    for (int i = 0; i < 10; i++) {
        double v = t->col[cols[i]][l];
        if (v != want[i])
            return v < want[i] ? -1 : 1;
    }
    return 0;
}

gboolean prism_space_rank(const PrismSpace *sp, const PrismStrategy *s, uint64_t *index)
{
    /* device count */
    size_t lo = 0, hi = sp->n_devices;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sp->devices[mid] < s->devices)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == sp->n_devices || sp->devices[lo] != s->devices)
        return FALSE;
    /* segment: binary search of the key among this device count's segments */
    const PrismSpaceSegment *segs = (const PrismSpaceSegment *)(const void *)sp->segs->data;
    PrismSegmentKey want = prism_segment_key_of(s);
    size_t a = sp->dev_first_seg[lo], b = sp->dev_first_seg[lo + 1];
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (key_cmp(&segs[mid].key, &want) < 0)
            a = mid + 1;
        else
            b = mid;
    }
    if (a == sp->dev_first_seg[lo + 1] || key_cmp(&segs[a].key, &want) != 0)
        return FALSE;
    const PrismSpaceSegment *seg = &segs[a];
    const LaneTable *t = lane_table(sp, seg->table);
    const double lane[10] = {s->tp,
                             s->cp,
                             s->ep,
                             s->sp,
                             s->mbs,
                             s->zero,
                             prism_strategy_etp(s),
                             (double)prism_strategy_dim(s, PRISM_DIM_TP_OVERLAP),
                             (double)prism_strategy_dim(s, PRISM_DIM_DP_OVERLAP),
                             (double)prism_strategy_dim(s, PRISM_DIM_PARAM_OVERLAP)};
    size_t x = 0, y = t->n;
    while (x < y) {
        size_t mid = x + (y - x) / 2;
        if (lane_cmp(t, mid, lane) < 0)
            x = mid + 1;
        else
            y = mid;
    }
    if (x == t->n || lane_cmp(t, x, lane) != 0)
        return FALSE;
    /* the derived dims must match too */
    if (t->col[LT_DP][x] != (double)s->dp || t->col[LT_M][x] != (double)s->m)
        return FALSE;
    *index = seg->first + x;
    return TRUE;
}

static gint cmp_u64(gconstpointer a, gconstpointer b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

uint64_t *prism_space_dim_values(const PrismSpace *sp, PrismDim dim, size_t *n)
{
    GArray *v = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    static const int lane_col[PRISM_DIM_COUNT] = {[PRISM_DIM_TP] = LT_TP,
                                                  [PRISM_DIM_CP] = LT_CP,
                                                  [PRISM_DIM_DP] = LT_DP,
                                                  [PRISM_DIM_EP] = LT_EP,
                                                  [PRISM_DIM_SP] = LT_SP,
                                                  [PRISM_DIM_MBS] = LT_MBS,
                                                  [PRISM_DIM_M] = LT_M,
                                                  [PRISM_DIM_ZERO] = LT_ZERO,
                                                  [PRISM_DIM_ETP] = LT_ETP,
                                                  [PRISM_DIM_FOLDING] = LT_FOLD,
                                                  [PRISM_DIM_TP_OVERLAP] = LT_TOV,
                                                  [PRISM_DIM_DP_OVERLAP] = LT_DOV,
                                                  [PRISM_DIM_PARAM_OVERLAP] = LT_POV};
    if (dim == PRISM_DIM_DEVICES) {
        /* only device counts that have strategies */
        for (size_t d = 0; d < sp->n_devices; d++)
            if (sp->dev_first_seg[d + 1] > sp->dev_first_seg[d]) {
                uint64_t x = sp->devices[d];
                g_array_append_val(v, x);
            }
    } else if (dim <= PRISM_DIM_RC_LAYERS || dim == PRISM_DIM_OFFLOAD) {
        for (guint i = 0; i < sp->segs->len; i++) {
            const PrismSegmentKey *k = &g_array_index(sp->segs, PrismSpaceSegment, i).key;
            uint64_t x = dim == PRISM_DIM_PP          ? k->pp
                         : dim == PRISM_DIM_VPP       ? k->vpp
                         : dim == PRISM_DIM_SCHEDULE  ? k->schedule
                         : dim == PRISM_DIM_RECOMPUTE ? k->recompute
                         : dim == PRISM_DIM_OFFLOAD   ? k->offload
                                                      : k->rc_layers;
            g_array_append_val(v, x);
        }
    } else {
        /* collected while the tables were built: no walk over the lanes */
        const GArray *set = sp->lane_vals[lane_col[dim]];
        g_array_append_vals(v, set->data, set->len);
    }
    g_array_sort(v, cmp_u64);
    size_t m = 0;
    uint64_t *d = (uint64_t *)(void *)v->data;
    for (guint i = 0; i < v->len; i++)
        if (m == 0 || d[m - 1] != d[i])
            d[m++] = d[i];
    *n = m;
    return (uint64_t *)(void *)g_array_free(v, FALSE);
}

const uint32_t *prism_space_devices(const PrismSpace *sp, size_t *n)
{
    *n = sp->n_devices;
    return sp->devices;
}

uint32_t prism_space_layers(const PrismSpace *sp)
{
    return sp->layers;
}
