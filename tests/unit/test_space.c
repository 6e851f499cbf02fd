// SPDX-License-Identifier: MIT
/*
 * test_space.c - the strategy space: the enumerated set equals the set that
 * prism_strategy_check() accepts (brute force over a product of small dims on small and
 * odd models), rank/unrank are exact inverses, filters, counts derived by hand, and
 * the error messages for empty spaces and bad filters.
 */
#include <string.h>

#include <CUnit/CUnit.h>

#include <prism/core.h>
#include <prism/cost.h>
#include <prism/space.h>

#include "prism_test_util.h"

/* A small model: @p blocks dense blocks then @p moe_blocks MoE blocks, + @p mtp MTP. */
static PrismModel *small_model(uint32_t blocks, uint32_t moe_blocks, uint32_t mtp, uint32_t heads,
                               uint32_t kv, uint64_t ffn, uint32_t experts, uint64_t expert_hidden,
                               uint32_t shared)
{
    PrismModel *m = prism_model_new("small", "test");
    m->hidden = 24;
    m->vocab = 100;
    m->max_positions = 4096;
    PrismBlockSpec dense = {
        .attn = {.kind = PRISM_ATTN_STANDARD, .n_heads = heads, .n_kv_heads = kv, .head_dim = 4},
        .mlp = {.act = PRISM_MLP_SWIGLU, .ffn_hidden = ffn}};
    PrismBlockSpec moe = dense;
    moe.mlp = (PrismMlpSpec){.act = PRISM_MLP_SWIGLU,
                             .n_experts = experts,
                             .top_k = 2,
                             .n_shared = shared,
                             .expert_hidden = expert_hidden,
                             .shared_hidden = expert_hidden / 2};
    uint32_t d = prism_model_add_spec(m, &dense);
    uint32_t e = moe_blocks ? prism_model_add_spec(m, &moe) : 0;
    prism_model_add_layer(m, PRISM_LAYER_EMBEDDING, 0);
    for (uint32_t i = 0; i < blocks; i++)
        prism_model_add_layer(m, PRISM_LAYER_BLOCK, d);
    for (uint32_t i = 0; i < moe_blocks; i++)
        prism_model_add_layer(m, PRISM_LAYER_BLOCK, e);
    for (uint32_t i = 0; i < mtp; i++)
        prism_model_add_layer(m, PRISM_LAYER_MTP, moe_blocks ? e : d);
    prism_model_add_layer(m, PRISM_LAYER_FINAL_NORM, 0);
    prism_model_add_layer(m, PRISM_LAYER_HEAD, 0);
    return m;
}

static PrismTraining training(uint64_t gbs, uint64_t seq)
{
    PrismTraining t;
    prism_training_default(&t);
    t.gbs = gbs;
    t.seq = seq;
    return t;
}

/* Every index: unrank passes the shape rules and ranks back to itself. */
static gboolean check_bijection(const PrismSpace *sp, const PrismModel *m, const PrismTraining *t,
                                uint64_t stride)
{
    gboolean ok = TRUE;
    uint64_t n = prism_space_size(sp);
    for (uint64_t i = 0; i < n && ok; i += stride) {
        PrismStrategy s;
        uint64_t back = G_MAXUINT64;
        GError *error = NULL;
        if (!prism_space_unrank(sp, i, &s) || !prism_strategy_check(&s, m, t, &error) ||
            !prism_space_rank(sp, &s, &back) || back != i) {
            g_autofree char *txt = prism_strategy_format(&s);
            fprintf(stderr, "index %" G_GUINT64_FORMAT ": %s -> %" G_GUINT64_FORMAT " (%s)\n", i,
                    txt, back, error ? error->message : "");
            ok = FALSE;
        }
        g_clear_error(&error);
    }
    PrismStrategy s;
    CU_ASSERT_FALSE(prism_space_unrank(sp, n, &s));
    return ok;
}

/*
 * Brute force: every tuple of a product of small ranges, checked with
 * prism_strategy_check(). dp and m are derived (dp = N/(tp*pp*cp), m = gbs/(dp*mbs); a
 * tuple without a whole dp or m is skipped), because any other value breaks the
 * equalities of R1 and R8; every other dimension runs over its full small range including
 * invalid values (sp 0..2, zero 0..4, k 0..L, every schedule and recompute code, vpp
 * 1..L+1, ep 1..E+1, etp 1..N+1, offload 0..4, overlap_off 0..8). A strategy belongs to
 * the space when prism_strategy_check() accepts it and @p filter does (NULL: offload's
 * default domain {0, 1}, every overlap option on; space.h). Returns the number of
 * accepted strategies; every accepted one must rank into the space and unrank to itself.
 */
/* strategies each schedule code contributed to the brute-force runs so far */
static uint64_t brute_sched_seen[PRISM_SCHEDULE_COUNT];

static uint64_t brute_offload_seen[PRISM_OFFLOAD_COUNT];
static uint64_t brute_overlap_seen[PRISM_OVERLAP_ALL + 2]; /* 8: an unknown bit */
/* The equal-chunks rule, applied here on its own (the filter's accepts_strategy does not
 * know the model): only pp*vpp dividing the layers. */
static gboolean brute_uniform;

static uint64_t brute_force(const PrismSpace *sp, const PrismModel *m, const PrismTraining *t,
                            uint32_t n, const PrismSpaceFilter *filter, gboolean *all_found)
{
    uint32_t L = prism_model_split_layers(m), E = prism_model_max_experts(m);
    uint64_t accepted = 0;
    for (uint32_t tp = 1; tp <= n; tp++)
        for (uint32_t pp = 1; pp <= n; pp++)
            for (uint32_t cp = 1; cp <= n; cp++) {
                if (n % ((uint64_t)tp * pp * cp) != 0)
                    continue;
                uint32_t dp = n / (tp * pp * cp);
                for (uint32_t vpp = 1; vpp <= L + 1; vpp++)
                    for (uint32_t ep = 1; ep <= E + 1 && (!brute_uniform || L % (pp * vpp) == 0);
                         ep++)
                        for (uint32_t sp_ = 0; sp_ <= 2; sp_++)
                            for (uint32_t mbs = 1; mbs <= t->gbs; mbs++) {
                                if (t->gbs % ((uint64_t)dp * mbs) != 0)
                                    continue; /* no whole m */
                                uint32_t mm = (uint32_t)(t->gbs / ((uint64_t)dp * mbs));
                                for (uint32_t z = 0; z <= 4; z++)
                                    for (uint32_t etp = 1; etp <= n + 1; etp++)
                                        for (uint32_t rc = 0; rc < PRISM_RECOMPUTE_COUNT; rc++)
                                            for (uint32_t k = 0; k <= L; k++)
                                                for (uint32_t sc = 0; sc < PRISM_SCHEDULE_COUNT;
                                                     sc++) {
                                                    PrismStrategy s = {.devices = n,
                                                                       .dp = dp,
                                                                       .tp = tp,
                                                                       .pp = pp,
                                                                       .vpp = vpp,
                                                                       .cp = cp,
                                                                       .ep = ep,
                                                                       .mbs = mbs,
                                                                       .m = mm,
                                                                       .sp = (uint8_t)sp_,
                                                                       .zero = (uint8_t)z,
                                                                       .recompute = (uint8_t)rc,
                                                                       .schedule = (uint8_t)sc,
                                                                       .rc_layers = (uint16_t)k,
                                                                       .etp = etp};
                                                    if (!prism_strategy_check(&s, m, t, NULL))
                                                        continue;
                                                    /* R11, R12 + the filter, per offload and
                                                     * overlap bit set (8: an unknown bit) */
                                                    for (uint32_t oo = 0; oo <= 5 * 9 - 1; oo++) {
                                                        const uint32_t off = oo / 9, ov = oo % 9;
                                                        s.offload = (uint8_t)off;
                                                        s.overlap_off = (uint8_t)ov;
                                                        if (!prism_strategy_check(&s, m, t, NULL) ||
                                                            !prism_space_filter_accepts_strategy(
                                                                filter, &s))
                                                            continue;
                                                        accepted++;
                                                        brute_sched_seen[sc]++;
                                                        brute_offload_seen[off]++;
                                                        brute_overlap_seen[ov]++;
                                                        uint64_t idx;
                                                        PrismStrategy back;
                                                        if (!prism_space_rank(sp, &s, &idx) ||
                                                            !prism_space_unrank(sp, idx, &back) ||
                                                            !prism_strategy_equal(&s, &back)) {
                                                            if (*all_found) {
                                                                g_autofree char *x =
                                                                    prism_strategy_format(&s);
                                                                fprintf(stderr,
                                                                        "missing: N=%u %s\n", n, x);
                                                            }
                                                            *all_found = FALSE;
                                                        }
                                                    }
                                                }
                            }
            }
    return accepted;
}

