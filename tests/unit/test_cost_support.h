/*
 * test_cost_support.h - small builders shared by the cost-model tests: a GPT-style
 * model of chosen shape (MHA, GELU, ffn = 4h, LayerNorm, no biases, untied head, RoPE
 * so there are no position parameters) and a cost model over it.
 */
#ifndef PRISM_TEST_COST_SUPPORT_H
#define PRISM_TEST_COST_SUPPORT_H

#include <prism/cost.h>
#include <prism/explain.h>

/** GPT-like model: L blocks of hidden h, a heads (head dim h/a), vocab V, ffn 4h. */
PrismModel *test_gpt_model(uint32_t L, uint64_t h, uint32_t a, uint64_t V);

/** A two-level cluster: 8 devices per node at 300 GB/s, 5 us; then 25 GB/s, 10 us;
 *  80e9 bytes; fp16/bf16 peak 312e12. */
PrismCluster *test_cluster(void);

/** Cost model with default knobs, then "name=value" overrides (NULL-terminated). */
PrismCostModel *test_cost_model(const PrismModel *m, uint64_t gbs, uint64_t seq, PrismDtype dtype,
                                const char *const *sets);

/** The same on cluster @p c (e.g. test_cluster() with a field changed). */
PrismCostModel *test_cost_model_on(const PrismModel *m, const PrismCluster *c, uint64_t gbs,
                                   uint64_t seq, PrismDtype dtype, const char *const *sets);

/** Parse a strategy for @p devices and the model's training; asserts on failure. */
PrismStrategy test_strategy(const PrismCostModel *cm, uint32_t devices, const char *text);

/** Explain's term @p name (its JSON key) of @p level at entry @p index (prism_explain_term);
 *  asserts that the term exists. */
double test_explain_term(const PrismExplain *ex, PrismTermLevel level, unsigned index,
                         const char *name);

/** A batch of random valid strategies that share one segment key (SoA lanes). */
typedef struct TestBatch {
    PrismSegmentKey key;
    size_t n;
    double *tp, *cp, *dp, *ep, *sp, *mbs, *m, *zero, *etp; /* one allocation, 12 x n */
    double *tov, *dov, *pov;                               /* overlap options (R12): 1 on, 0 off */
    PrismLanes lanes;
} TestBatch;

/**
 * Draw a random segment key for @p cm (devices from a fixed list, pp/vpp/schedule/
 * recompute and offload at random; every schedule: interleaved, zb-v or dualpipe-v at vpp = 2),
 * enumerate every (tp, cp, ep, sp, mbs, zero, etp) that passes prism_strategy_check for it, and
 * fill @p n lanes by sampling those with replacement. FALSE when the drawn key admits no strategy
 * (draw again). Free with test_batch_clear().
 */
gboolean test_random_batch(const PrismCostModel *cm, GRand *rng, size_t n, TestBatch *out);
void test_batch_clear(TestBatch *b);

/** A cost model for zoo model @p i with a preset cluster, gbs and seq chosen to suit it. */
PrismCostModel *test_zoo_cost_model(size_t i, GRand *rng);

#endif /* PRISM_TEST_COST_SUPPORT_H */
