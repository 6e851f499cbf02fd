// SPDX-License-Identifier: MIT
/*
 * opgraph.c - operator graphs (opgraph.h): kind names, the builder and the JSON reader
 * (schema in search/DC.md). The built-in graphs and the lookup by name are in
 * opgraph_builtin.c, which builds with the builder here.
 *
 * Re-entrant; nothing here is collective.
 */
#include <prism/opgraph.h>

#include <math.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include <prism/core.h>

static const char *const layout_names[PRISM_TL_COUNT] = {[PRISM_TL_REP] = "rep",
                                                         [PRISM_TL_ROWS] = "rows",
                                                         [PRISM_TL_FEAT] = "feat",
                                                         [PRISM_TL_PARTIAL] = "partial",
                                                         [PRISM_TL_NONE] = "none"};

const char *prism_tensor_layout_name(PrismTensorLayout l)
{
    return l < PRISM_TL_COUNT ? layout_names[l] : "?";
}

static const char *const kind_names[PRISM_OP_KIND_COUNT] = {
    [PRISM_OP_INPUT] = "input",         [PRISM_OP_OUTPUT] = "output",
    [PRISM_OP_LINEAR] = "linear",       [PRISM_OP_ATTENTION] = "attention",
    [PRISM_OP_CONV] = "conv",           [PRISM_OP_POOL] = "pool",
    [PRISM_OP_NORM] = "norm",           [PRISM_OP_ELEMENTWISE] = "elementwise",
    [PRISM_OP_EMBEDDING] = "embedding", [PRISM_OP_SOFTMAX] = "softmax",
    [PRISM_OP_LOSS] = "loss",           [PRISM_OP_MOE] = "moe"};

const char *prism_op_kind_name(PrismOpKind k)
{
    return k < PRISM_OP_KIND_COUNT ? kind_names[k] : "?";
}

void prism_op_graph_free(PrismOpGraph *g)
{
    if (g == NULL)
        return;
    for (uint32_t i = 0; i < g->n_ops; i++) {
        g_free(g->ops[i].name);
        g_free(g->ops[i].inputs);
    }
    g_free(g->ops);
    g_free(g->name);
    g_free(g->source);
    g_free(g);
}

void prism_op_graph_builder_init(PrismOpGraphBuilder *b, const char *name, double batch, double seq,
                                 double elem_bytes)
{
    b->ops = g_array_new(FALSE, TRUE, sizeof(PrismOp));
    b->name = g_strdup(name);
    b->batch = batch;
    b->seq = seq;
    b->elem_bytes = elem_bytes;
}

/* Derive rows, input/output features and channels from the producers. */
static void derive(PrismOpGraphBuilder *b, PrismOp *op)
{
    const PrismOp *all = (const PrismOp *)(void *)b->ops->data;
    op->batch = b->batch;
    op->seq = b->seq;
    op->rows = b->batch * b->seq;
    if (op->elem_bytes <= 0)
        op->elem_bytes = b->elem_bytes;
    if (op->n_inputs > 0) {
        const PrismOp *p = &all[op->inputs[0]];
        op->in_features = p->out_features;
        if (op->channels <= 0 && op->kind != PRISM_OP_LINEAR && op->kind != PRISM_OP_MOE &&
            op->kind != PRISM_OP_ATTENTION && op->kind != PRISM_OP_EMBEDDING)
            op->channels = p->channels;
    }
    switch (op->kind) {
    case PRISM_OP_INPUT:
        break; /* out_features given */
    case PRISM_OP_LINEAR:
    case PRISM_OP_EMBEDDING:
        op->out_features = op->k_out;
        op->channels = 0;
        break;
    case PRISM_OP_ATTENTION:
        op->out_features = op->heads * op->head_dim;
        break;
    case PRISM_OP_CONV:
        op->channels = op->k_out;
        op->out_features = op->k_out * op->h_out * op->w_out;
        break;
    case PRISM_OP_POOL:
        op->out_features = op->channels * op->h_out * op->w_out;
        break;
    case PRISM_OP_LOSS:
        op->out_features = 0;
        break;
    default:
        op->out_features = op->in_features;
        break;
    }
}

uint32_t prism_op_graph_builder_add(PrismOpGraphBuilder *b, const PrismOp *tmpl, const char *name,
                                    const uint32_t *inputs, uint32_t n_inputs)
{
    PrismOp op = *tmpl;
    op.name = g_strdup(name);
    op.n_inputs = n_inputs;
    op.inputs = n_inputs ? g_memdup2(inputs, n_inputs * sizeof(uint32_t)) : NULL;
    derive(b, &op);
    g_array_append_val(b->ops, op);
    return b->ops->len - 1;
}

