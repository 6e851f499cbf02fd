/*
 * opcost.h - symbolic per-operator costs for operator-level sharding (cost/cost_ops.c).
 *
 * Over a tensor-parallel group of t devices a tensor is in one of four layouts
 * (PrismTensorLayout, opgraph.h): replicated, split by rows (tokens / samples), split by
 * features (hidden / heads / channels), or partial sums. Each operator of an opgraph.h graph offers
 * LAYOUT OPTIONS: the input layout it needs, the layout of its input gradient, the output layout it
 * produces, its compute time per device (FLOPs / achievable FLOP/s), the communication
 * the option needs inside the operator (weight-gradient all-reduce, MoE all-to-all, ...)
 * and the bytes per device it holds (weights with gradient and optimizer state, plus the
 * stored input activation). An edge producer -> consumer costs the forward
 * redistribution of the tensor from the producer's output layout to the consumer's input
 * layout plus the backward redistribution of its gradient (all-reduce, reduce-scatter,
 * all-gather, all-to-all or nothing), every collective priced on the cluster level a
 * group of t devices spans (innermost). The formulas are in search/DC.md. The solver
 * that picks one option per operator is smsg.h. The names keep the prism_smsg_ /
 * PrismSmsg prefix of the SMSG instance that introduced them. Pure functions; nothing
 * here is collective.
 */
#ifndef PRISM_OPCOST_H
#define PRISM_OPCOST_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include <prism/cluster.h>
#include <prism/knobs.h>
#include <prism/opgraph.h>

G_BEGIN_DECLS

/** Collective kinds of a redistribution. */
typedef enum {
    PRISM_COLL_NONE = 0,
    PRISM_COLL_ALL_REDUCE,
    PRISM_COLL_REDUCE_SCATTER,
    PRISM_COLL_ALL_GATHER,
    PRISM_COLL_ALL_TO_ALL,
    PRISM_COLL_INVALID, /**< e.g. anything -> partial */
    PRISM_COLL_COUNT
} PrismCollective;

const char *prism_collective_name(PrismCollective c);

/** Pricing environment: group size, link, compute rate and state bytes. */
typedef struct PrismSmsgEnv {
    uint32_t tp;
    uint32_t level; /**< cluster level spanned by the group */
    char level_name[32];
    double bw_Bps;                /**< effective per-device bandwidth, bytes/s */
    double latency_s;             /**< per message step */
    double flops_per_s;           /**< achievable FLOP/s per device */
    double state_bytes_per_param; /**< param + grad + optimizer state, bytes */
    double grad_bytes;            /**< bytes per gradient element in the all-reduce */
} PrismSmsgEnv;

/**
 * Environment for a group of @p tp devices on @p cluster: level from
 * prism_cluster_level_for_extent(tp), bandwidth * net_efficiency, peak bf16 FLOP/s *
 * compute_efficiency (knobs), 16 bytes of state per parameter (bf16 weight and gradient,
 * fp32 master copy and two Adam moments), bf16 gradients. Not collective.
 */
void prism_smsg_env_init(PrismSmsgEnv *env, const PrismCluster *cluster, const PrismKnobs *knobs,
                         uint32_t tp);

#define PRISM_SMSG_MAX_OPTIONS 8

/** One layout option of one operator (cost/cost_ops.c). */
typedef struct PrismLayoutOption {
    const char *name;   /**< "rep", "dp", "col", "row", "heads", "vocab", "expert", ... */
    uint8_t in_layout;  /**< PrismTensorLayout every input must arrive in */
    uint8_t in_grad;    /**< layout of the input gradient this option produces */
    uint8_t out_layout; /**< layout of the output */
    double compute_s;   /**< forward + backward compute per device */
    double comm_s;      /**< communication inside the operator, forward + backward */
    double mem_bytes;   /**< weights with state + stored input activation, per device */
    uint8_t fwd_coll;   /**< PrismCollective the option runs in forward (in-op), or NONE */
} PrismLayoutOption;

/**
 * The layout options of @p op for @p env, in canonical order (ties between equal costs
 * are broken towards the lower index). Options whose split does not divide the
 * dimension are left out; at least one option (replicated) always remains.
 * Returns the count (<= PRISM_SMSG_MAX_OPTIONS). Not collective.
 */
uint32_t prism_op_layout_options(const PrismOp *op, const PrismSmsgEnv *env,
                                 PrismLayoutOption *opts);

/** The collective that turns layout @p from into @p to (INVALID if impossible). */
PrismCollective prism_smsg_move_kind(PrismTensorLayout from, PrismTensorLayout to);
/** Time of one collective of @p kind on a tensor of @p bytes (whole tensor). */
double prism_smsg_coll_time(const PrismSmsgEnv *env, PrismCollective kind, double bytes);

/**
 * Cost of the edge producer -> consumer carrying a tensor of @p bytes when the producer
 * runs option @p prod and the consumer option @p cons: forward move of the tensor from
 * prod->out_layout to cons->in_layout, plus backward move of the gradient from
 * cons->in_grad to the producer's layout (partial outputs need a replicated gradient).
 * Returns +infinity (HUGE_VAL) for an impossible move; *fwd receives the forward
 * collective. Not collective.
 */
double prism_smsg_edge_time(const PrismSmsgEnv *env, const PrismLayoutOption *prod,
                            const PrismLayoutOption *cons, double bytes, PrismCollective *fwd);

G_END_DECLS

#endif /* PRISM_OPCOST_H */
