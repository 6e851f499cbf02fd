/*
 * strategy.h - one hybrid-parallel training strategy, its text form and shape rules.
 *
 * The shape rules here are THE definition of a valid strategy: the space enumerator
 * (search/) must produce exactly the strategies that prism_strategy_check() accepts
 * (a test checks this by brute force), and `prism explain` rejects the rest with the
 * violated rule. Memory feasibility is NOT a shape rule: a strategy that does not fit
 * is still valid and gets feasible = 0 from the cost model.
 *
 * Rules (N = devices, L = transformer blocks + MTP layers, a = heads, g = KV heads):
 *   R1  dp*tp*pp*cp == N, all dims >= 1
 *   R2  tp divides a, hidden, every dense FFN and shared-expert width; etp divides every
 *       routed-expert width; and tp divides g or g divides tp (KV heads are replicated
 *       when tp > g)
 *       Hybrid layers: tp divides a Mamba-2 layer's heads and groups, a gated-DeltaNet
 *       layer's key and value heads (Megatron-Core splits them over tp)
 *   R3  cp > 1: seq % (2*cp) == 0 (load-balanced ring attention); Mamba-2 layers (their CP
 *       is Megatron-Core's all-to-all over heads): cp divides heads/tp, and groups/tp and
 *       cp divide one another; gated-DeltaNet layers: cp == 1 (no framework has CP there)
 *   R4  sp == 1 needs tp > 1 and (seq/cp) % tp == 0
 *   R5  dense model: ep == 1 and etp == tp; MoE: ep divides the routed-expert count and
 *       etp*ep divides tp*cp*dp (parallel folding: the MoE part re-splits the attention
 *       part's tp x cp x dp devices into etp x ep x edp, edp = tp*cp*dp/(etp*ep))
 *   R6  pp <= L; pp*vpp <= L; vpp > 1 needs pp > 1; vpp <= PRISM_VPP_MAX (64)
 *   R7  schedule: pp == 1 -> 1f1b; every other schedule needs pp > 1; interleaved needs
 *       vpp > 1; zb-v and dualpipe-v need vpp == 2 (two chunks per device in a V);
 *       gpipe, zb-h1, dualpipe and seq1f1b need vpp == 1; dualpipe needs pp even
 *       (device s holds stages s and pp-1-s of the two directions)
 *       (each schedule's R7 and R8 rules are fields of its row in registry.h)
 *   R8  gbs == dp*mbs*m; interleaved -> m % pp == 0 (so m >= pp); zb-h1 -> m >= pp;
 *       zb-v, dualpipe-v -> m >= 2pp; dualpipe -> m even and m >= 2pp (DeepSeek's
 *       DualPipe asserts both); 1f1b, gpipe and seq1f1b accept m < pp (fewer
 *       micro-batches than stages: a longer bubble, and stage s holds min(pp - s, m)
 *       micro-batches)
 *   R9  zero in 0..3; zero > 0 needs dp*cp > 1 (the sharding group is dp x cp)
 *   R10 recompute=block (full on the first k layers of each model chunk):
 *       1 <= k < max layers per chunk; other modes have k == 0
 *   R11 offload in 0..3: a bit set of PRISM_OFFLOAD_OPTIMIZER (1: the optimizer state
 *       and its update live in host memory) and PRISM_OFFLOAD_ACTIVATIONS (2: every
 *       layer's kept activations are copied to host memory after its forward and back
 *       before its backward). Any offload is valid with any other dims; whether the host
 *       holds it is a feasibility question (cost.h, PRISM_REASON_MEM_HOST)
 *   R12 overlap_off, a bit set of PrismOverlap options turned OFF (0 = every option on:
 *       the framework's hidden fractions, the knobs tp_overlap / dp_overlap, apply). A
 *       bit may be set only where its option means something: TP communication overlap
 *       needs tp > 1 and sp = 1 (Megatron-Core asserts --tp-comm-overlap needs
 *       --sequence-parallel); gradient-reduce overlap needs a per-step DP collective,
 *       dp*cp > 1 and zero < 3; parameter-gather overlap needs the distributed
 *       optimizer's all-gather, dp*cp > 1 and zero 1 or 2. Elsewhere the option is
 *       blank: its dim holds 1 and nothing is hidden or exposed by it
 *
 * Parallel folding (Liu et al., "MoE Parallel Folding", arXiv 2504.14960; Megatron-Core
 * --expert-tensor-parallel-size): the attention part runs on (tp, cp, dp), the routed
 * experts on (etp, ep, edp) over the SAME tp*cp*dp devices of a pipeline stage. Device
 * order (innermost first): attention tp, cp, dp; experts etp, ep, edp. So the ETP group is
 * etp consecutive devices, the EP group ep devices at stride etp (it spans etp*ep
 * consecutive devices) and the expert data-parallel group edp devices at stride etp*ep.
 * A strategy is TIED (folding = 0) when etp == tp and ep divides dp*cp: the mapping of
 * Megatron-Core before folding (EP carved out of dp x cp at stride tp). Every other MoE
 * strategy is FOLDED (folding = 1). Dense models have no expert part: etp == tp by
 * definition (their FFN is split by tp), so every dense strategy is tied.
 * Nothing here is collective.
 */