PrismOpGraph *prism_op_graph_builder_finish(PrismOpGraphBuilder *b, const char *source)
{
    PrismOpGraph *g = g_new0(PrismOpGraph, 1);
    g->name = b->name;
    g->source = g_strdup(source);
    g->n_ops = b->ops->len;
    g->ops = (PrismOp *)(void *)g_array_free(b->ops, FALSE);
    b->ops = NULL;
    b->name = NULL;
    return g;
}

void prism_op_graph_builder_clear(PrismOpGraphBuilder *b)
{
    if (b->ops != NULL) {
        for (guint i = 0; i < b->ops->len; i++) {
            PrismOp *op = &g_array_index(b->ops, PrismOp, i);
            g_free(op->name);
            g_free(op->inputs);
        }
        g_array_free(b->ops, TRUE);
        b->ops = NULL;
    }
    g_clear_pointer(&b->name, g_free);
}

/* JSON reader. */

typedef struct KeySpec {
    const char *key;
    size_t offset; /* into PrismOp, a double */
    gboolean required;
} KeySpec;

#define K(name, field, req)                                                                        \
    {                                                                                              \
        name, G_STRUCT_OFFSET(PrismOp, field), req                                                 \
    }

static const KeySpec keys_input[] = {K("features", out_features, TRUE),
                                     K("channels", channels, FALSE),
                                     K("dtype_bytes", elem_bytes, FALSE),
                                     {NULL, 0, FALSE}};
static const KeySpec keys_linear[] = {K("in", k_in, TRUE), K("out", k_out, TRUE), {NULL, 0, FALSE}};
static const KeySpec keys_attention[] = {K("heads", heads, TRUE),
                                         K("head_dim", head_dim, TRUE),
                                         K("kv_heads", kv_heads, FALSE),
                                         {NULL, 0, FALSE}};
static const KeySpec keys_conv[] = {K("cin", k_in, TRUE),      K("cout", k_out, TRUE),
                                    K("kernel", kernel, TRUE), K("h_out", h_out, TRUE),
                                    K("w_out", w_out, TRUE),   {NULL, 0, FALSE}};
static const KeySpec keys_pool[] = {K("channels", channels, TRUE),
                                    K("h_out", h_out, TRUE),
                                    K("w_out", w_out, TRUE),
                                    {NULL, 0, FALSE}};
static const KeySpec keys_norm[] = {K("channels", channels, FALSE), {NULL, 0, FALSE}};
static const KeySpec keys_embedding[] = {
    K("vocab", k_in, TRUE), K("hidden", k_out, TRUE), {NULL, 0, FALSE}};
static const KeySpec keys_moe[] = {K("experts", experts, TRUE),
                                   K("top_k", top_k, TRUE),
                                   K("ffn", ffn, TRUE),
                                   K("matrices", matrices, FALSE),
                                   {NULL, 0, FALSE}};
static const KeySpec keys_none[] = {{NULL, 0, FALSE}};

static const KeySpec *kind_keys(PrismOpKind k)
{
    switch (k) {
    case PRISM_OP_INPUT:
        return keys_input;
    case PRISM_OP_LINEAR:
        return keys_linear;
    case PRISM_OP_ATTENTION:
        return keys_attention;
    case PRISM_OP_CONV:
        return keys_conv;
    case PRISM_OP_POOL:
        return keys_pool;
    case PRISM_OP_NORM:
        return keys_norm;
    case PRISM_OP_EMBEDDING:
        return keys_embedding;
    case PRISM_OP_MOE:
        return keys_moe;
    default:
        return keys_none;
    }
}

#define MAX_DIM 1e12

/* A positive integer member (or absent when optional). */
static gboolean get_count(JsonObject *o, const char *key, gboolean required, double *out,
                          const char *where, GError **error)
{
    JsonNode *n = json_object_get_member(o, key);
    if (n == NULL) {
        if (required) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_MISSING,
                        "%s: missing key '%s' (a positive integer)", where, key);
            return FALSE;
        }
        return TRUE;
    }
    double v = NAN;
    if (JSON_NODE_HOLDS_VALUE(n)) {
        GType t = json_node_get_value_type(n);
        if (t == G_TYPE_INT64)
            v = (double)json_node_get_int(n);
        else if (t == G_TYPE_DOUBLE)
            v = json_node_get_double(n);
    }
    if (!(v >= 1 && v <= MAX_DIM && floor(v) == v)) {
        g_autofree char *text = prism_json_to_string(n, FALSE); /* 1e+30, not 1e+30.0 */
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "%s: key '%s': value %s must be a positive integer <= 1e12", where, key, text);
        return FALSE;
    }
    *out = v;
    return TRUE;
}

