/*
 * smsg.h - operator-level sharding (SMSG instance of the divide-and-conquer engine).
 *
 * An operator graph is a DAG of operators (linear/matmul, attention core, conv, pooling,
 * norm, elementwise, embedding, softmax, loss, MoE experts, plus the graph's input and
 * output). Every activation tensor is seen as rows x features (rows = batch * seq for
 * transformers, batch for CNNs; features = hidden, or channels * H * W). Over a tensor-
 * parallel group of t devices a tensor is in one of four layouts: replicated, split by
 * rows (tokens / samples), split by features (hidden / heads / channels), or partial sums.
 *
 * Each operator offers LAYOUT OPTIONS (cost/cost_ops.c): the input layout it needs, the
 * layout of its input gradient, the output layout it produces, its compute time per
 * device (FLOPs / achievable FLOP/s), the communication the option needs inside the
 * operator (weight-gradient all-reduce, MoE all-to-all, ...) and the bytes per device it
 * holds (weights with gradient and optimizer state, plus the stored input activation).
 * An edge producer -> consumer costs the forward redistribution of the tensor from the
 * producer's output layout to the consumer's input layout plus the backward
 * redistribution of its gradient (all-reduce, reduce-scatter, all-gather, all-to-all or
 * nothing), every collective priced on the cluster level a group of t devices spans
 * (innermost). Costs are rounded to integer picoseconds and bytes, so the (min,+) and
 * Pareto summaries of dc.h are exact.
 *
 * The exact optimum: the graph must be two-terminal series-parallel; it is reduced by
 * series steps (a chain = product of (min,+) matrices, computed with the engine) and
 * parallel steps (entrywise sum). Non-SP graphs are rejected naming an edge that
 * prevents the reduction. The JSON schema of graph files is in search/DC.md and
 * `prism layouts --help`. Nothing here is collective; everything is re-entrant.
 */
#ifndef PRISM_SMSG_H
#define PRISM_SMSG_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include <prism/cluster.h>
#include <prism/dc.h>
#include <prism/knobs.h>

G_BEGIN_DECLS

/** Layout of a tensor over the TP group. */
typedef enum {
    PRISM_TL_REP = 0,     /**< every device holds the whole tensor */
    PRISM_TL_ROWS = 1,    /**< split by rows (tokens / samples) */
    PRISM_TL_FEAT = 2,    /**< split by features (hidden / heads / channels) */
    PRISM_TL_PARTIAL = 3, /**< every device holds a partial sum of the whole tensor */
    PRISM_TL_NONE = 4,    /**< (gradient only) the input has no gradient */
    PRISM_TL_COUNT = 5,
} PrismTensorLayout;

/** "rep", "rows", "feat", "partial", "none". Static. */
const char *prism_tensor_layout_name(PrismTensorLayout l);

typedef enum {
    PRISM_OP_INPUT = 0,
    PRISM_OP_OUTPUT,
    PRISM_OP_LINEAR, /**< also "matmul": rows x in times in x out */
    PRISM_OP_ATTENTION,
    PRISM_OP_CONV,
    PRISM_OP_POOL,
    PRISM_OP_NORM,
    PRISM_OP_ELEMENTWISE,
    PRISM_OP_EMBEDDING,
    PRISM_OP_SOFTMAX,
    PRISM_OP_LOSS,
    PRISM_OP_MOE,
    PRISM_OP_KIND_COUNT
} PrismOpKind;

/** JSON spelling of a kind ("linear", "attention", ...). Static. */
const char *prism_op_kind_name(PrismOpKind k);

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

/** One operator. Plain data; sizes are element counts. */
typedef struct PrismOp {
    char *name;
    PrismOpKind kind;
    uint32_t *inputs; /**< producer op indices (earlier in the graph) */
    uint32_t n_inputs;
    double batch, seq, rows; /**< rows = batch * seq */
    double in_features;      /**< features of the (first) input tensor */
    double out_features;     /**< features of the output tensor (0 for a loss) */
    double elem_bytes;       /**< bytes per activation element */
    /* kind parameters (0 when unused) */
    double k_in, k_out;          /**< linear in/out; conv cin/cout; embedding vocab/hidden */
    double heads, kv_heads, head_dim; /**< attention */
    double kernel, h_out, w_out; /**< conv (kernel size, output spatial) and pool */
    double channels;             /**< conv cout, pool and batch-norm channels */
    double experts, top_k, ffn, matrices; /**< MoE */
    int norm_batch_axis;         /**< norm: 0 = over features (layer norm), 1 = batch norm */
    int fixed_layout;            /**< input/output: -1 = free, else a PrismTensorLayout */
} PrismOp;

typedef struct PrismOpGraph {
    char *name;
    char *source; /**< "builtin" or the file path */
    PrismOp *ops;
    uint32_t n_ops;
} PrismOpGraph;

void prism_op_graph_free(PrismOpGraph *g);

/** Built-in graphs: count and names (static strings). */
size_t prism_op_graph_builtin_count(void);
const char *prism_op_graph_builtin_name(size_t i);
/** One-line description of a built-in graph. Static. */
const char *prism_op_graph_builtin_doc(size_t i);

