// SPDX-License-Identifier: MIT
/*
 * cost_ops.c - symbolic per-operator costs for operator-level sharding (opcost.h).
 *
 * For each operator kind: its layout options over a TP group of t devices, with compute
 * (FLOPs / achievable FLOP/s), in-operator communication, and per-device bytes; and the
 * price of moving a tensor between layouts (ring all-reduce, reduce-scatter,
 * all-gather, all-to-all) on the network level the group spans. The formulas are
 * documented next to each case and in search/DC.md. Pure functions; not collective.
 */
#include <prism/opcost.h>

#include <math.h>
#include <string.h>

#include <prism/core.h>

static const char *const coll_names[PRISM_COLL_COUNT] = {[PRISM_COLL_NONE] = "none",
                                                         [PRISM_COLL_ALL_REDUCE] = "all-reduce",
                                                         [PRISM_COLL_REDUCE_SCATTER] =
                                                             "reduce-scatter",
                                                         [PRISM_COLL_ALL_GATHER] = "all-gather",
                                                         [PRISM_COLL_ALL_TO_ALL] = "all-to-all",
                                                         [PRISM_COLL_INVALID] = "invalid"};

const char *prism_collective_name(PrismCollective c)
{
    return c < PRISM_COLL_COUNT ? coll_names[c] : "?";
}

void prism_smsg_env_init(PrismSmsgEnv *env, const PrismCluster *cluster, const PrismKnobs *knobs,
                         uint32_t tp)
{
    memset(env, 0, sizeof *env);
    env->tp = tp;
    env->level = prism_cluster_level_for_extent(cluster, (double)tp);
    const PrismNetLevel *lv = &cluster->levels[env->level];
    g_strlcpy(env->level_name, lv->name, sizeof env->level_name);
    env->bw_Bps = lv->bw_GBps * 1e9 * knobs->v[PRISM_KNOB_NET_EFFICIENCY];
    env->latency_s = lv->latency_us * 1e-6;
    env->flops_per_s = cluster->peak_flops[PRISM_DTYPE_BF16] *
                       prism_knobs_gemm_efficiency(knobs, cluster->gemm_efficiency);
    env->state_bytes_per_param = 16.0;
    env->grad_bytes = 2.0;
}

PrismCollective prism_smsg_move_kind(PrismTensorLayout from, PrismTensorLayout to)
{
    if (from == to && from != PRISM_TL_PARTIAL)
        return PRISM_COLL_NONE;
    if (to == PRISM_TL_PARTIAL || to == PRISM_TL_NONE || from == PRISM_TL_NONE)
        return PRISM_COLL_INVALID;
    if (from == PRISM_TL_PARTIAL)
        return to == PRISM_TL_REP ? PRISM_COLL_ALL_REDUCE : PRISM_COLL_REDUCE_SCATTER;
    if (from == PRISM_TL_REP)
        return PRISM_COLL_NONE; /* take the local slice */
    if (to == PRISM_TL_REP)
        return PRISM_COLL_ALL_GATHER;
    return PRISM_COLL_ALL_TO_ALL; /* rows <-> features */
}

double prism_smsg_coll_time(const PrismSmsgEnv *env, PrismCollective kind, double bytes)
{
    double t = env->tp;
    if (env->tp <= 1 || bytes <= 0 || kind == PRISM_COLL_NONE)
        return 0.0;
    /* Ring algorithms on a tensor of S bytes (whole tensor), per-device bandwidth B,
     * latency a per step:
     *   all-reduce      2(t-1)/t * S/B + 2(t-1) a
     *   reduce-scatter   (t-1)/t * S/B +  (t-1) a   (all-gather the same)
     *   all-to-all      (t-1)/t^2 * S/B + (t-1) a   (each device re-sends (t-1)/t of S/t) */
    switch (kind) {
    case PRISM_COLL_ALL_REDUCE:
        return 2 * (t - 1) / t * bytes / env->bw_Bps + 2 * (t - 1) * env->latency_s;
    case PRISM_COLL_REDUCE_SCATTER:
    case PRISM_COLL_ALL_GATHER:
        return (t - 1) / t * bytes / env->bw_Bps + (t - 1) * env->latency_s;
    case PRISM_COLL_ALL_TO_ALL:
        return (t - 1) / (t * t) * bytes / env->bw_Bps + (t - 1) * env->latency_s;
    default:
        return HUGE_VAL;
    }
}