static gboolean parse_kind(const char *text, PrismOpKind *out)
{
    if (g_ascii_strcasecmp(text, "matmul") == 0) {
        *out = PRISM_OP_LINEAR;
        return TRUE;
    }
    for (int k = 0; k < PRISM_OP_KIND_COUNT; k++)
        if (g_ascii_strcasecmp(text, kind_names[k]) == 0) {
            *out = (PrismOpKind)k;
            return TRUE;
        }
    return FALSE;
}

static gboolean parse_layout(const char *text, int *out)
{
    static const char *const names[] = {"rep", "rows", "feat"};
    for (int i = 0; i < 3; i++)
        if (g_ascii_strcasecmp(text, names[i]) == 0) {
            *out = i;
            return TRUE;
        }
    return FALSE;
}

static gboolean parse_op(PrismOpGraphBuilder *b, GHashTable *index, JsonNode *node, guint i,
                         const char *origin, GError **error)
{
    g_autofree char *where = g_strdup_printf("%s: ops[%u]", origin, i);
    if (!JSON_NODE_HOLDS_OBJECT(node)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "%s: must be an object with keys name, kind, inputs, ...", where);
        return FALSE;
    }
    JsonObject *o = json_node_get_object(node);
    const char *name = json_object_get_string_member_with_default(o, "name", NULL);
    if (name == NULL || name[0] == '\0') {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_MISSING,
                    "%s: missing key 'name' (a non-empty string)", where);
        return FALSE;
    }
    g_free(where);
    where = g_strdup_printf("%s: ops[%u] '%s'", origin, i, name);
    if (g_hash_table_contains(index, name)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "%s: duplicate op name (names must be unique)", where);
        return FALSE;
    }
    const char *kind_text = json_object_get_string_member_with_default(o, "kind", NULL);
    PrismOp op;
    memset(&op, 0, sizeof op);
    op.fixed_layout = -1;
    if (kind_text == NULL || !parse_kind(kind_text, &op.kind)) {
        g_set_error(error, PRISM_INPUT_ERROR,
                    kind_text ? PRISM_INPUT_ERROR_UNKNOWN_NAME : PRISM_INPUT_ERROR_MISSING,
                    "%s: key 'kind': '%s' is not one of input, output, linear (matmul), "
                    "attention, conv, pool, norm, elementwise, embedding, softmax, loss, moe",
                    where, kind_text ? kind_text : "(missing)");
        return FALSE;
    }
    for (const KeySpec *k = kind_keys(op.kind); k->key != NULL; k++)
        if (!get_count(o, k->key, k->required, (double *)(void *)((char *)&op + k->offset), where,
                       error))
            return FALSE;
    if (op.kind == PRISM_OP_ATTENTION && op.kv_heads <= 0)
        op.kv_heads = op.heads;
    if (op.kind == PRISM_OP_MOE && op.matrices <= 0)
        op.matrices = 2;
    if (op.kind == PRISM_OP_NORM) {
        const char *axis = json_object_get_string_member_with_default(o, "axis", "feature");
        if (strcmp(axis, "feature") != 0 && strcmp(axis, "batch") != 0) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                        "%s: key 'axis': '%s' must be 'feature' (layer norm) or 'batch' "
                        "(batch norm)",
                        where, axis);
            return FALSE;
        }
        op.norm_batch_axis = strcmp(axis, "batch") == 0;
    }
    if (op.kind == PRISM_OP_INPUT || op.kind == PRISM_OP_OUTPUT) {
        const char *lay = json_object_get_string_member_with_default(o, "layout", NULL);
        if (lay != NULL && !parse_layout(lay, &op.fixed_layout)) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                        "%s: key 'layout': '%s' must be rep, rows or feat", where, lay);
            return FALSE;
        }
    }
    JsonNode *in = json_object_get_member(o, "inputs");
    g_autoptr(GArray) ins = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    if (in != NULL) {
        if (!JSON_NODE_HOLDS_ARRAY(in)) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                        "%s: key 'inputs' must be an array of op names", where);
            return FALSE;
        }
        JsonArray *a = json_node_get_array(in);
        for (guint k = 0; k < json_array_get_length(a); k++) {
            JsonNode *e = json_array_get_element(a, k);
            const char *pn =
                JSON_NODE_HOLDS_VALUE(e) && json_node_get_value_type(e) == G_TYPE_STRING
                    ? json_node_get_string(e)
                    : NULL;
            gpointer idx = pn ? g_hash_table_lookup(index, pn) : NULL;
            if (idx == NULL) {
                g_autofree char *text = prism_json_to_string(e, FALSE);
                g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                            "%s: inputs[%u] = %s does not name an EARLIER op (list ops in "
                            "topological order)",
                            where, k, text);
                return FALSE;
            }
            uint32_t v = GPOINTER_TO_UINT(idx) - 1;
            g_array_append_val(ins, v);
        }
    }
    gboolean is_input = op.kind == PRISM_OP_INPUT;
    if (is_input != (ins->len == 0)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    is_input ? "%s: an input op takes no 'inputs'"
                             : "%s: key 'inputs' must name at least one producer (only "
                               "'input' ops have none)",
                    where);
        return FALSE;
    }
    const PrismOp *all = (const PrismOp *)(void *)b->ops->data;
    for (guint k = 0; k < ins->len; k++) {
        const PrismOp *p = &all[g_array_index(ins, uint32_t, k)];
        if (p->kind == PRISM_OP_OUTPUT ||
            (p->kind == PRISM_OP_LOSS && op.kind != PRISM_OP_OUTPUT)) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                        "%s: input '%s' is a%s op and cannot feed '%s'", where, p->name,
                        p->kind == PRISM_OP_OUTPUT ? "n output" : " loss", kind_names[op.kind]);
            return FALSE;
        }
    }
    uint32_t id =
        prism_op_graph_builder_add(b, &op, name, (const uint32_t *)(void *)ins->data, ins->len);
    g_hash_table_insert(index, g_strdup(name), GUINT_TO_POINTER(id + 1));
    return TRUE;
}

