/*
 * opgraph.h - operator graphs: the model description of operator-level sharding
 * (`prism layouts`), beside the layer-sequence IR of model.h.
 *
 * An operator graph is a DAG of operators (linear/matmul, attention core, conv, pooling,
 * norm, elementwise, embedding, softmax, loss, MoE experts, plus the graph's input and
 * output), listed in topological order. Every activation tensor is seen as rows x
 * features (rows = batch * seq for transformers, batch for CNNs; features = hidden, or
 * channels * H * W); over a tensor-parallel group it is in one of the layouts of
 * PrismTensorLayout (a graph's input and output may fix theirs). Graphs come from a JSON file
 * (schema in search/DC.md, "Graph file"), from the built-in models (MLP, attention, dense and MoE
 * blocks, BERT-large, GPT-3 175B, VGG-16, ResNet-50: src/core/opgraph_builtin.c), or from the
 * builder below.
 *
 * What an operator costs is in opcost.h (cost layer); the layout solver in smsg.h.
 * The structs are plain data. Nothing here is collective; everything is re-entrant.
 */
#ifndef PRISM_OPGRAPH_H
#define PRISM_OPGRAPH_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

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
    double k_in, k_out;               /**< linear in/out; conv cin/cout; embedding vocab/hidden */
    double heads, kv_heads, head_dim; /**< attention */
    double kernel, h_out, w_out;      /**< conv (kernel size, output spatial) and pool */
    double channels;                  /**< conv cout, pool and batch-norm channels */
    double experts, top_k, ffn, matrices; /**< MoE */
    int norm_batch_axis; /**< norm: 0 = over features (layer norm), 1 = batch norm */
    int fixed_layout;    /**< input/output: -1 = free, else a PrismTensorLayout */
} PrismOp;

typedef struct PrismOpGraph {
    char *name;
    char *source; /**< "builtin" or the file path */
    PrismOp *ops;
    uint32_t n_ops;
} PrismOpGraph;

/** Free a graph (NULL is fine). Not collective. */
void prism_op_graph_free(PrismOpGraph *g);

/**
 * Builder: appends operators one by one and derives rows, input/output features and
 * channels from the producers. Put it on the stack; do not touch its members.
 * Typical use: _init(), _add() per operator, then _finish() (or _clear() on an error).
 */
typedef struct PrismOpGraphBuilder {
    GArray *ops; /* PrismOp */
    char *name;
    double batch, seq, elem_bytes;
} PrismOpGraphBuilder;

/** Start a graph @p name with these batch, sequence and element sizes. Not collective. */
void prism_op_graph_builder_init(PrismOpGraphBuilder *b, const char *name, double batch, double seq,
                                 double elem_bytes);
/**
 * Append a copy of @p tmpl (kind and parameters; name, inputs and derived sizes are
 * ignored) named @p name with @p inputs (indices of earlier ops; the caller checks them).
 * Returns the new op's index. Ownership: @p name and @p inputs are copied. Not collective.
 */
uint32_t prism_op_graph_builder_add(PrismOpGraphBuilder *b, const PrismOp *tmpl, const char *name,
                                    const uint32_t *inputs, uint32_t n_inputs);
/**
 * The finished graph; @p source is "builtin" or a file path. The builder is left empty
 * (no _clear() needed). Ownership: prism_op_graph_free(). Not collective.
 */
PrismOpGraph *prism_op_graph_builder_finish(PrismOpGraphBuilder *b, const char *source);
/** Free what an unfinished builder holds. Not collective. */
void prism_op_graph_builder_clear(PrismOpGraphBuilder *b);

/**
 * Parse a graph from JSON text (schema in search/DC.md, "Graph file"). @p origin names
 * the file in messages. Errors: PRISM_INPUT_ERROR_PARSE / _MISSING / _VALUE /
 * _UNKNOWN_NAME, naming the origin, the op (by index and name) and the key.
 * Ownership: prism_op_graph_free(). Not collective.
 */
PrismOpGraph *prism_op_graph_from_json(const char *text, size_t len, const char *origin,
                                       GError **error);
/** Read and parse a file. Errors: PRISM_INPUT_ERROR_FILE plus those of _from_json(). */
PrismOpGraph *prism_op_graph_from_file(const char *path, GError **error);

/* Built-in graphs and the lookup by name (src/core/opgraph_builtin.c, built with the
 * builder above). */

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
 * A built-in name, or a path (contains '/' or ends in .json). Errors: those of
 * _builtin() or _from_file(). Ownership: prism_op_graph_free().
 */
PrismOpGraph *prism_op_graph_resolve(const char *name_or_path, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismOpGraph, prism_op_graph_free)

G_END_DECLS

#endif /* PRISM_OPGRAPH_H */