#ifndef PRISM_STRATEGY_H
#define PRISM_STRATEGY_H

#include <stdint.h>

#include <glib.h>

#include <prism/model.h>
#include <prism/registry.h>
#include <prism/training.h>

G_BEGIN_DECLS

/**
 * Model chunks per pipeline stage at most (rule R6). Megatron-LM sets no bound, but the
 * interleaved schedule's in-flight states cost O(pp x vpp^2) to price (cost_stages.c), so
 * a 2,000-layer model at vpp 1,000 would never finish a plan; no zoo model comes near it
 * (126 layers at pp 2: vpp <= 63), and interleaving beyond a few tens of chunks pays a
 * pipeline send per chunk for nothing.
 */
#define PRISM_VPP_MAX 64u

/**
 * Checkpointing every N-th layer as recompute=block:k. torchtitan's
 * activation_checkpoint.selective_ac_option = "N" counts the blocks a rank builds (its
 * model chunks in turn) and wraps the N-th, 2N-th, ... in a full checkpoint: a rank of @p vpp
 * chunks of @p per_chunk layers recomputes floor(per_chunk * vpp / N) of them, which block:k
 * prices as k per chunk. Returns the smallest N >= 2 with floor(per_chunk * vpp / N) =
 * k * vpp, or 0 when no N gives k (k = 0, k >= per_chunk, or a count that is no
 * multiple of vpp). Example: 32 layers in one chunk: k = 16 (N = 2), 10 (N = 3), 8, 6, 5,
 * 4, 3, 2, 1 (N = 17); k = 7 none.
 */
uint32_t prism_recompute_every_nth(uint32_t per_chunk, uint32_t vpp, uint32_t k);

/** One strategy. Plain data; compare with prism_strategy_equal(). */
typedef struct PrismStrategy {
    uint32_t devices;
    uint32_t dp, tp, pp, vpp, cp, ep;
    uint32_t mbs;       /**< micro-batch size in sequences */
    uint32_t m;         /**< micro-batches per step */
    uint8_t sp;         /**< Megatron sequence parallel, 0/1 */
    uint8_t zero;       /**< 0..3 */
    uint8_t recompute;  /**< PrismRecompute */
    uint8_t schedule;   /**< PrismSchedule */
    uint16_t rc_layers; /**< k for PRISM_RECOMPUTE_BLOCK, else 0 */
    /** expert tensor parallelism; 0 = "same as tp" (the tied default, so initialisers
     *  written before etp existed keep their meaning). Read it with prism_strategy_etp(). */
    uint32_t etp;
    uint8_t offload; /**< PrismOffload bit set (R11); 0 = nothing offloaded */
    /** PrismOverlap bit set of options turned off (R12); 0 = all on (the knobs' hidden
     *  fractions apply, the behaviour before the overlap dims). */
    uint8_t overlap_off;
} PrismStrategy;

/** The value of @p dim in @p s (schedule/recompute as their codes; an overlap dim 1 when
 *  its option is on; etp and folding as prism_strategy_etp/_folding give them). */