PrismOpGraph *prism_op_graph_from_json(const char *text, size_t len, const char *origin,
                                       GError **error)
{
    g_autoptr(JsonParser) parser = json_parser_new();
    GError *local = NULL;
    if (!json_parser_load_from_data(parser, text, (gssize)len, &local)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE, "%s: not valid JSON: %s",
                    origin, local->message);
        g_error_free(local);
        return NULL;
    }
    JsonNode *root = json_parser_get_root(parser);
    if (root == NULL || !JSON_NODE_HOLDS_OBJECT(root)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "%s: the top level must be an object with keys batch, seq, ops", origin);
        return NULL;
    }
    JsonObject *o = json_node_get_object(root);
    double batch = 0, seq = 1, eb = 2;
    if (!get_count(o, "batch", TRUE, &batch, origin, error) ||
        !get_count(o, "seq", FALSE, &seq, origin, error) ||
        !get_count(o, "dtype_bytes", FALSE, &eb, origin, error))
        return NULL;
    JsonNode *ops = json_object_get_member(o, "ops");
    if (ops == NULL || !JSON_NODE_HOLDS_ARRAY(ops) ||
        json_array_get_length(json_node_get_array(ops)) == 0) {
        g_set_error(error, PRISM_INPUT_ERROR,
                    ops == NULL ? PRISM_INPUT_ERROR_MISSING : PRISM_INPUT_ERROR_VALUE,
                    "%s: key 'ops' must be a non-empty array of operators", origin);
        return NULL;
    }
    JsonArray *arr = json_node_get_array(ops);
    if (json_array_get_length(arr) > 200000) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "%s: key 'ops': %u operators (at most 200000)", origin,
                    json_array_get_length(arr));
        return NULL;
    }
    g_autofree char *base = g_path_get_basename(origin);
    const char *name = json_object_get_string_member_with_default(o, "name", base);
    PrismOpGraphBuilder b;
    prism_op_graph_builder_init(&b, name, batch, seq, eb);
    g_autoptr(GHashTable) index = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (guint i = 0; i < json_array_get_length(arr); i++)
        if (!parse_op(&b, index, json_array_get_element(arr, i), i, origin, error)) {
            prism_op_graph_builder_clear(&b);
            return NULL;
        }
    return prism_op_graph_builder_finish(&b, origin);
}

PrismOpGraph *prism_op_graph_from_file(const char *path, GError **error)
{
    g_autofree char *text = NULL;
    gsize len = 0;
    GError *local = NULL;
    if (!g_file_get_contents(path, &text, &len, &local)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_FILE,
                    "%s: cannot read the operator graph: %s", path, local->message);
        g_error_free(local);
        return NULL;
    }
    return prism_op_graph_from_json(text, len, path, error);
}