double prism_smsg_edge_time(const PrismSmsgEnv *env, const PrismLayoutOption *prod,
                            const PrismLayoutOption *cons, double bytes, PrismCollective *fwd)
{
    PrismCollective f = prism_smsg_move_kind(prod->out_layout, cons->in_layout);
    if (fwd != NULL)
        *fwd = bytes > 0 && env->tp > 1 ? f : PRISM_COLL_NONE;
    if (f == PRISM_COLL_INVALID)
        return HUGE_VAL;
    double time = prism_smsg_coll_time(env, f, bytes);
    if (cons->in_grad != PRISM_TL_NONE) {
        PrismTensorLayout need =
            prod->out_layout == PRISM_TL_PARTIAL ? PRISM_TL_REP : prod->out_layout;
        PrismCollective b = prism_smsg_move_kind(cons->in_grad, need);
        if (b == PRISM_COLL_INVALID)
            return HUGE_VAL;
        time += prism_smsg_coll_time(env, b, bytes);
    }
    return time;
}

static gboolean divides(double t, double x)
{
    return x >= t && fmod(x, t) == 0.0;
}

/* Append one option. */
static void add(PrismLayoutOption *o, uint32_t *n, const char *name, PrismTensorLayout in,
                PrismTensorLayout grad, PrismTensorLayout out, double compute, double comm,
                double mem, PrismCollective fwd)
{
    o[*n] = (PrismLayoutOption){name,    (uint8_t)in, (uint8_t)grad, (uint8_t)out,
                                compute, comm,        mem,           (uint8_t)fwd};
    (*n)++;
}

/* Weighted matmul-like operators (linear, conv): W weights, F fwd+bwd FLOPs, in_bytes
 * stored input, `rows`/`in`/`out` the split dimensions.
 *   rep: everything replicated, full compute.
 *   dp:  rows split, weights replicated; weight gradients all-reduced (W * grad bytes).
 *   col: output features split (Megatron column-parallel): input replicated, its
 *        gradient is a partial sum (reduced by the edge's backward move).
 *   row: input features split (row-parallel): output is a partial sum. */
static uint32_t matmul_options(const PrismSmsgEnv *e, double W, double F, double in_bytes,
                               double rows, double in, double out, PrismLayoutOption *o)
{
    uint32_t n = 0;
    double t = e->tp, c = F / e->flops_per_s, ws = W * e->state_bytes_per_param;
    add(o, &n, "rep", PRISM_TL_REP, PRISM_TL_REP, PRISM_TL_REP, c, 0, ws + in_bytes,
        PRISM_COLL_NONE);
    if (e->tp == 1)
        return n;
    if (divides(t, rows))
        add(o, &n, "dp", PRISM_TL_ROWS, PRISM_TL_ROWS, PRISM_TL_ROWS, c / t,
            prism_smsg_coll_time(e, PRISM_COLL_ALL_REDUCE, W * e->grad_bytes), ws + in_bytes / t,
            PRISM_COLL_NONE);
    if (divides(t, out))
        add(o, &n, "col", PRISM_TL_REP, PRISM_TL_PARTIAL, PRISM_TL_FEAT, c / t, 0,
            ws / t + in_bytes, PRISM_COLL_NONE);
    if (divides(t, in))
        add(o, &n, "row", PRISM_TL_FEAT, PRISM_TL_FEAT, PRISM_TL_PARTIAL, c / t, 0,
            ws / t + in_bytes / t, PRISM_COLL_NONE);
    return n;
}