uint64_t prism_strategy_dim(const PrismStrategy *s, PrismDim dim);
/** Set the field of @p dim in @p s to @p v, the inverse of prism_strategy_dim() (an overlap
 *  dim: 1 on, 0 off); a derived dim (folding) is left alone. No check: v is not range-checked. */
void prism_strategy_set_dim(PrismStrategy *s, PrismDim dim, uint32_t v);

/** TRUE when overlap option @p bit (PrismOverlap) means something for @p s (R12). */
gboolean prism_strategy_overlap_applies(const PrismStrategy *s, PrismOverlap bit);

/** The strategy's etp (s->etp, or tp when s->etp == 0). */
uint32_t prism_strategy_etp(const PrismStrategy *s);
/** Expert data parallelism edp = tp*cp*dp / (etp*ep) (0 when that does not divide). */
uint32_t prism_strategy_edp(const PrismStrategy *s);
/** 0 when @p s is tied (etp == tp and ep divides dp*cp), 1 when folded. */
uint32_t prism_strategy_folding(const PrismStrategy *s);

gboolean prism_strategy_equal(const PrismStrategy *a, const PrismStrategy *b);

/**
 * Parse "dp=8,tp=8,pp=16,vpp=1,cp=1,ep=1,sp=1,mbs=1,zero=1,recompute=selective,
 * schedule=1f1b". recompute also takes "block:K" (full on the first K layers of each
 * chunk). "etp=E" sets expert tensor parallelism (left out: etp = tp, the tied mapping).
 * Keys left out take defaults: tp=pp=vpp=cp=ep=mbs=1, sp=0, zero=0,
 * recompute=none, schedule=interleaved when vpp>1 else 1f1b, offload=0, tp_overlap=1,
 * dp_overlap=1, param_overlap=1 (0 turns an option off), dp=N/(tp*pp*cp),
 * m=gbs/(dp*mbs). @p devices and @p training supply N and gbs for the derived keys.
 * Errors: PRISM_INPUT_ERROR_PARSE (unknown key, bad number) naming key and value;
 * PRISM_INPUT_ERROR_CONFLICT (a key given twice); PRISM_INPUT_ERROR_SHAPE (a left-out dp
 * or m that does not divide out, naming R1 or R8).
 */
gboolean prism_strategy_parse(const char *text, uint32_t devices, const PrismTraining *training,
                              PrismStrategy *out, GError **error);

/** Canonical text form, the inverse of prism_strategy_parse(); etp is written only when
 *  it differs from tp, offload only when it is not 0 and an overlap option only when it
 *  is off (so tied, dense, un-offloaded and all-overlap strategies print as before). Ownership:
 * g_free(). */
char *prism_strategy_format(const PrismStrategy *s);

/**
 * Apply the shape rules R1-R12 above. Errors: PRISM_INPUT_ERROR_SHAPE whose message
 * starts with the rule id ("R2: tp=3 does not divide heads=96").
 */
gboolean prism_strategy_check(const PrismStrategy *s, const PrismModel *model,
                              const PrismTraining *training, GError **error);

/**
 * The R2/R3 rules of one block spec's Mamba-2 or gated-DeltaNet mixer at @p tp and @p cp
 * (TRUE for other mixers). Shared by prism_strategy_check() and the space enumerator.
 * Errors: PRISM_INPUT_ERROR_SHAPE naming the rule.
 */
gboolean prism_strategy_ssm_ok(const PrismBlockSpec *spec, uint32_t tp, uint32_t cp,
                               GError **error);

/**
 * R4: sequence parallelism @p sp (in its registry domain) at @p tp, @p cp and sequence
 * length @p seq; R9: ZeRO stage @p zero (in its registry domain) with a sharding group of
 * @p group = dp*cp ranks. Shared by prism_strategy_check() and the space enumerator.
 * Errors: PRISM_INPUT_ERROR_SHAPE naming the rule.
 */
gboolean prism_strategy_sp_ok(uint32_t sp, uint32_t tp, uint32_t cp, uint64_t seq, GError **error);
gboolean prism_strategy_zero_ok(uint32_t zero, uint64_t group, GError **error);

/** Transformer blocks + MTP layers: the layers split over pp*vpp chunks. */
uint32_t prism_model_split_layers(const PrismModel *model);

G_END_DECLS

#endif /* PRISM_STRATEGY_H */