static void compare_filtered(const PrismModel *m, const PrismTraining *t, const uint32_t *devices,
                             size_t n_devices, const PrismSpaceFilter *filter)
{
    GError *error = NULL;
    g_autoptr(PrismSpace) sp = prism_space_new(m, t, devices, n_devices, filter, &error);
    if (sp == NULL) {
        fprintf(stderr, "space: %s\n", error->message);
        g_clear_error(&error);
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
    uint64_t total = 0;
    gboolean all_found = TRUE;
    for (size_t i = 0; i < n_devices; i++)
        total += brute_force(sp, m, t, devices[i], filter, &all_found);
    CU_ASSERT_TRUE(all_found);
    if (total != prism_space_size(sp))
        fprintf(stderr, "brute force %" G_GUINT64_FORMAT " vs space %" G_GUINT64_FORMAT "\n", total,
                prism_space_size(sp));
    CU_ASSERT_EQUAL(total, prism_space_size(sp));
    CU_ASSERT_TRUE(total > 0);
    printf("[brute force: %" G_GUINT64_FORMAT " strategies] ", total);
    CU_ASSERT_TRUE(check_bijection(sp, m, t, 1));
}

static void compare_with_brute_force(const PrismModel *m, const PrismTraining *t,
                                     const uint32_t *devices, size_t n_devices)
{
    compare_filtered(m, t, devices, n_devices, NULL);
}

/* Dense, odd sizes: 6 layers, 6 heads with 2 KV heads (GQA), ffn 12; N = 1, 6, 12. The
 * sanitizer pass, which hunts memory errors in the same code, leaves out N = 12 (most of
 * this test's time: the brute force walks every combination of the dims' ranges). */
static void test_brute_dense_gqa(void)
{
    g_autoptr(PrismModel) m = small_model(6, 0, 0, 6, 2, 12, 0, 0, 0);
    PrismTraining t = training(12, 12);
    const uint32_t devices[] = {1, 6, 12};
    compare_with_brute_force(m, &t, devices,
                             G_N_ELEMENTS(devices) - (prism_test_sanitized() ? 1 : 0));
}

/* MHA with 5 layers (prime), gbs 8, seq 16, N = 4, 8. */
static void test_brute_dense_prime_layers(void)
{
    g_autoptr(PrismModel) m = small_model(5, 0, 0, 4, 4, 8, 0, 0, 0);
    PrismTraining t = training(8, 16);
    const uint32_t devices[] = {4, 8};
    compare_with_brute_force(m, &t, devices, G_N_ELEMENTS(devices));
}

/* A hybrid model (issue 41): block 1 of 5 is a Mamba-2 layer with 8 heads in 2 groups, so
 * tp divides 2 (R2) and cp divides 8/tp with 2/tp and cp dividing one another (R3); N = 8. */
static void test_brute_hybrid(void)
{
    g_autoptr(PrismModel) m = small_model(5, 0, 0, 8, 8, 8, 0, 0, 0);
    PrismBlockSpec mamba = {
        .mixer = PRISM_MIXER_MAMBA2,
        .ssm =
            {.n_heads = 8, .head_dim = 4, .state = 4, .n_groups = 2, .conv_kernel = 4, .chunk = 8},
        .no_mlp = TRUE};
    m->layers[2].spec = prism_model_add_spec(m, &mamba);
    PrismTraining t = training(8, 16);
    const uint32_t devices[] = {8};
    compare_with_brute_force(m, &t, devices, G_N_ELEMENTS(devices));
}

/* The brute-force runs above admit every schedule code (so the comparison covers the
 * rules of each: zb-v/dualpipe-v at vpp = 2 and m >= 2pp, dualpipe at pp = 2 with m even
 * >= 4, seq1f1b). Runs after them (CUnit keeps the order). */
static void test_brute_every_schedule(void)
{
    for (int sc = 0; sc < PRISM_SCHEDULE_COUNT; sc++) {
        if (brute_sched_seen[sc] == 0)
            fprintf(stderr, "schedule %s never accepted\n", prism_schedule_name((PrismSchedule)sc));
        CU_ASSERT_TRUE(brute_sched_seen[sc] > 0);
    }
}

/* The whole offload domain (--only offload=0,1,2,3 opens activation offload) against
 * brute force, and every offload value seen; then `--fix offload=0` holds exactly the
 * strategies without offload: half the default space (whose domain is {0, 1}). */
static void test_brute_offload(void)
{
    g_autoptr(PrismModel) m = small_model(5, 0, 0, 4, 4, 8, 0, 0, 0);
    PrismTraining t = training(8, 16);
    const uint32_t devices[] = {4};
    g_autoptr(PrismSpaceFilter) f = prism_space_filter_new();
    CU_ASSERT_TRUE_FATAL(prism_space_filter_only(f, "offload=0,1,2,3", NULL));
    memset(brute_offload_seen, 0, sizeof brute_offload_seen);
    compare_filtered(m, &t, devices, 1, f);
    for (int o = 0; o < PRISM_OFFLOAD_COUNT; o++)
        CU_ASSERT_TRUE(brute_offload_seen[o] > 0);
    /* every offload value holds the same strategies otherwise */
    CU_ASSERT_EQUAL(brute_offload_seen[0], brute_offload_seen[3]);
    g_autoptr(PrismSpace) full = prism_space_new(m, &t, devices, 1, f, NULL);
    g_autoptr(PrismSpace) def = prism_space_new(m, &t, devices, 1, NULL, NULL);
    g_autoptr(PrismSpaceFilter) z = prism_space_filter_new();
    CU_ASSERT_TRUE_FATAL(prism_space_filter_fix(z, "offload=0", NULL));
    g_autoptr(PrismSpace) none = prism_space_new(m, &t, devices, 1, z, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(full);
    CU_ASSERT_PTR_NOT_NULL_FATAL(def);
    CU_ASSERT_PTR_NOT_NULL_FATAL(none);
    CU_ASSERT_EQUAL(prism_space_size(full), 4 * prism_space_size(none));
    CU_ASSERT_EQUAL(prism_space_size(def), 2 * prism_space_size(none));
    size_t n = 0;
    g_autofree uint64_t *v = prism_space_dim_values(def, PRISM_DIM_OFFLOAD, &n);
    CU_ASSERT_TRUE(n == 2 && v[0] == 0 && v[1] == 1);
    /* offload is the innermost structural key: segments alternate 0, 1 */
    size_t ns = 0;
    const PrismSpaceSegment *segs = prism_space_segments(def, &ns);
    CU_ASSERT_TRUE(ns >= 2 && segs[0].key.offload == 0 && segs[1].key.offload == 1 &&
                   segs[1].count == segs[0].count && segs[1].first == segs[0].count);
}

/* The overlap dims (R12). A framework that can turn every option off, all searched,
 * against brute force: every bit set seen. Then the megatron-core domain (tp searched,
 * dp/param filter-only) adds exactly one strategy per on-strategy where TP overlap
 * applies (tp > 1 and sp = 1), `--fix tp_overlap=1` gives back the space without the dims
 * index for index, and a framework without the option refuses tp_overlap=0 by name. */
static void test_brute_overlap(void)
{
    g_autoptr(PrismModel) m = small_model(5, 0, 0, 4, 4, 8, 0, 0, 0);
    PrismTraining t = training(8, 16);
    const uint32_t devices[] = {4};
    g_autoptr(PrismSpaceFilter) f = prism_space_filter_new();
    prism_space_filter_set_overlap(f, PRISM_OVERLAP_ALL, PRISM_OVERLAP_ALL);
    CU_ASSERT_TRUE_FATAL(prism_space_filter_fix(f, "offload=0", NULL));
    memset(brute_overlap_seen, 0, sizeof brute_overlap_seen);
    compare_filtered(m, &t, devices, 1, f);
    for (int o = 0; o <= PRISM_OVERLAP_ALL; o++)
        CU_ASSERT_TRUE(brute_overlap_seen[o] > 0);
    CU_ASSERT_EQUAL(brute_overlap_seen[8], 0); /* the unknown bit: never accepted */
    /* the default (no framework): every option on; count where TP overlap applies */
    g_autoptr(PrismSpaceFilter) z = prism_space_filter_new();
    CU_ASSERT_TRUE_FATAL(prism_space_filter_fix(z, "offload=0", NULL));
    g_autoptr(PrismSpace) base = prism_space_new(m, &t, devices, 1, z, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(base);
    uint64_t applies = 0;
    for (uint64_t i = 0; i < prism_space_size(base); i++) {
        PrismStrategy s;
        CU_ASSERT_TRUE(prism_space_unrank(base, i, &s));
        CU_ASSERT_EQUAL(s.overlap_off, 0);
        applies += prism_strategy_overlap_applies(&s, PRISM_OVERLAP_TP);
    }
    CU_ASSERT_TRUE(applies > 0);
    g_autoptr(PrismSpaceFilter) mc = prism_space_filter_copy(z);
    prism_space_filter_set_overlap(mc, PRISM_OVERLAP_ALL, PRISM_OVERLAP_TP);
    g_autoptr(PrismSpace) core = prism_space_new(m, &t, devices, 1, mc, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(core);
    CU_ASSERT_EQUAL(prism_space_size(core), prism_space_size(base) + applies);
    size_t n = 0;
    g_autofree uint64_t *v = prism_space_dim_values(core, PRISM_DIM_TP_OVERLAP, &n);
    CU_ASSERT_TRUE(n == 2 && v[0] == 0 && v[1] == 1);
    g_autofree uint64_t *w = prism_space_dim_values(core, PRISM_DIM_DP_OVERLAP, &n);
    CU_ASSERT_TRUE(n == 1 && w[0] == 1);
    /* --fix tp_overlap=1: the space without the dims, index for index */
    g_autoptr(PrismSpaceFilter) pin = prism_space_filter_copy(mc);
    CU_ASSERT_TRUE_FATAL(prism_space_filter_fix(pin, "tp_overlap=1", NULL));
    g_autoptr(PrismSpace) pinned = prism_space_new(m, &t, devices, 1, pin, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pinned);
    CU_ASSERT_EQUAL(prism_space_size(pinned), prism_space_size(base));
    for (uint64_t i = 0; i < prism_space_size(base); i++) {
        PrismStrategy a, b;
        CU_ASSERT_TRUE(prism_space_unrank(base, i, &a) && prism_space_unrank(pinned, i, &b) &&
                       prism_strategy_equal(&a, &b));
    }
    /* the megatron-core domain against brute force too */
    compare_filtered(m, &t, devices, 1, mc);
    /* a framework that cannot turn TP overlap off: tp_overlap=0 leaves nothing */
    g_autoptr(PrismSpaceFilter) no = prism_space_filter_new();
    CU_ASSERT_TRUE_FATAL(prism_space_filter_only(no, "tp_overlap=0", NULL));
    GError *error = NULL;
    g_autoptr(PrismSpace) none = prism_space_new(m, &t, devices, 1, no, &error);
    CU_ASSERT_PTR_NULL(none);
    CU_ASSERT_TRUE(error != NULL && strstr(error->message, "tp_overlap") != NULL);
    g_clear_error(&error);
}

/* A framework's equal model chunks (megatron's pp*vpp | L) against brute force: 6 layers
 * on 6 devices keep pp 1, 2, 3, 6 and the vpp that divide 6/pp (pp 2: vpp 3 only, as the
 * interleaved schedule needs vpp > 1; pp 3: vpp 2), with megatron-core's schedules (1F1B,
 * interleaved) and ZeRO stages; then the same model with 5 layers (prime) keeps pp 1 and
 * pp 5 at 5 devices, whose vpp must be 1, so only 1F1B. */
static void test_brute_uniform(void)
{
    g_autoptr(PrismModel) m = small_model(6, 0, 0, 6, 2, 12, 0, 0, 0);
    PrismTraining t = training(12, 12);
    const uint32_t devices[] = {6};
    g_autoptr(PrismSpaceFilter) f = prism_space_filter_new();
    prism_space_filter_set_uniform_chunks(f, TRUE);
    CU_ASSERT_TRUE_FATAL(prism_space_filter_only(f, "schedule=1f1b,interleaved", NULL));
    brute_uniform = TRUE;
    compare_filtered(m, &t, devices, 1, f);
    g_autoptr(PrismSpace) sp = prism_space_new(m, &t, devices, 1, f, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
    size_t n = 0;
    g_autofree uint64_t *pps = prism_space_dim_values(sp, PRISM_DIM_PP, &n);
    CU_ASSERT_TRUE(n == 4 && pps[0] == 1 && pps[1] == 2 && pps[2] == 3 && pps[3] == 6);
    for (uint64_t i = 0; i < prism_space_size(sp); i++) {
        PrismStrategy s;
        CU_ASSERT_TRUE(prism_space_unrank(sp, i, &s));
        CU_ASSERT_EQUAL(6 % (s.pp * s.vpp), 0);
    }
    g_autoptr(PrismModel) m5 = small_model(5, 0, 0, 4, 4, 8, 0, 0, 0);
    PrismTraining t5 = training(8, 16);
    const uint32_t five[] = {5};
    compare_filtered(m5, &t5, five, 1, f);
    g_autoptr(PrismSpace) sp5 = prism_space_new(m5, &t5, five, 1, f, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sp5);
    g_autofree uint64_t *sch = prism_space_dim_values(sp5, PRISM_DIM_SCHEDULE, &n);
    CU_ASSERT_TRUE(n == 1 && sch[0] == PRISM_SCHEDULE_1F1B);
    brute_uniform = FALSE;
    g_autofree char *d = prism_space_filter_describe(f);
    CU_ASSERT_PTR_NOT_NULL(strstr(d, "equal chunks"));
    /* a copy keeps the rule */
    g_autoptr(PrismSpaceFilter) c = prism_space_filter_copy(f);
    g_autoptr(PrismSpace) sc = prism_space_new(m, &t, devices, 1, c, NULL);
    CU_ASSERT_TRUE(sc != NULL && prism_space_size(sc) == prism_space_size(sp));
}

/* A framework whose context parallelism always shards (torchtitan: FSDP2 over the data
 * and context ranks whenever cp > 1): the filtered space is the unfiltered one less the
 * zero=0, cp>1 strategies, counted by scanning the unfiltered space with that predicate
 * alone, and each kept strategy ranks back to itself; the 6-layer model on 6 devices
 * with seq 12 (cp 1, 2, 3 and 6 all allowed by R3), so such strategies exist. */
static void test_cp_shards(void)
{
    g_autoptr(PrismModel) m = small_model(6, 0, 0, 6, 2, 12, 0, 0, 0);
    PrismTraining t = training(12, 12);
    const uint32_t devices[] = {6};
    g_autoptr(PrismSpaceFilter) f = prism_space_filter_new();
    prism_space_filter_set_cp_shards(f, TRUE);
    CU_ASSERT_TRUE_FATAL(prism_space_filter_only(f, "recompute=none,schedule=1f1b", NULL));
    g_autoptr(PrismSpaceFilter) plain = prism_space_filter_new();
    CU_ASSERT_TRUE_FATAL(prism_space_filter_only(plain, "recompute=none,schedule=1f1b", NULL));
    g_autoptr(PrismSpace) all = prism_space_new(m, &t, devices, 1, plain, NULL);
    g_autoptr(PrismSpace) kept = prism_space_new(m, &t, devices, 1, f, NULL);
    CU_ASSERT_TRUE_FATAL(all != NULL && kept != NULL);
    uint64_t dropped = 0;
    for (uint64_t i = 0; i < prism_space_size(all); i++) {
        PrismStrategy s;
        CU_ASSERT_TRUE(prism_space_unrank(all, i, &s));
        dropped += s.cp > 1 && s.zero == 0;
    }
    CU_ASSERT_TRUE(dropped > 0);
    CU_ASSERT_EQUAL(prism_space_size(kept), prism_space_size(all) - dropped);
    for (uint64_t i = 0; i < prism_space_size(kept); i++) {
        PrismStrategy k, back;
        uint64_t idx;
        CU_ASSERT_TRUE(prism_space_unrank(kept, i, &k) && (k.cp == 1 || k.zero > 0) &&
                       prism_space_rank(kept, &k, &idx) && idx == i &&
                       prism_space_unrank(kept, idx, &back) && prism_strategy_equal(&k, &back));
    }
    g_autofree char *d = prism_space_filter_describe(f);
    CU_ASSERT_PTR_NOT_NULL(strstr(d, "zero > 0 where cp > 1"));
    g_autoptr(PrismSpaceFilter) c = prism_space_filter_copy(f); /* a copy keeps the rule */
    PrismStrategy s;
    CU_ASSERT_TRUE(prism_space_unrank(all, 0, &s));
    s.devices = 6, s.dp = 1, s.tp = 1, s.pp = 1, s.cp = 6, s.zero = 0, s.sp = 0;
    CU_ASSERT_FALSE(prism_space_filter_accepts_strategy(c, &s));
    s.zero = 2;
    CU_ASSERT_TRUE(prism_space_filter_accepts_strategy(c, &s));
}

/* MoE: 1 dense block + 4 MoE blocks (4 experts, 1 shared) + 1 MTP = 6 split layers. */
static void test_brute_moe(void)
{
    g_autoptr(PrismModel) m = small_model(1, 4, 1, 4, 1, 16, 4, 8, 1);
    /* the sanitizer pass: gbs 4 (half the micro-batch sizes to walk) */
    PrismTraining t = training(prism_test_sanitized() ? 4 : 8, 8);
    const uint32_t devices[] = {8};
    compare_with_brute_force(m, &t, devices, G_N_ELEMENTS(devices));
}

/*
 * Parallel folding. The same MoE model as test_brute_moe on 8 devices: `--only folding=0`
 * must keep exactly the tied strategies of the full space (etp == tp and ep | dp*cp,
 * counted here by scanning the full space with that predicate, not with the filter), and
 * `--fix etp=1` exactly those with etp 1. Hand check of one folded layout the tied space
 * lacked: tp=2, cp=1, dp=4, pp=1 with ep=8 (ep does not divide dp*cp = 4, but etp*ep =
 * 1*8 divides tp*cp*dp = 8) is in the full space and not in the tied one.
 */
static void test_folding_filter(void)
{
    g_autoptr(PrismModel) m = small_model(1, 4, 1, 4, 1, 16, 8, 8, 1);
    PrismTraining t = training(8, 8);
    const uint32_t devices[] = {8};
    GError *error = NULL;
    g_autoptr(PrismSpace) all = prism_space_new(m, &t, devices, 1, NULL, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(all);
    g_autoptr(PrismSpaceFilter) tied_f = prism_space_filter_new();
    g_autoptr(PrismSpaceFilter) etp1_f = prism_space_filter_new();
    CU_ASSERT_TRUE_FATAL(prism_space_filter_only(tied_f, "folding=0", NULL));
    CU_ASSERT_TRUE_FATAL(prism_space_filter_fix(etp1_f, "etp=1", NULL));
    g_autoptr(PrismSpace) tied = prism_space_new(m, &t, devices, 1, tied_f, &error);
    g_autoptr(PrismSpace) etp1 = prism_space_new(m, &t, devices, 1, etp1_f, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tied);
    CU_ASSERT_PTR_NOT_NULL_FATAL(etp1);
    uint64_t n_tied = 0, n_etp1 = 0, n_folded = 0;
    for (uint64_t i = 0; i < prism_space_size(all); i++) {
        PrismStrategy s;
        CU_ASSERT_TRUE_FATAL(prism_space_unrank(all, i, &s));
        const gboolean is_tied = s.etp == s.tp && (s.dp * s.cp) % s.ep == 0;
        n_tied += is_tied;
        n_folded += !is_tied;
        n_etp1 += s.etp == 1;
        CU_ASSERT_EQUAL(prism_strategy_folding(&s), is_tied ? 0u : 1u);
        uint64_t j;
        CU_ASSERT_EQUAL(prism_space_rank(tied, &s, &j), is_tied);
        CU_ASSERT_EQUAL(prism_space_rank(etp1, &s, &j), s.etp == 1);
    }
    CU_ASSERT_EQUAL(prism_space_size(tied), n_tied);
    CU_ASSERT_EQUAL(prism_space_size(etp1), n_etp1);
    CU_ASSERT_TRUE(n_tied > 0 && n_folded > 0);
    PrismStrategy f = {.devices = 8,
                       .dp = 4,
                       .tp = 2,
                       .pp = 1,
                       .vpp = 1,
                       .cp = 1,
                       .ep = 8,
                       .etp = 1,
                       .mbs = 1,
                       .m = 2};
    uint64_t idx;
    CU_ASSERT_TRUE(prism_strategy_check(&f, m, &t, NULL));
    CU_ASSERT_TRUE(prism_space_rank(all, &f, &idx));
    CU_ASSERT_FALSE(prism_space_rank(tied, &f, &idx));
    g_autofree char *txt = prism_strategy_format(&f);
    CU_ASSERT_PTR_NOT_NULL(strstr(txt, ",ep=8,etp=1,"));
    /* the same layout tied (etp left out = tp = 2): etp*ep = 16 does not divide 8 */
    f.etp = 0;
    CU_ASSERT_FALSE(prism_strategy_check(&f, m, &t, NULL));
}

/*
 * A framework's default where the shape rules allow it (validate's planned layouts): with
 * sp 1 and zero 1 the space must hold exactly the strategies of the unfiltered space with
 * sp == (tp > 1) and zero == (dp*cp > 1 ? 1 : 0), counted here by scanning the full space
 * with that predicate; prism_space_filter_accepts_strategy() agrees strategy by strategy;
 * the rule keeps the tp 1 and dp*cp 1 layouts that --fix sp=1,zero=1 drops; a copy keeps it.
 */
static void test_default_where_allowed(void)
{
    g_autoptr(PrismModel) m = small_model(4, 0, 0, 8, 2, 16, 0, 0, 0);
    PrismTraining t = training(8, 16);
    const uint32_t devices[] = {8};
    g_autoptr(PrismSpace) all = prism_space_new(m, &t, devices, 1, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(all);
    g_autoptr(PrismSpaceFilter) f = prism_space_filter_new();
    prism_space_filter_set_default_where_allowed(f, 1, 1);
    g_autoptr(PrismSpace) sp = prism_space_new(m, &t, devices, 1, f, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
    g_autoptr(PrismSpaceFilter) fixed = prism_space_filter_new();
    CU_ASSERT_TRUE_FATAL(prism_space_filter_fix(fixed, "sp=1,zero=1", NULL));
    g_autoptr(PrismSpace) sf = prism_space_new(m, &t, devices, 1, fixed, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sf);
    uint64_t want = 0, tp1 = 0, unsharded = 0;
    gboolean agree = TRUE;
    for (uint64_t i = 0; i < prism_space_size(all); i++) {
        PrismStrategy s;
        CU_ASSERT_TRUE_FATAL(prism_space_unrank(all, i, &s));
        const gboolean keep = s.sp == (s.tp > 1 ? 1u : 0u) && s.zero == (s.dp * s.cp > 1 ? 1u : 0u);
        uint64_t j;
        want += keep;
        tp1 += keep && s.tp == 1;
        unsharded += keep && s.dp * s.cp == 1;
        agree &= prism_space_rank(sp, &s, &j) == keep &&
                 prism_space_filter_accepts_strategy(f, &s) == keep;
    }
    CU_ASSERT_TRUE(prism_test_all(agree));
    CU_ASSERT_EQUAL(prism_space_size(sp), want);
    CU_ASSERT_TRUE(tp1 > 0 && unsharded > 0);
    CU_ASSERT_TRUE(prism_space_size(sf) < want); /* --fix drops tp 1 and dp*cp 1 */
    g_autofree char *d = prism_space_filter_describe(f);
    CU_ASSERT_PTR_NOT_NULL(strstr(d, "sp=1 where tp > 1, else 0"));
    CU_ASSERT_PTR_NOT_NULL(strstr(d, "zero=1 where dp*cp > 1, else 0"));
    g_autoptr(PrismSpaceFilter) c = prism_space_filter_copy(f);
    g_autoptr(PrismSpace) sc = prism_space_new(m, &t, devices, 1, c, NULL);
    CU_ASSERT_TRUE(sc != NULL && prism_space_size(sc) == want);
}

/*
 * Released lane tables (prism_space_release_lanes) are rebuilt identically: every index
 * of a filtered MoE space unranks to the same strategy before and after the release (and
 * after a second one, in reverse order, so tables come back in another order), ranks
 * back to itself, and the dimension values (kept apart from the tables) do not change.
 * The model is freed before the rebuild: the space must not need it.
 */
static void test_release_lanes(void)
{
    g_autoptr(PrismModel) m = small_model(1, 4, 1, 4, 1, 16, 4, 8, 1);
    PrismTraining t = training(8, 8);
    const uint32_t devices[] = {4, 8};
    g_autoptr(PrismSpaceFilter) f = prism_space_filter_new();
    CU_ASSERT_TRUE_FATAL(prism_space_filter_range(f, "mbs=:4", NULL));
    g_autoptr(PrismSpace) sp = prism_space_new(m, &t, devices, 2, f, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
    g_clear_pointer(&f, prism_space_filter_free);
    uint64_t n = prism_space_size(sp);
    CU_ASSERT_TRUE(n > 100);
    g_autofree PrismStrategy *before = g_new(PrismStrategy, n);
    for (uint64_t i = 0; i < n; i++)
        CU_ASSERT_TRUE(prism_space_unrank(sp, i, &before[i]));
    size_t nv0 = 0, nv1 = 0;
    g_autofree uint64_t *mbs0 = prism_space_dim_values(sp, PRISM_DIM_MBS, &nv0);
    g_clear_pointer(&m, prism_model_free);
    prism_space_release_lanes(sp);
    g_autofree uint64_t *mbs1 = prism_space_dim_values(sp, PRISM_DIM_MBS, &nv1);
    CU_ASSERT_EQUAL(nv0, nv1);
    CU_ASSERT_EQUAL(memcmp(mbs0, mbs1, nv0 * sizeof(uint64_t)), 0);
    CU_ASSERT_EQUAL(mbs1[nv1 - 1], 4); /* the filter copy still applies */
    gboolean same = TRUE;
    for (uint64_t i = 0; i < n && same; i++) {
        PrismStrategy s;
        uint64_t back = G_MAXUINT64;
        same = prism_space_unrank(sp, i, &s) && prism_strategy_equal(&s, &before[i]) &&
               prism_space_rank(sp, &s, &back) && back == i;
    }
    CU_ASSERT_TRUE(same);
    prism_space_release_lanes(sp);
    for (uint64_t i = n; i-- > 0 && same;) {
        PrismStrategy s;
        same = prism_space_unrank(sp, i, &s) && prism_strategy_equal(&s, &before[i]);
    }
    CU_ASSERT_TRUE(same);
    /* alternating ends: every call switches device count (4 <-> 8), so each rebuilds the
     * tables the other freed; the first 1,024 calls (the loops above went through every
     * index; all n rebuilds were 11 s, most of this binary's time: each rebuild grows and
     * frees the tables, page faults and heap trims). Under the sanitizers
     * (PRISM_TEST_SANITIZED=1) the first 256. */
    const uint64_t n_alt = MIN(n, prism_test_sanitized() ? 256 : 1024);
    for (uint64_t i = 0; i < n_alt && same; i++) {
        uint64_t j = i % 2 ? n - 1 - i : i;
        PrismStrategy s;
        uint64_t back = G_MAXUINT64;
        same = prism_space_unrank(sp, j, &s) && prism_strategy_equal(&s, &before[j]) &&
               prism_space_rank(sp, &s, &back) && back == j;
    }
    CU_ASSERT_TRUE(same);
    CU_ASSERT_EQUAL(before[0].devices, 4);
    CU_ASSERT_EQUAL(before[n - 1].devices, 8);
}

/*
 * Hand count: L = 2, heads = kv = 2, ffn 2, N = 2, gbs 2, seq 4.
 * pp=1 lanes: tp=1,cp=1 (dp=2, mbs 1): zero 0..3 -> 4; tp=1,cp=2 (seq 4 % 4 == 0, dp=1,
 *   mbs 1 or 2, dp*cp = 2 so zero 0..3) -> 8; tp=2 (dp=1, cp=1, mbs 1|2, sp 0|1,
 *   zero 0 only since dp*cp = 1) -> 4. 16 lanes x 4 segments (1f1b with none, selective,
 *   full, block:1 since 2 layers per chunk) = 64.
 * pp=2: tp=cp=dp=1, zero 0; vpp = 1 only (pp*2 > L); recompute none, selective, full
 *   (1 layer per chunk: no block). R8: 1f1b and gpipe take mbs=1 (m=2) and mbs=2 (m=1 <
 *   pp) -> 2 lanes each; zb-h1 needs m >= pp -> mbs=1 only; seq1f1b takes any m -> 2;
 *   dualpipe needs m even and m >= 2pp = 4 -> none (m <= 2); zb-v and dualpipe-v need
 *   vpp = 2 (pp*2 > L) -> none. 3 x (2 + 2 + 1 + 2) = 21.
 * Total 85 strategies in 16 segments; lane tables: pp=1 (16), pp=2 any m (2), pp=2
 * m >= pp (1), pp=2 m even >= 2pp (0, built and left empty).
 */
static void test_hand_count(void)
{
    g_autoptr(PrismModel) m = small_model(2, 0, 0, 2, 2, 2, 0, 0, 0);
    PrismTraining t = training(2, 4);
    const uint32_t dev[] = {2};
    g_autoptr(PrismSpace) sp = prism_space_new(m, &t, dev, 1, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
    /* 85 strategies without offload, each twice: offload 0 and 1 (the default domain) */
    CU_ASSERT_EQUAL(prism_space_size(sp), 170);
    size_t ns = 0;
    const PrismSpaceSegment *segs = prism_space_segments(sp, &ns);
    CU_ASSERT_EQUAL(ns, 32);
    /* first segment: pp=1, 1f1b, none, offload 0, then the same with offload 1; the
     * segment before last: pp=2, zb-h1, full */
    CU_ASSERT_EQUAL(segs[0].key.pp, 1);
    CU_ASSERT_EQUAL(segs[0].count, 16);
    CU_ASSERT_EQUAL(segs[0].key.offload, 0);
    CU_ASSERT_EQUAL(segs[1].key.offload, 1);
    CU_ASSERT_EQUAL(segs[1].first, 16);
    CU_ASSERT_EQUAL(segs[6].key.recompute, PRISM_RECOMPUTE_BLOCK);
    CU_ASSERT_EQUAL(segs[6].key.rc_layers, 1);
    CU_ASSERT_EQUAL(segs[24].key.pp, 2);
    CU_ASSERT_EQUAL(segs[24].key.schedule, PRISM_SCHEDULE_ZB_H1);
    CU_ASSERT_EQUAL(segs[24].key.recompute, PRISM_RECOMPUTE_FULL);
    CU_ASSERT_EQUAL(segs[24].first, 156);
    /* then seq1f1b (code 7, after zb-h1's 3): its full segments are the last, 2 lanes */
    CU_ASSERT_EQUAL(segs[30].key.schedule, PRISM_SCHEDULE_SEQ1F1B);
    CU_ASSERT_EQUAL(segs[30].key.recompute, PRISM_RECOMPUTE_FULL);
    CU_ASSERT_EQUAL(segs[30].first, 166);
    CU_ASSERT_EQUAL(segs[31].key.offload, 1);
    CU_ASSERT_EQUAL(segs[31].first, 168);
    CU_ASSERT_EQUAL(prism_space_n_tables(sp), 4);
    /* the lane tables: pp=1 has the 16 lanes above, pp=2 two (any m), one (m >= pp) and
     * none (dualpipe: m even, m >= 2pp) */
    CU_ASSERT_EQUAL(prism_space_table_size(sp, 0), 16);
    CU_ASSERT_EQUAL(prism_space_table_size(sp, 1) + prism_space_table_size(sp, 2) +
                        prism_space_table_size(sp, 3),
                    3);
    /* R8: a 1f1b strategy with m = 1 < pp = 2 is in the space, the zb-h1 one is not */
    {
        PrismStrategy x = {.devices = 2,
                           .dp = 1,
                           .tp = 1,
                           .pp = 2,
                           .vpp = 1,
                           .cp = 1,
                           .ep = 1,
                           .mbs = 2,
                           .m = 1,
                           .schedule = PRISM_SCHEDULE_1F1B};
        uint64_t ix;
        CU_ASSERT_TRUE(prism_space_rank(sp, &x, &ix));
        x.schedule = PRISM_SCHEDULE_ZB_H1;
        CU_ASSERT_FALSE(prism_space_rank(sp, &x, &ix));
    }
    CU_ASSERT_EQUAL(prism_space_layers(sp), 2);
    /* index 0 is the first lane: tp=1, cp=1, dp=2, mbs=1, m=1, zero=0 */
    PrismStrategy s;
    CU_ASSERT_TRUE(prism_space_unrank(sp, 0, &s));
    CU_ASSERT_TRUE(s.tp == 1 && s.cp == 1 && s.dp == 2 && s.mbs == 1 && s.m == 1 && s.zero == 0 &&
                   s.schedule == PRISM_SCHEDULE_1F1B);
    /* index 15: the last pp=1 lane: tp=2, sp=1, mbs=2; index 16 the first again, offload 1 */
    CU_ASSERT_TRUE(prism_space_unrank(sp, 15, &s));
    CU_ASSERT_TRUE(s.tp == 2 && s.sp == 1 && s.mbs == 2 && s.m == 1 && s.offload == 0);
    CU_ASSERT_TRUE(prism_space_unrank(sp, 16, &s));
    CU_ASSERT_TRUE(s.tp == 1 && s.mbs == 1 && s.offload == 1);
    size_t n = 0;
    g_autofree uint64_t *mbs = prism_space_dim_values(sp, PRISM_DIM_MBS, &n);
    CU_ASSERT_EQUAL(n, 2);
    CU_ASSERT_TRUE(n == 2 && mbs[0] == 1 && mbs[1] == 2);
    g_autofree uint64_t *sch = prism_space_dim_values(sp, PRISM_DIM_SCHEDULE, &n);
    CU_ASSERT_EQUAL(n, 4); /* 1f1b, gpipe, zb-h1, seq1f1b (no vpp = 2: pp*vpp <= 2) */
    CU_ASSERT_TRUE(n == 4 && sch[0] == PRISM_SCHEDULE_1F1B && sch[1] == PRISM_SCHEDULE_GPIPE &&
                   sch[2] == PRISM_SCHEDULE_ZB_H1 && sch[3] == PRISM_SCHEDULE_SEQ1F1B);
}

/*
 * GPT-3 175B, 1024 devices, gbs 1536, seq 2048: the whole space. The size was derived
 * independently with a Python loop nest over the same rules (search/README.md shows
 * it): 4,095,416 strategies in 1,229 segments without offload (3,114,754 in 901 before
 * zb-v, dualpipe, dualpipe-v and seq1f1b; 2,965,470 before R8 admitted m < pp for 1f1b
 * and gpipe); offload's default domain {0, 1} doubles both: 8,190,832 in 2,458.
 * Rank/unrank checked on every 97th index.
 */
static void test_gpt3_default(void)
{
    g_autoptr(PrismModel) m = prism_model_zoo_get("gpt3-175b", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    PrismTraining t;
    prism_training_default(&t);
    const uint32_t dev[] = {1024};
    g_autoptr(PrismSpace) sp = prism_space_new(m, &t, dev, 1, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
    CU_ASSERT_EQUAL(prism_space_size(sp), 8190832);
    size_t ns = 0;
    (void)prism_space_segments(sp, &ns);
    CU_ASSERT_EQUAL(ns, 2458);
    CU_ASSERT_TRUE(check_bijection(sp, m, &t, 97));
    size_t n = 0;
    g_autofree uint64_t *tp = prism_space_dim_values(sp, PRISM_DIM_TP, &n);
    /* tp divides 96 heads, 49152 and 1024: 1 2 4 8 16 32 */
    CU_ASSERT_EQUAL(n, 6);
    CU_ASSERT_EQUAL(tp[5], 32);
    g_autofree uint64_t *pp = prism_space_dim_values(sp, PRISM_DIM_PP, &n);
    CU_ASSERT_EQUAL(n, 7); /* 1..64, powers of two <= 96 */
    CU_ASSERT_TRUE(n == 7 && pp[0] == 1 && pp[6] == 64);
    g_autofree uint64_t *vpp = prism_space_dim_values(sp, PRISM_DIM_VPP, &n);
    CU_ASSERT_EQUAL(n, 48); /* pp = 2: vpp up to 48 */
    CU_ASSERT_TRUE(n == 48 && vpp[0] == 1 && vpp[47] == 48);
}

/* The stop hook of prism_space_new_stoppable: counts its calls, says stop at call `at`
 * (0: never). */
typedef struct {
    unsigned calls, at;
} StopCounter;

static gboolean stop_at(void *user)
{
    StopCounter *c = user;
    c->calls++;
    return c->at != 0 && c->calls >= c->at;
}

/*
 * The enumeration polls its stop hook between lane tables: GPT-3 175B on 512 and 1024
 * devices (the default training). A hook that never stops is polled more than once per
 * device count and pass (it is polled per pp, 10 and 11 divisors) and gives the space
 * prism_space_new gives (size and every segment). One that stops at its k-th call ends the
 * build there: NULL with PRISM_RUNTIME_ERROR_INTERRUPTED and no call after the k-th, for k
 * = 1, half the full count and the full count; at the full count + 1 it is never reached
 * and the space is complete.
 */
static void test_stop_hook(void)
{
    g_autoptr(PrismModel) m = prism_model_zoo_get("gpt3-175b", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    PrismTraining t;
    prism_training_default(&t);
    const uint32_t dev[] = {512, 1024};
    g_autoptr(PrismSpace) ref = prism_space_new(m, &t, dev, 2, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ref);
    StopCounter never = {0, 0};
    g_autoptr(PrismSpace) sp =
        prism_space_new_stoppable(m, &t, dev, 2, NULL, stop_at, &never, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
    CU_ASSERT_TRUE(never.calls > 10 + 11);
    CU_ASSERT_EQUAL(prism_space_size(sp), prism_space_size(ref));
    size_t na = 0, nb = 0;
    const PrismSpaceSegment *a = prism_space_segments(ref, &na);
    const PrismSpaceSegment *b = prism_space_segments(sp, &nb);
    CU_ASSERT_EQUAL_FATAL(na, nb);
    CU_ASSERT_EQUAL(memcmp(a, b, na * sizeof *a), 0);
    const unsigned full = never.calls;
    const unsigned ks[] = {1, full / 2, full};
    for (size_t i = 0; i < G_N_ELEMENTS(ks); i++) {
        StopCounter c = {0, ks[i]};
        GError *error = NULL;
        PrismSpace *x = prism_space_new_stoppable(m, &t, dev, 2, NULL, stop_at, &c, &error);
        CU_ASSERT_PTR_NULL(x);
        CU_ASSERT_TRUE(
            g_error_matches(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERRUPTED));
        CU_ASSERT_EQUAL(c.calls, ks[i]);
        g_clear_error(&error);
        prism_space_free(x);
    }
    StopCounter late = {0, full + 1};
    g_autoptr(PrismSpace) y = prism_space_new_stoppable(m, &t, dev, 2, NULL, stop_at, &late, NULL);
    CU_ASSERT_PTR_NOT_NULL(y);
    CU_ASSERT_EQUAL(late.calls, full);
    CU_ASSERT_TRUE(y != NULL && prism_space_size(y) == prism_space_size(ref));
}

/* A filtered space is the unfiltered one restricted, in the same relative order. */
static void check_filter(const PrismModel *m, const PrismTraining *t, const uint32_t *dev,
                         size_t nd, const char *fix, const char *range, const char *only)
{
    g_autoptr(PrismSpaceFilter) f = prism_space_filter_new();
    GError *error = NULL;
    if (fix)
        CU_ASSERT_TRUE(prism_space_filter_fix(f, fix, &error));
    if (range)
        CU_ASSERT_TRUE(prism_space_filter_range(f, range, &error));
    if (only)
        CU_ASSERT_TRUE(prism_space_filter_only(f, only, &error));
    CU_ASSERT_PTR_NULL(error);
    g_clear_error(&error);
    g_autoptr(PrismSpace) all = prism_space_new(m, t, dev, nd, NULL, NULL);
    g_autoptr(PrismSpaceFilter) fc = prism_space_filter_copy(f); /* a copy filters the same */
    g_autoptr(PrismSpace) sub = prism_space_new(m, t, dev, nd, fc, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(all);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sub);
    uint64_t j = 0;
    gboolean ok = TRUE;
    for (uint64_t i = 0; i < prism_space_size(all) && ok; i++) {
        PrismStrategy s, u;
        prism_space_unrank(all, i, &s);
        if (!prism_space_filter_accepts_strategy(f, &s))
            continue;
        ok = prism_space_unrank(sub, j, &u) && prism_strategy_equal(&s, &u);
        j++;
    }
    CU_ASSERT_TRUE(ok);
    CU_ASSERT_EQUAL(j, prism_space_size(sub));
    CU_ASSERT_TRUE(j < prism_space_size(all));
}

static void test_filters(void)
{
    g_autoptr(PrismModel) m = small_model(6, 0, 0, 6, 2, 12, 0, 0, 0);
    PrismTraining t = training(12, 12);
    const uint32_t dev[] = {6, 12};
    check_filter(m, &t, dev, 2, "tp=2,zero=1", NULL, NULL);
    check_filter(m, &t, dev, 2, NULL, "pp=2:6,mbs=:2", NULL);
    check_filter(m, &t, dev, 2, NULL, NULL, "schedule=1f1b,interleaved,recompute=none,block:1");
    check_filter(m, &t, dev, 2, "devices=12", "k=2:", "recompute=block,full");
    check_filter(m, &t, dev, 2, "sp=on", "dp=2:4,m=2:", "zero=0,3");
    /* options on the same dimension intersect */
    check_filter(m, &t, dev, 2, "pp=2", "pp=1:3", "vpp=1,3");
    check_filter(m, &t, dev, 2, "offload=0", NULL, NULL);
    check_filter(m, &t, dev, 2, NULL, NULL, "offload=1,schedule=1f1b");
}

static void expect_error(gboolean ok, GError *error, int code, const char *needle)
{
    CU_ASSERT_FALSE(ok);
    CU_ASSERT_PTR_NOT_NULL(error);
    if (error != NULL) {
        if (error->domain != PRISM_INPUT_ERROR || error->code != code ||
            strstr(error->message, needle) == NULL)
            fprintf(stderr, "unexpected error (%d): %s (wanted '%s')\n", error->code,
                    error->message, needle);
        CU_ASSERT_EQUAL(error->domain, PRISM_INPUT_ERROR);
        CU_ASSERT_EQUAL(error->code, code);
        CU_ASSERT_PTR_NOT_NULL(strstr(error->message, needle));
    }
}

static void test_filter_errors(void)
{
    struct {
        int kind; /* 0 fix, 1 range, 2 only */
        const char *text;
        int code;
        const char *needle;
    } cases[] = {
        {0, "tq=8", PRISM_INPUT_ERROR_UNKNOWN_NAME, "unknown dimension 'tq' (closest: tp"},
        {0, "zero=5", PRISM_INPUT_ERROR_VALUE, "--fix zero=5: out of range (allowed: 0, 1"},
        {0, "tp=0", PRISM_INPUT_ERROR_VALUE, "--fix tp=0"},
        {0, "tp=8,16", PRISM_INPUT_ERROR_PARSE, "one value per dimension"},
        {0, "tp=x", PRISM_INPUT_ERROR_PARSE, "'x' is not a non-negative integer"},
        {0, "8", PRISM_INPUT_ERROR_PARSE, "expected DIM=VALUE"},
        {1, "schedule=1f1b:gpipe", PRISM_INPUT_ERROR_VALUE, "takes names, not a range"},
        {1, "pp=16:4", PRISM_INPUT_ERROR_VALUE, "ends before it starts"},
        {2, "schedule=zigzag", PRISM_INPUT_ERROR_VALUE, "unknown schedule 'zigzag'"},
        {2, "recompute=some", PRISM_INPUT_ERROR_UNKNOWN_NAME, "recompute=some"},
        {2, "recompute=full:3", PRISM_INPUT_ERROR_UNKNOWN_NAME, "block:K"},
        {2, "tp=1,tp=2", PRISM_INPUT_ERROR_CONFLICT, "appears twice"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autoptr(PrismSpaceFilter) f = prism_space_filter_new();
        GError *error = NULL;
        gboolean ok = cases[i].kind == 0   ? prism_space_filter_fix(f, cases[i].text, &error)
                      : cases[i].kind == 1 ? prism_space_filter_range(f, cases[i].text, &error)
                                           : prism_space_filter_only(f, cases[i].text, &error);
        expect_error(ok, error, cases[i].code, cases[i].needle);
        g_clear_error(&error);
        /* a rejected option leaves the filter untouched */
        g_autofree char *d = prism_space_filter_describe(f);
        CU_ASSERT_STRING_EQUAL(d, "");
    }
}

static void test_empty_space_errors(void)
{
    g_autoptr(PrismModel) m = prism_model_zoo_get("gpt3-175b", NULL);
    PrismTraining t;
    prism_training_default(&t);
    const uint32_t dev[] = {1024};
    GError *error = NULL;
    /* tp=3 breaks R2 (96 heads are fine but 1024 % 3 != 0): no valid tp value */
    g_autoptr(PrismSpaceFilter) f = prism_space_filter_new();
    CU_ASSERT_TRUE(prism_space_filter_fix(f, "tp=3", NULL));
    PrismSpace *sp = prism_space_new(m, &t, dev, 1, f, &error);
    CU_ASSERT_PTR_NULL(sp);
    expect_error(FALSE, error, PRISM_INPUT_ERROR_INFEASIBLE,
                 "exclude every valid value of tp: the valid values for gpt3-175b on 1024 "
                 "devices are 1 2 4 8 16 32");
    g_clear_error(&error);
    /* each alone is fine, the combination is not: interleaved (vpp=2) with pp=16 needs
     * m % 16 == 0 but dp=16,mbs=8 gives m = 12 */
    g_autoptr(PrismSpaceFilter) g = prism_space_filter_new();
    CU_ASSERT_TRUE(prism_space_filter_fix(g, "pp=16,vpp=2,dp=16,mbs=8", NULL));
    sp = prism_space_new(m, &t, dev, 1, g, &error);
    CU_ASSERT_PTR_NULL(sp);
    expect_error(FALSE, error, PRISM_INPUT_ERROR_INFEASIBLE, "together leave no valid strategy");
    g_clear_error(&error);
    /* 97 devices (prime > 96 layers): dp = 97 does not divide gbs 1536 (R8), tp = 97
     * breaks R2, pp = 97 R6 and cp = 97 R3 */
    const uint32_t seven[] = {97};
    sp = prism_space_new(m, &t, seven, 1, NULL, &error);
    CU_ASSERT_PTR_NULL(sp);
    expect_error(FALSE, error, PRISM_INPUT_ERROR_INFEASIBLE, "R8:");
    g_clear_error(&error);
    /* bad device lists */
    const uint32_t bad[] = {8, 4};
    sp = prism_space_new(m, &t, bad, 2, NULL, &error);
    expect_error(sp != NULL, error, PRISM_INPUT_ERROR_VALUE, "ascending");
    g_clear_error(&error);
}

static void test_rank_outside(void)
{
    g_autoptr(PrismModel) m = small_model(6, 0, 0, 6, 2, 12, 0, 0, 0);
    PrismTraining t = training(12, 12);
    const uint32_t dev[] = {6, 12};
    g_autoptr(PrismSpaceFilter) f = prism_space_filter_new();
    CU_ASSERT_TRUE(prism_space_filter_fix(f, "zero=1", NULL));
    g_autoptr(PrismSpace) sp = prism_space_new(m, &t, dev, 2, f, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
    PrismStrategy s;
    CU_ASSERT_TRUE(prism_space_unrank(sp, 0, &s));
    uint64_t idx;
    PrismStrategy x = s;
    x.zero = 2; /* filtered out */
    CU_ASSERT_FALSE(prism_space_rank(sp, &x, &idx));
    x = s;
    x.devices = 8; /* not in the device list */
    CU_ASSERT_FALSE(prism_space_rank(sp, &x, &idx));
    x = s;
    x.m += 1; /* derived dim inconsistent */
    CU_ASSERT_FALSE(prism_space_rank(sp, &x, &idx));
    x = s;
    x.recompute = PRISM_RECOMPUTE_BLOCK;
    x.rc_layers = 40; /* no such segment */
    CU_ASSERT_FALSE(prism_space_rank(sp, &x, &idx));
    CU_ASSERT_TRUE(prism_space_rank(sp, &s, &idx));
    CU_ASSERT_EQUAL(idx, 0);
}

static void test_describe(void)
{
    g_autoptr(PrismModel) m = small_model(2, 0, 0, 2, 2, 2, 0, 0, 0);
    PrismTraining t = training(2, 4);
    const uint32_t dev[] = {2};
    g_autoptr(PrismSpace) sp = prism_space_new(m, &t, dev, 1, NULL, NULL);
    g_autofree char *text = prism_space_describe(sp, FALSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "total         170 strategies"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "offload            2  0 1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "schedule           4  1f1b gpipe zb-h1 seq1f1b"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "zero               4  0..3"));
    g_autofree char *json = prism_space_describe(sp, TRUE);
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"total\":170"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"offload\":{\"count\":2,\"values\":[0,1]}"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"tp\":{\"count\":2,\"values\":[1,2]}"));
    g_autoptr(PrismSpaceFilter) f = prism_space_filter_new();
    CU_ASSERT_TRUE(prism_space_filter_fix(f, "tp=2", NULL));
    CU_ASSERT_TRUE(prism_space_filter_only(f, "schedule=1f1b,gpipe", NULL));
    g_autofree char *d = prism_space_filter_describe(f);
    CU_ASSERT_STRING_EQUAL(d, "--fix tp=2; --only schedule=1f1b,gpipe");
}

/* R6's chunk bound: a 200-block model at pp = 2 could interleave 100 chunks per stage;
 * the space stops at PRISM_VPP_MAX = 64 (vpp 1..64), every index still a strategy the
 * rules accept, and vpp 65 is refused by the rules with R6. */
static void test_vpp_max(void)
{
    g_autoptr(PrismModel) m = small_model(200, 0, 0, 4, 2, 16, 0, 0, 0);
    PrismTraining t = training(8, 512);
    const uint32_t dev[] = {2};
    g_autoptr(PrismSpaceFilter) f = prism_space_filter_new();
    CU_ASSERT_TRUE_FATAL(prism_space_filter_fix(f, "pp=2", NULL));
    g_autoptr(PrismSpace) sp = prism_space_new(m, &t, dev, 1, f, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
    size_t n = 0;
    g_autofree uint64_t *vpp = prism_space_dim_values(sp, PRISM_DIM_VPP, &n);
    CU_ASSERT_EQUAL(n, PRISM_VPP_MAX);
    CU_ASSERT_TRUE(n == PRISM_VPP_MAX && vpp[0] == 1 && vpp[n - 1] == PRISM_VPP_MAX);
    CU_ASSERT_TRUE(check_bijection(sp, m, &t, 7));
    PrismStrategy s = {.devices = 2,
                       .dp = 1,
                       .tp = 1,
                       .pp = 2,
                       .vpp = PRISM_VPP_MAX,
                       .cp = 1,
                       .ep = 1,
                       .etp = 1,
                       .mbs = 1,
                       .m = 8,
                       .schedule = PRISM_SCHEDULE_INTERLEAVED};
    CU_ASSERT_TRUE(prism_strategy_check(&s, m, &t, NULL));
    s.vpp = PRISM_VPP_MAX + 1;
    GError *error = NULL;
    CU_ASSERT_FALSE(prism_strategy_check(&s, m, &t, &error));
    CU_ASSERT_PTR_NOT_NULL(error ? strstr(error->message, "R6: vpp=65 exceeds the 64") : NULL);
    g_clear_error(&error);
}

/* One lane's GEMM key (tp, cp, mbs, ep, etp) as the id set stores it. */
static void lane_key(const PrismLanes *l, size_t i, double k[5])
{
    k[0] = l->tp[i];
    k[1] = l->cp[i];
    k[2] = l->mbs[i];
    k[3] = l->ep[i];
    k[4] = l->etp[i];
}

/* Every column of @p n lanes of two runs, bit for bit. */
static gboolean same_columns(const PrismCostOut *a, const PrismCostOut *b, size_t n)
{
    for (int c = 0; c < PRISM_COL_COUNT; c++)
        if (memcmp(a->col[c], b->col[c], n * sizeof(double)) != 0)
            return FALSE;
    return TRUE;
}

/*
 * The lanes' GEMM key ids (cost.h PrismLanes.gkey_id, numbered by the lane table): in every
 * segment of a MoE space on 4 and 8 devices, each lane's id names its own (tp, cp, mbs, ep,
 * etp) in gkeys, equal ids mean equal keys and the reverse (checked against a fresh map),
 * ids count up from 0 in order of first appearance, and the segments of one table share
 * one serial. After the tables are released and rebuilt the serial is new and the ids are
 * the same. An evaluator fed the ids gives every column of every lane bit for bit as one
 * that looks each key up by value (gkey_id NULL), also when the id sets alternate.
 */
static void test_gemm_key_ids(void)
{
    g_autoptr(PrismModel) m = small_model(1, 4, 1, 4, 1, 16, 4, 8, 1);
    PrismTraining t = training(8, 8);
    const uint32_t devices[] = {4, 8};
    g_autoptr(PrismSpace) sp = prism_space_new(m, &t, devices, 2, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
    size_t n_seg = 0;
    const PrismSpaceSegment *segs = prism_space_segments(sp, &n_seg);
    CU_ASSERT_TRUE_FATAL(n_seg > 4);
    GError *error = NULL;
    g_autoptr(PrismCluster) c = prism_cluster_preset("H100-SXM", &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    PrismKnobs k;
    prism_knobs_default(&k);
    g_autoptr(PrismCostModel) cm = prism_cost_model_new(m, c, &t, &k, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cm);
    size_t max_n = 0;
    for (size_t i = 0; i < n_seg; i++)
        max_n = MAX(max_n, (size_t)segs[i].count);
    const PrismKernelTable *kt = prism_kernel_table_get("scalar", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(kt);
    g_autoptr(PrismEvaluator) with_ids = prism_evaluator_new(cm, kt, max_n);
    g_autoptr(PrismEvaluator) by_value = prism_evaluator_new(cm, kt, max_n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(with_ids);
    CU_ASSERT_PTR_NOT_NULL_FATAL(by_value);
    PrismCostOut a, b;
    g_autofree double *buf = g_new0(double, 2 * (size_t)PRISM_COL_COUNT * max_n);
    for (int col = 0; col < PRISM_COL_COUNT; col++) {
        a.col[col] = buf + (size_t)col * max_n;
        b.col[col] = buf + (size_t)(PRISM_COL_COUNT + col) * max_n;
    }
    g_autofree uint64_t *serial = g_new0(uint64_t, n_seg);
    g_autofree uint32_t *n_keys = g_new0(uint32_t, n_seg);
    size_t lanes_checked = 0, evaluated = 0, shared = 0, priced = 0;
    gboolean ids_ok = TRUE, eval_ok = TRUE;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n_seg; i++) {
            PrismLanes l;
            prism_space_lanes(sp, i, 0, segs[i].count, &l);
            if (l.gkey_id == NULL || l.n_gkeys == 0) {
                ids_ok = FALSE;
                continue;
            }
            if (pass == 0) {
                serial[i] = l.gkey_serial;
                n_keys[i] = l.n_gkeys;
                for (size_t j = 0; j < i; j++)
                    shared += serial[j] == serial[i];
            } else {
                /* rebuilt after the release: a new serial, the same numbering */
                ids_ok = ids_ok && l.gkey_serial != serial[i] && l.n_gkeys == n_keys[i];
            }
            g_autoptr(GHashTable) seen =
                g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
            uint32_t next = 0;
            for (size_t j = 0; j < l.n; j++) {
                double key[5];
                lane_key(&l, j, key);
                const uint32_t id = l.gkey_id[j];
                ids_ok = ids_ok && id < l.n_gkeys &&
                         memcmp(l.gkeys + 5 * (size_t)id, key, sizeof key) == 0;
                char *text =
                    g_strdup_printf("%g %g %g %g %g", key[0], key[1], key[2], key[3], key[4]);
                gpointer known = NULL;
                if (g_hash_table_lookup_extended(seen, text, NULL, &known)) {
                    ids_ok = ids_ok && GPOINTER_TO_UINT(known) == id;
                    g_free(text);
                } else {
                    ids_ok = ids_ok && id == next; /* a new key takes the next id */
                    next++;
                    g_hash_table_insert(seen, text, GUINT_TO_POINTER(id));
                }
            }
            ids_ok = ids_ok && next == l.n_gkeys;
            lanes_checked += l.n;
            g_autoptr(PrismCostSegment) seg =
                prism_cost_segment_new(cm, &segs[i].key, FALSE, &error);
            if (seg == NULL) { /* a segment the cost model refuses: nothing to compare */
                g_clear_error(&error);
                continue;
            }
            PrismLanes plain = l;
            plain.gkey_id = NULL;
            prism_evaluator_run(with_ids, seg, &l, &a);
            prism_evaluator_run(by_value, seg, &plain, &b);
            eval_ok = eval_ok && same_columns(&a, &b, l.n);
            evaluated += l.n;
            priced += a.col[PRISM_COL_TIME_STEP][0] > 0; /* the runs wrote real values */
        }
        prism_space_release_lanes(sp);
    }
    CU_ASSERT_TRUE(ids_ok);
    CU_ASSERT_TRUE(eval_ok);
    CU_ASSERT_TRUE(shared > 0); /* segments of one lane table share its id set */
    CU_ASSERT_TRUE(lanes_checked == 2 * prism_space_size(sp));
    CU_ASSERT_TRUE(evaluated > prism_space_size(sp));
    CU_ASSERT_TRUE(priced > n_seg);
}

/*
 * The static keys (cost.h PrismLanes.skey_id; the search's pruning, search/README.md): in
 * every segment (every @p stride-th one) of @p sp, each lane's id is that of its (tp, cp,
 * ep, zero, etp) in order of first appearance (checked against a fresh map). Evaluated
 * with prism_evaluator_run_static, every lane's static bytes equal its key's first lane's,
 * bit for bit, and its peak is at least that (what makes pruning exact). Counts lanes into
 * *lanes and keys into *keys.
 */
static gboolean check_static_keys(const PrismCostModel *cm, const PrismSpace *sp, size_t stride,
                                  size_t *lanes, size_t *keys)
{
    size_t n_seg = 0;
    const PrismSpaceSegment *segs = prism_space_segments(sp, &n_seg);
    const PrismKernelTable *kt = prism_kernel_table_get("scalar", NULL);
    size_t max_n = 1;
    for (size_t i = 0; i < n_seg; i++)
        max_n = MAX(max_n, (size_t)segs[i].count);
    g_autoptr(PrismEvaluator) ev = prism_evaluator_new(cm, kt, max_n);
    PrismCostOut out;
    g_autofree double *buf = g_new0(double, (size_t)PRISM_COL_COUNT *max_n);
    for (int col = 0; col < PRISM_COL_COUNT; col++)
        out.col[col] = buf + (size_t)col * max_n;
    g_autofree double *stat = g_new(double, max_n);
    g_autofree double *first = g_new(double, max_n); /* per key: its first lane's bytes */
    gboolean ok = kt != NULL && n_seg > 0;
    for (size_t i = 0; ok && i < n_seg; i += stride) {
        PrismLanes l;
        prism_space_lanes(sp, i, 0, segs[i].count, &l);
        if (l.skey_id == NULL || l.n_skeys == 0 || l.n_skeys > l.n)
            return FALSE;
        g_autoptr(PrismCostSegment) seg = prism_cost_segment_new(cm, &segs[i].key, FALSE, NULL);
        if (seg != NULL)
            prism_evaluator_run_static(ev, seg, &l, &out, stat);
        g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        uint32_t next = 0;
        for (size_t j = 0; ok && j < l.n; j++) {
            char *text =
                g_strdup_printf("%g %g %g %g %g", l.tp[j], l.cp[j], l.ep[j], l.zero[j], l.etp[j]);
            const uint32_t id = l.skey_id[j];
            gpointer known = NULL;
            if (g_hash_table_lookup_extended(seen, text, NULL, &known)) {
                ok = GPOINTER_TO_UINT(known) == id;
                g_free(text);
            } else { /* a new key takes the next id */
                ok = id == next;
                first[id] = stat[j];
                next++;
                g_hash_table_insert(seen, text, GUINT_TO_POINTER(id));
            }
        }
        ok = ok && next == l.n_skeys;
        if (!ok || seg == NULL)
            continue;
        for (size_t j = 0; ok && j < l.n; j++) {
            ok = stat[j] == first[l.skey_id[j]] && out.col[PRISM_COL_MEM_PEAK][j] >= stat[j] &&
                 stat[j] > 0;
            if (!ok)
                fprintf(stderr, "segment %zu lane %zu: static %.17g, its key's %.17g, peak %.17g\n",
                        i, j, stat[j], first[l.skey_id[j]], out.col[PRISM_COL_MEM_PEAK][j]);
        }
        *lanes += l.n;
        *keys += l.n_skeys;
    }
    return ok;
}

static void test_static_keys(void)
{
    /* a small MoE model, and zoo models under the knobs that change static bytes: HSDP,
     * FSDP without reshard, FSDP under a pipeline, the low-precision ZeRO-3 shard, offload,
     * FP8 weight copies */
    g_autoptr(PrismModel) small = small_model(1, 4, 1, 4, 1, 16, 4, 8, 1);
    static const struct {
        const char *model, *cluster, *knobs, *only;
        uint32_t devices;
        uint64_t gbs, seq;
        PrismDtype dtype;
        size_t stride;
    } cases[] = {
        {NULL, "H100-SXM", NULL, NULL, 8, 8, 8, PRISM_DTYPE_BF16, 1},
        {"llama3-8b", "H100-SXM", "hsdp=1", "pp=1,2", 16, 32, 4096, PRISM_DTYPE_BF16, 3},
        {"llama3-8b", "A100-80GB", "fsdp_reshard=0,zero3_lowp_shard=1", "pp=1,2", 16, 32, 2048,
         PRISM_DTYPE_BF16, 3},
        {"qwen3-30b-a3b", "H100-SXM", "fsdp_pp_nosync=1", "pp=2,4", 32, 64, 4096, PRISM_DTYPE_FP8,
         5},
        {"deepseek-v2-lite", "H100-SXM", NULL, "pp=1,2,offload=0,1,2,3", 16, 32, 4096,
         PRISM_DTYPE_BF16, 3},
    };
    size_t lanes = 0, keys = 0;
    for (size_t c = 0; c < G_N_ELEMENTS(cases); c++) {
        GError *error = NULL;
        g_autoptr(PrismModel) zoo =
            cases[c].model ? prism_model_zoo_get(cases[c].model, &error) : NULL;
        const PrismModel *m = cases[c].model ? zoo : small;
        g_autoptr(PrismCluster) cl = prism_cluster_preset(cases[c].cluster, &error);
        CU_ASSERT_PTR_NOT_NULL_FATAL(m);
        CU_ASSERT_PTR_NOT_NULL_FATAL(cl);
        PrismTraining t = training(cases[c].gbs, cases[c].seq);
        t.dtype = cases[c].dtype;
        PrismKnobs k;
        prism_knobs_default(&k);
        if (cases[c].knobs != NULL) {
            g_auto(GStrv) set = g_strsplit(cases[c].knobs, ",", -1);
            for (char **a = set; *a != NULL; a++)
                CU_ASSERT_TRUE_FATAL(prism_knobs_set(&k, *a, &error));
        }
        g_autoptr(PrismSpaceFilter) f = prism_space_filter_new();
        if (cases[c].only != NULL)
            CU_ASSERT_TRUE_FATAL(prism_space_filter_only(f, cases[c].only, &error));
        g_autoptr(PrismSpace) sp = prism_space_new(m, &t, &cases[c].devices, 1, f, &error);
        g_autoptr(PrismCostModel) cm = sp ? prism_cost_model_new(m, cl, &t, &k, &error) : NULL;
        if (error != NULL)
            fprintf(stderr, "case %zu: %s\n", c, error->message);
        CU_ASSERT_PTR_NOT_NULL_FATAL(cm);
        /* the sanitizer pass checks every fourth segment of these */
        const size_t stride = cases[c].stride * (prism_test_sanitized() ? 4 : 1);
        const gboolean ok = check_static_keys(cm, sp, stride, &lanes, &keys);
        if (!ok)
            fprintf(stderr, "static keys: case %zu (%s)\n", c,
                    cases[c].model ? cases[c].model : "small");
        CU_ASSERT_TRUE(ok);
    }
    /* the keys are few next to the lanes (what pruning evaluates of a key is one lane) */
    printf("[%zu lanes, %zu static keys] ", lanes, keys);
    CU_ASSERT_TRUE(lanes > 10000 && keys > 100 && 4 * keys < lanes);
}

static CU_TestInfo space_tests[] = {
    {"GEMM key ids of the lanes; evaluation with them is bit-identical", test_gemm_key_ids},
    {"static keys: numbering, static bytes per key and <= the peak", test_static_keys},
    {"R6: vpp at most PRISM_VPP_MAX", test_vpp_max},
    {"hand count", test_hand_count},
    {"released lanes are rebuilt", test_release_lanes},
    {"brute force: dense GQA", test_brute_dense_gqa},
    {"brute force: prime layers", test_brute_dense_prime_layers},
    {"brute force: MoE + MTP", test_brute_moe},
    {"brute force: a hybrid model's Mamba-2 TP and CP rules", test_brute_hybrid},
    {"brute force: every schedule admitted", test_brute_every_schedule},
    {"brute force: the whole offload domain, --fix offload=0", test_brute_offload},
    {"brute force: the overlap dims, their default and --fix", test_brute_overlap},
    {"brute force: equal model chunks", test_brute_uniform},
    {"brute force: context parallelism always shards", test_cp_shards},
    {"parallel folding filters", test_folding_filter},
    {"a framework default where the shape rules allow it", test_default_where_allowed},
    {"gpt3 default space", test_gpt3_default},
    {"the stop hook ends the enumeration", test_stop_hook},
    {"filters", test_filters},
    {"filter errors", test_filter_errors},
    {"empty space errors", test_empty_space_errors},
    {"rank outside the space", test_rank_outside},
    {"describe", test_describe},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"space", NULL, NULL, NULL, NULL, space_tests},
    CU_SUITE_INFO_NULL,
};