/* Layout-preserving operators (elementwise, pool, norm, softmax): rep, rows, feat; each
 * keeps its input layout. stats_rows / stats_feat: bytes all-reduced (forward and
 * backward) when split by rows / by features (norm and softmax statistics). */
static uint32_t same_layout_options(const PrismSmsgEnv *e, double F, double in_bytes, double W,
                                    double rows, double feat_split, double stats_rows,
                                    double stats_feat, gboolean out_rep, PrismLayoutOption *o)
{
    uint32_t n = 0;
    double t = e->tp, c = F / e->flops_per_s, ws = W * e->state_bytes_per_param;
    add(o, &n, "rep", PRISM_TL_REP, PRISM_TL_REP, PRISM_TL_REP, c, 0, ws + in_bytes,
        PRISM_COLL_NONE);
    if (e->tp == 1)
        return n;
    double ar_rows = 2 * prism_smsg_coll_time(e, PRISM_COLL_ALL_REDUCE, stats_rows);
    double ar_feat = 2 * prism_smsg_coll_time(e, PRISM_COLL_ALL_REDUCE, stats_feat);
    if (divides(t, rows))
        add(o, &n, "rows", PRISM_TL_ROWS, PRISM_TL_ROWS, out_rep ? PRISM_TL_REP : PRISM_TL_ROWS,
            c / t, ar_rows, ws + in_bytes / t,
            stats_rows > 0 ? PRISM_COLL_ALL_REDUCE : PRISM_COLL_NONE);
    if (divides(t, feat_split))
        add(o, &n, "feat", PRISM_TL_FEAT, PRISM_TL_FEAT, out_rep ? PRISM_TL_REP : PRISM_TL_FEAT,
            c / t, ar_feat, ws / (stats_feat > 0 ? 1 : t) + in_bytes / t,
            stats_feat > 0 ? PRISM_COLL_ALL_REDUCE : PRISM_COLL_NONE);
    return n;
}

static uint32_t boundary_options(const PrismOp *op, const PrismSmsgEnv *e, gboolean is_input,
                                 PrismLayoutOption *o)
{
    uint32_t n = 0;
    static const PrismTensorLayout order[] = {PRISM_TL_REP, PRISM_TL_ROWS, PRISM_TL_FEAT};
    static const char *const names[] = {"rep", "rows", "feat"};
    double split[] = {1, op->rows, is_input ? op->out_features : op->in_features};
    for (int i = 0; i < 3; i++) {
        if (op->fixed_layout >= 0 && op->fixed_layout != (int)order[i])
            continue;
        if (i > 0 && (e->tp == 1 || !divides(e->tp, split[i])))
            continue;
        if (is_input)
            add(o, &n, names[i], PRISM_TL_REP, PRISM_TL_NONE, order[i], 0, 0, 0, PRISM_COLL_NONE);
        else
            add(o, &n, names[i], order[i], order[i], order[i], 0, 0, 0, PRISM_COLL_NONE);
    }
    if (n == 0) /* a fixed split the group cannot divide: fall back to replicated */
        add(o, &n, "rep", PRISM_TL_REP, is_input ? PRISM_TL_NONE : PRISM_TL_REP, PRISM_TL_REP, 0, 0,
            0, PRISM_COLL_NONE);
    return n;
}