/**
 * A built-in graph by name: transformer-mlp, transformer-attention, transformer-block,
 * transformer-moe-block, bert-large, gpt3-175b, vgg16, resnet50.
 * Errors: PRISM_INPUT_ERROR_UNKNOWN_NAME listing close names. Ownership: _free().
 */
PrismOpGraph *prism_op_graph_builtin(const char *name, GError **error);

/**
 * Parse a graph from JSON text (schema in search/DC.md). @p origin names the file in
 * messages. Errors: PRISM_INPUT_ERROR_PARSE / _MISSING / _VALUE / _UNKNOWN_NAME, naming
 * the origin, the op (by index and name) and the key. Ownership: prism_op_graph_free().
 */
PrismOpGraph *prism_op_graph_from_json(const char *text, size_t len, const char *origin,
                                       GError **error);
/** Read and parse a file. Errors: PRISM_INPUT_ERROR_FILE plus those of _from_json(). */
PrismOpGraph *prism_op_graph_from_file(const char *path, GError **error);
/** A built-in name, or a path (contains '/' or ends in .json). */
PrismOpGraph *prism_op_graph_resolve(const char *name_or_path, GError **error);

/** Pricing environment: group size, link, compute rate and state bytes. */
typedef struct PrismSmsgEnv {
    uint32_t tp;
    uint32_t level;              /**< cluster level spanned by the group */
    char level_name[32];
    double bw_Bps;               /**< effective per-device bandwidth, bytes/s */
    double latency_s;            /**< per message step */
    double flops_per_s;          /**< achievable FLOP/s per device */
    double state_bytes_per_param; /**< param + grad + optimizer state, bytes */
    double grad_bytes;           /**< bytes per gradient element in the all-reduce */
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

/** Rounded picoseconds and bytes used by the exact summaries. */
int64_t prism_smsg_ps(double seconds);

/** Result of a layout assignment (exact, greedy or uniform). */
typedef struct PrismLayoutPlan {
    uint32_t n_ops;
    uint8_t *choice;     /**< option index per op */
    int64_t total_ps;    /**< exact total cost, picoseconds (PRISM_DC_INF = infeasible) */
    double compute_s, op_comm_s, redist_s;
    int64_t mem_bytes;   /**< sum over ops of per-device bytes */
    uint32_t fwd_coll[PRISM_COLL_COUNT]; /**< forward collectives, in-op + redistribution */
    uint64_t power_pairs; /**< (solve) series elements folded by power: repeated blocks */
} PrismLayoutPlan;

void prism_layout_plan_free(PrismLayoutPlan *p);

/**
 * Cost of a given assignment (@p choice[i] indexes op i's options).
 * Ownership: prism_layout_plan_free(). Not collective.
 */
PrismLayoutPlan *prism_smsg_evaluate(const PrismOpGraph *g, const PrismSmsgEnv *env,
                                     const uint8_t *choice);

/**
 * The exact optimum by series-parallel reduction (min-plus), with canonical
 * tie-breaking (smallest option index in a fixed reduction order). @p allowed, if not
 * NULL, holds n_ops bitmasks of permitted options (used for uniform baselines).
 * Errors: PRISM_INPUT_ERROR_VALUE for a graph that is not series-parallel, naming the
 * edge; PRISM_INPUT_ERROR_INFEASIBLE when no assignment has finite cost.
 * Ownership: prism_layout_plan_free().
 */
PrismLayoutPlan *prism_smsg_solve(const PrismOpGraph *g, const PrismSmsgEnv *env,
                                  const uint32_t *allowed, GError **error);

/**
 * The (time, memory per device) Pareto front of all assignments, by the same reduction
 * over Pareto-set matrices. Ownership: g_free() on *front. Errors as _solve().
 */
gboolean prism_smsg_pareto(const PrismOpGraph *g, const PrismSmsgEnv *env,
                           PrismParetoPoint **front, uint32_t *n_front, GError **error);

/**
 * The D-Rec greedy baseline (SEEDS 3.4/4.2): operators visited in descending weight
 * (matmul-like: max option cost; conv: min; norm/softmax/loss first; elementwise last),
 * each choosing the option that minimises its own cost plus redistribution to the
 * neighbours already decided (first minimum wins). One round over the whole group (not
 * log2(t) bisection rounds). Ownership: prism_layout_plan_free().
 */
PrismLayoutPlan *prism_smsg_greedy(const PrismOpGraph *g, const PrismSmsgEnv *env);

/** Uniform baselines: replicated, data-parallel, column-split, row-split. */
typedef enum {
    PRISM_UNIFORM_REPLICATED = 0,
    PRISM_UNIFORM_DATA = 1,
    PRISM_UNIFORM_COLUMN = 2,
    PRISM_UNIFORM_ROW = 3,
    PRISM_UNIFORM_COUNT = 4,
} PrismUniform;

const char *prism_uniform_name(PrismUniform u);
/**
 * Allowed-option masks for a uniform baseline: weighted ops (linear, conv, embedding,
 * attention, MoE) are restricted to the class's option (data: every op splits rows;
 * replicated: every op replicated); other ops stay free. Ownership: g_free().
 */
uint32_t *prism_uniform_mask(const PrismOpGraph *g, const PrismSmsgEnv *env, PrismUniform u);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismOpGraph, prism_op_graph_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismLayoutPlan, prism_layout_plan_free)

G_END_DECLS

#endif /* PRISM_SMSG_H */