uint32_t prism_op_layout_options(const PrismOp *op, const PrismSmsgEnv *e, PrismLayoutOption *o)
{
    double t = e->tp, rows = op->rows, eb = op->elem_bytes;
    double in_bytes = rows * op->in_features * eb * (op->n_inputs ? op->n_inputs : 1);
    double c, W, F;
    uint32_t n = 0;
    switch (op->kind) {
    case PRISM_OP_INPUT:
        return boundary_options(op, e, TRUE, o);
    case PRISM_OP_OUTPUT:
        return boundary_options(op, e, FALSE, o);
    case PRISM_OP_LINEAR:
        /* F = 6 rows in out: forward 2, backward 4 (data and weight gradients). */
        W = op->k_in * op->k_out;
        F = 6 * rows * op->k_in * op->k_out;
        return matmul_options(e, W, F, rows * op->k_in * eb, rows, op->k_in, op->k_out, o);
    case PRISM_OP_CONV:
        /* W = cin cout k^2; F = 6 N cout Hout Wout cin k^2; rows = N. */
        W = op->k_in * op->k_out * op->kernel * op->kernel;
        F = 6 * rows * op->k_out * op->h_out * op->w_out * op->k_in * op->kernel * op->kernel;
        return matmul_options(e, W, F, in_bytes, rows, op->k_in, op->k_out, o);
    case PRISM_OP_ATTENTION: {
        /* Core attention (flash: only the q/k/v input is stored). Forward 4 b s^2 a dh
         * (scores and weighted sum), backward twice that: F = 12 b s^2 a dh. */
        double a = op->heads, kv = op->kv_heads, dh = op->head_dim;
        F = 12 * op->batch * op->seq * op->seq * a * dh;
        c = F / e->flops_per_s;
        add(o, &n, "rep", PRISM_TL_REP, PRISM_TL_REP, PRISM_TL_REP, c, 0, in_bytes,
            PRISM_COLL_NONE);
        if (e->tp == 1)
            return n;
        if (divides(t, op->batch)) {
            add(o, &n, "batch", PRISM_TL_ROWS, PRISM_TL_ROWS, PRISM_TL_ROWS, c / t, 0, in_bytes / t,
                PRISM_COLL_NONE);
        } else if (divides(t, op->seq)) {
            /* sequence split: gather K and V forward, reduce-scatter their grads back */
            double kvb = rows * 2 * kv * dh * eb;
            add(o, &n, "seq", PRISM_TL_ROWS, PRISM_TL_ROWS, PRISM_TL_ROWS, c / t,
                prism_smsg_coll_time(e, PRISM_COLL_ALL_GATHER, kvb) +
                    prism_smsg_coll_time(e, PRISM_COLL_REDUCE_SCATTER, kvb),
                in_bytes / t + kvb * (t - 1) / t, PRISM_COLL_ALL_GATHER);
        }
        if (divides(t, a) && divides(t, kv))
            add(o, &n, "heads", PRISM_TL_FEAT, PRISM_TL_FEAT, PRISM_TL_FEAT, c / t, 0, in_bytes / t,
                PRISM_COLL_NONE);
        return n;
    }
    case PRISM_OP_POOL:
        /* about one operation per input element forward, two backward */
        return same_layout_options(e, 3 * rows * op->in_features, in_bytes, 0, rows, op->channels,
                                   0, 0, FALSE, o);
    case PRISM_OP_ELEMENTWISE:
        return same_layout_options(
            e, 3 * rows * op->out_features * (op->n_inputs ? op->n_inputs : 1), in_bytes, 0, rows,
            op->channels > 0 ? op->channels : op->out_features, 0, 0, FALSE, o);
    case PRISM_OP_NORM: {
        /* ~5 FLOPs per element forward, x3 with backward. Statistics (mean, variance:
         * 2 fp32 values per reduction group) are all-reduced forward and backward when
         * the split cuts the reduction axis: features for layer norm, rows for batch
         * norm. Weights: scale and shift per normalised feature/channel. */
        double feat = op->channels > 0 ? op->channels : op->in_features;
        double stats_rows = op->norm_batch_axis ? 2 * feat * 4 : 0;
        double stats_feat = op->norm_batch_axis ? 0 : 2 * rows * 4;
        return same_layout_options(e, 15 * rows * op->in_features, in_bytes, 2 * feat, rows, feat,
                                   stats_rows, stats_feat, FALSE, o);
    }
    case PRISM_OP_SOFTMAX:
    case PRISM_OP_LOSS:
        /* ~5 FLOPs per element, x3; split by features (vocabulary-parallel) all-reduces
         * the row max and sum (2 fp32 per row). A loss outputs a scalar. */
        return same_layout_options(e, 15 * rows * op->in_features, in_bytes, 0, rows,
                                   op->in_features, 0, 2 * rows * 4, op->kind == PRISM_OP_LOSS, o);
    case PRISM_OP_EMBEDDING: {
        /* Table V x h; the looked-up ids have no gradient. Vocabulary split gives partial
         * sums (rows of other shards are zero); hidden split gives split features. */
        double V = op->k_in, h = op->k_out;
        W = V * h;
        c = 6 * rows * h / e->flops_per_s;
        double ws = W * e->state_bytes_per_param;
        add(o, &n, "rep", PRISM_TL_REP, PRISM_TL_NONE, PRISM_TL_REP, c, 0, ws, PRISM_COLL_NONE);
        if (e->tp == 1)
            return n;
        if (divides(t, rows))
            add(o, &n, "dp", PRISM_TL_ROWS, PRISM_TL_NONE, PRISM_TL_ROWS, c / t,
                prism_smsg_coll_time(e, PRISM_COLL_ALL_REDUCE, W * e->grad_bytes), ws,
                PRISM_COLL_NONE);
        if (divides(t, V))
            add(o, &n, "vocab", PRISM_TL_REP, PRISM_TL_NONE, PRISM_TL_PARTIAL, c, 0, ws / t,
                PRISM_COLL_NONE);
        if (divides(t, h))
            add(o, &n, "hidden", PRISM_TL_REP, PRISM_TL_NONE, PRISM_TL_FEAT, c / t, 0, ws / t,
                PRISM_COLL_NONE);
        return n;
    }
    case PRISM_OP_MOE: {
        /* E experts of nm matrices h x f, top-k routing, router h x E.
         * F = 6 rows (k nm h f + h E). Expert-parallel (experts split, tokens split by
         * rows): dispatch and combine all-to-all of rows*k*h elements, forward and
         * backward (4 all-to-alls). Expert-tensor-parallel "tp": every expert split
         * column->row inside, output partial. */
        double E = op->experts, k = op->top_k, nm = op->matrices, h = op->in_features, f = op->ffn;
        double We = E * nm * h * f, Wr = h * E;
        F = 6 * rows * (k * nm * h * f + h * E);
        c = F / e->flops_per_s;
        double sp = e->state_bytes_per_param;
        add(o, &n, "rep", PRISM_TL_REP, PRISM_TL_REP, PRISM_TL_REP, c, 0, (We + Wr) * sp + in_bytes,
            PRISM_COLL_NONE);
        if (e->tp == 1)
            return n;
        if (divides(t, rows))
            add(o, &n, "dp", PRISM_TL_ROWS, PRISM_TL_ROWS, PRISM_TL_ROWS, c / t,
                prism_smsg_coll_time(e, PRISM_COLL_ALL_REDUCE, (We + Wr) * e->grad_bytes),
                (We + Wr) * sp + in_bytes / t, PRISM_COLL_NONE);
        if (divides(t, rows) && divides(t, E))
            add(o, &n, "expert", PRISM_TL_ROWS, PRISM_TL_ROWS, PRISM_TL_ROWS, c / t,
                4 * prism_smsg_coll_time(e, PRISM_COLL_ALL_TO_ALL, rows * k * h * eb) +
                    prism_smsg_coll_time(e, PRISM_COLL_ALL_REDUCE, Wr * e->grad_bytes),
                (We / t + Wr) * sp + in_bytes / t, PRISM_COLL_ALL_TO_ALL);
        if (divides(t, f))
            add(o, &n, "tp", PRISM_TL_REP, PRISM_TL_PARTIAL, PRISM_TL_PARTIAL,
                (6 * rows * k * nm * h * f / t + 6 * rows * h * E) / e->flops_per_s, 0,
                (We / t + Wr) * sp + in_bytes, PRISM_COLL_NONE);
        return n;
    }
    default:
        break;
    }
    add(o, &n, "rep", PRISM_TL_REP, PRISM_TL_REP, PRISM_TL_REP, 0, 0, 0, PRISM_COLL_NONE);
    return n;
}
