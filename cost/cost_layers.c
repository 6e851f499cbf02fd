// SPDX-License-Identifier: MIT
/*
 * cost_layers.c - compile model + cluster + training + knobs into per-layer-kind
 * constants (PrismKKind) and the model-level kernel constants (PrismKModel).
 *
 * Every constant of a kind is derived here from the model IR; cost/README.md derives
 * each formula with its reference. Parameter splits must add up to the IR's own count
 * (prism_block_params); a unit test checks it. Nothing here is collective; a compiled
 * model is read-only and may be shared by threads.
 */
#include <prism/cost.h>

#include <math.h> /* HUGE_VAL (a constant; no libm call) */
#include <string.h>

#include <prism/core.h>

#include "cost-internal.h"
#include "kernels/kernels-gemm.h"
#include "kernels/kernels-nccl.h"

/* One MLP of width f: weight matrices (GELU 2, SwiGLU 3). */
static double mlp_mats(PrismMlpAct act)
{
    return act == PRISM_MLP_SWIGLU ? 3.0 : 2.0;
}

static double norm_params(PrismNormKind k, double h)
{
    return k == PRISM_NORM_LAYERNORM ? 2.0 * h : h;
}

typedef struct KnobView {
    double bp;     /* bytes per activation element */
    double drop;   /* bytes per dropout-mask element (0 when dropout is off) */
    double flash;  /* 1 = flash attention */
    double causal; /* executed fraction of the attention core */
    double logits; /* bytes per stored logit */
    double imbal;  /* dropless MoE load factor */
    double seq;
    double sac;       /* selective_policy: 1 = per-op SAC */
    double loss_bwd;  /* loss_bwd_extra: logit copies beyond the working set's one */
    double eager;     /* elementwise_eager: op-by-op norm / RoPE / SwiGLU traffic */
    double moe_act;   /* recompute_moe_act: selective recompute drops the experts' act output */
    double mfu_core;  /* share of the attention core in the model FLOPs (mfu_core knob) */
    double exec_core; /* share of the attention core that runs (causal flash skips part) */
    double kv_repeat; /* kv_repeat: GQA's K/V heads repeated to the query heads */
    double rc_norm;   /* recompute_norm: selective recompute drops the pre-norms' outputs */
    double rc_mla;    /* recompute_mla_up: ... and MLA's up-projection outputs */
    double fp8_cache; /* act_cache_fp8: linear inputs kept in FP8 (DeepSeek-V3) */
    double probs_act; /* moe_probs_in_act: probabilities applied in the experts' activation */
    double loss;      /* loss_bytes: the loss's bytes per logit element, both passes (0: fused) */
    double bwd;       /* bwd_ratio: the backward's element-wise traffic per forward's */
    double layout;    /* layout_copies: query-width layout copies per layer, both passes */
    double glu_eager; /* swiglu_unfused: silu's output kept beside gate, up and product */
    double sm_rule;   /* softmax_fusion_rule: 1 = the fused softmax's shape condition */
} KnobView;

/* The cross-entropy's HBM traffic per token over V logits, as element-wise bytes of one
 * forward (the kernels scale element-wise work by 1 + bwd_ratio for both passes;
 * cost/README.md "Elementwise traffic"). Fused (loss_bytes = 0): read the 16-bit logits,
 * write and read the softmax at logits_bytes. Op by op: loss_bytes per logit element for
 * both passes together, counted from the framework's code (nanotron's
 * _ShardedCrossEntropy: 52), stated per forward as loss_bytes / (1 + bwd_ratio). */
static double loss_traffic(const KnobView *kv, double V)
{
    if (kv->loss > 0.0)
        return kv->loss / (1.0 + kv->bwd) * V;
    return (kv->bp + 2.0 * kv->logits) * V;
}

/* Append one GEMM to a kind's list (kernels-model.h, PrismKGemm): output width
 * N = n_tp/t + n_kv*kv + n_rep, depth K = k_tp/t + k_rep; @p low: runs in the linear-layer
 * dtype (FP8 recipes) rather than BF16. */
static void add_gemm(PrismKKind *k, const char *name, double n_tp, double n_kv, double n_rep,
                     double k_tp, double k_rep, double low)
{
    g_assert(k->n_gemm < PRISM_K_GEMMS);
    k->gemm[k->n_gemm++] = (PrismKGemm){.name = name,
                                        .n_tp = n_tp,
                                        .n_kv = n_kv,
                                        .n_rep = n_rep,
                                        .k_tp = k_tp,
                                        .k_rep = k_rep,
                                        .m_tok = 1.0,
                                        .ep = 0.0,
                                        .count = 1.0,
                                        .low = low};
}

/* The unfused softmax (softmax_fusion_rule; cost/README.md, "The unfused softmax"): where
 * Megatron's FusedScaleMaskSoftmax does not run its fused kernel, forward_torch_softmax
 * runs op by op over the b x np x sq x sk scores (microsoft/Megatron-DeepSpeed
 * megatron/model/fused_softmax.py @ 0782d753; softmax_in_fp32 and the layer-number scale
 * follow from apply_query_key_layer_scaling, on by default). HBM bytes per score element,
 * bp the 16-bit bytes: input.float() bp + 4, * scale 4 + 4, masked_fill_ in place 4 + 4
 * (the s x s mask stays in L2), torch softmax 4 + 4, the cast back 4 + bp: 2 bp + 32
 * against the fused kernel's 2 bp (+32). Backward (autograd, reverse order): the cast's
 * bp + 4, softmax backward reads the gradient and its fp32 output and writes 12, the
 * mask's masked_fill 8, the scale's mul 8, the cast's 4 + bp: 2 bp + 36 against 3 bp
 * (+36 - bp). Saved: torch's fp32 output (4) instead of the fused kernel's (bp). fp32
 * scores (bp = 4) never take the fused kernel (16-bit input only) and have no casts:
 * 24 against 2 bp and 28 against 3 bp (+16, +16, nothing more saved). Per token: @p a
 * heads x @p keys score elements. */
static void sm_fallback_terms(const KnobView *kv, double a, double keys, PrismKKind *k)
{
    const double n = a * keys;
    const double bp = kv->bp, on = kv->flash > 0.5 || kv->sm_rule < 0.5 ? 0.0 : 1.0;
    const double casts = bp < 4.0 ? 2.0 * bp + 8.0 : 0.0;
    k->e_sm_fb = on * (24.0 + casts - 2.0 * bp) * n;
    k->e_sm_fb_b = on * (28.0 + casts - 3.0 * bp) * n;
    k->a_sm_fb = on * (bp < 4.0 ? 4.0 - bp : 0.0) * n;
    k->sm_heads = on * a;
}

/* Attention part of a block: parameters, activations, FLOPs and CP traffic. A sliding
 * window of w < s tokens is priced as a banded kernel: each query meets sw = w keys
 * instead of s, in the core FLOPs and in the scores it keeps (cost/README.md). */
static void attn_terms(const PrismAttnSpec *at, double h, const KnobView *kv, PrismKKind *k,
                       double *model_core)
{
    const double a = at->n_heads, bp = kv->bp;
    const double sw = at->window > 0 && (double)at->window < kv->seq ? (double)at->window : kv->seq;
    /* executed fraction with causal skipping: s x causal for full attention; for a
     * window, w (1 - (1 - causal) w / s), which is w - w^2/(2s) at causal = 1/2, the
     * mean band length of a causal window (the first w queries see fewer keys) */
    const double causal = sw < kv->seq ? 1.0 - (1.0 - kv->causal) * sw / kv->seq : kv->causal;
    double core;
    /* scale-mask-softmax (read + write the scores) and dropout on them (read, write,
     * mask); flash attention keeps them on chip */
    k->e_score = kv->flash > 0.5 ? 0.0 : (2.0 * bp + kv->drop * (2.0 * bp + 1.0)) * a * sw;
    /* the core's batched GEMMs without flash attention (Megatron's CoreAttention, e.g.
     * microsoft/Megatron-DeepSpeed megatron/model/transformer.py @ 066632b2: torch.baddbmm
     * with beta 0 writes the scores, torch.bmm(probs, V) reads them): forward one write and
     * one read of the s x s scores per head; backward bmm's dP = dO V^T writes, dV = P^T dO
     * reads P, baddbmm's dQ = dS K and dK = dS^T Q read dS twice (the Q, K, V and output
     * operands, 4 d against 2 s elements, are left out: a lower bound) */
    k->c_bytes_f = kv->flash > 0.5 ? 0.0 : 2.0 * bp * a * sw;
    k->c_bytes_b = kv->flash > 0.5 ? 0.0 : 4.0 * bp * a * sw;
    /* their backward, counted from the kernels (Megatron's fused
     * scaled_upper_triang_masked_softmax_backward reads the output gradient and the
     * probabilities and writes in place: 3 bp; torch's native_dropout_backward reads the
     * gradient and the bool mask and writes: 2 bp + 1), not bwd_ratio x the forward's
     * 2 bp + drop (2 bp + 1) */
    k->e_score_b = kv->flash > 0.5 ? 0.0 : (3.0 * bp + kv->drop * (2.0 * bp + 1.0)) * a * sw;
    sm_fallback_terms(kv, a, sw, k);
    if (at->kind == PRISM_ATTN_MLA) {
        const double dn = at->qk_nope_head_dim, dr = at->qk_rope_head_dim;
        const double dv = at->v_head_dim, rq = at->q_lora_rank, rkv = at->kv_lora_rank;
        double q_tp, q_rep;
        if (rq > 0) {
            q_rep = h * rq + rq; /* down-projection + its norm */
            q_tp = rq * a * (dn + dr);
        } else {
            q_rep = 0.0;
            q_tp = h * a * (dn + dr);
        }
        const double kv_rep = h * (rkv + dr) + rkv, kv_tp = rkv * a * (dn + dv);
        const double o_tp = a * dv * h;
        k->p_tp += q_tp + kv_tp + o_tp;
        k->p_rep += q_rep + kv_rep + (at->out_bias ? h : 0.0);
        k->g = a;
        k->f_tp += 2.0 * (q_tp + kv_tp + o_tp);
        k->f_rep += 2.0 * ((rq > 0 ? h * rq : 0.0) + h * (rkv + dr));
        /* GEMMs: q down (replicated) and up (column-parallel), kv down (replicated) and up
         * (column-parallel), output (row-parallel) */
        if (rq > 0) {
            add_gemm(k, "q_down", 0, 0, rq, 0, h, 1);
            add_gemm(k, "q_up", a * (dn + dr), 0, 0, 0, rq, 1);
        } else {
            add_gemm(k, "q", a * (dn + dr), 0, 0, 0, h, 1);
        }
        add_gemm(k, "kv_down", 0, 0, rkv + dr, 0, h, 1);
        add_gemm(k, "kv_up", a * (dn + dv), 0, 0, 0, rkv, 1);
        add_gemm(k, "attn_out", 0, 0, h, a * dv, 0, 1);
        /* stored: compressed q/kv (and their normed copies) replicated; q, k, v and the
         * attention output sharded by heads */
        k->a_rep += bp * ((rq > 0 ? 2.0 * rq : 0.0) + (rkv + dr) + rkv);
        k->e_rep += 2.0 * bp * ((rq > 0 ? rq : 0.0) + rkv); /* the two LoRA norms */
        k->a_tp += bp * (2.0 * a * (dn + dr) + 2.0 * a * dv);
        core = 2.0 * a * (dn + dr) * sw + 2.0 * a * dv * sw;
        k->cp_tp = bp * a * (dn + dr + dv);
        k->cp_qo = bp * a * (dn + dr + dv); /* Q (dn + dr) and the output (dv) per head */
        k->a_score = kv->flash > 0.5 ? 4.0 * a : (2.0 * bp + kv->drop) * a * sw;
    } else {
        const double d = at->head_dim, g = at->n_kv_heads;
        const double q = h * a * d, o = a * d * h, kvw = 2.0 * h * g * d;
        k->p_tp += q + o + (at->qkv_bias ? a * d : 0.0);
        k->p_kv += kvw + (at->qkv_bias ? 2.0 * g * d : 0.0);
        k->p_rep += at->out_bias ? h : 0.0;
        k->g = g;
        k->f_tp += 2.0 * (q + o);
        k->f_kv += 2.0 * kvw;
        /* GEMMs: fused QKV (column-parallel; K/V heads by the kv rule), output (row) */
        add_gemm(k, "qkv", a * d, 2.0 * g * d, 0, 0, h, 1);
        add_gemm(k, "attn_out", 0, 0, h, a * d, 0, 1);
        k->a_tp += bp * 2.0 * a * d; /* Q and the attention output */
        k->a_kv += bp * 2.0 * g * d; /* K and V */
        core = 4.0 * a * d * sw;     /* QK^T and AV over the sequence (or the window) */
        k->cp_kv = bp * 2.0 * g * d;
        k->cp_kvh = bp * 2.0 * d;
        k->cp_qo = bp * 2.0 * a * d; /* Q and the attention output */
        if (kv->kv_repeat > 0.5 && g < a) {
            /* repeat_kv before attention: the attention sees a heads of K and V, sharded by
             * tp like the queries; autograd keeps those (not the g-head ones: the copy needs
             * no saved input), CP exchanges them, and the copy reads K, V and writes them
             * a-headed (counted tp-sharded, as the k part of qk_norm) */
            k->a_kv -= bp * 2.0 * g * d;
            k->a_tp += bp * 2.0 * a * d;
            k->cp_tp += bp * 2.0 * a * d;
            k->cp_kv = k->cp_kvh = 0.0;
            k->e_tp += bp * 2.0 * (a + g) * d;
        }
        if (at->sinks) /* one learned logit per head, sharded with the heads; its FLOPs
                        * (one exp-add per query and head) are left out: < 0.01 % */
            k->p_tp += a;
        if (at->qk_norm) {
            /* RMSNorm over head_dim on q and k: one weight vector each, replicated; the
             * inputs are kept for the backward; read + write of q and k (the k part is
             * counted as tp-sharded too) */
            k->p_rep += 2.0 * d;
            k->a_tp += bp * a * d;
            k->a_kv += bp * g * d;
            k->e_tp += 2.0 * bp * (a + g) * d;
        }
        if (at->out_gate) {
            /* Qwen3-Next's gated attention: q_proj also yields a gate of a d per token
             * (fused into the qkv GEMM: gemm "qkv" below widened), the output is multiplied
             * by its sigmoid before o_proj: the gate and the ungated output are kept, the
             * sigmoid-multiply reads 2 a d and writes a d */
            k->p_tp += h * a * d;
            k->f_tp += 2.0 * h * a * d;
            k->gemm[k->n_gemm - 2].n_tp += a * d;
            k->a_tp += bp * 2.0 * a * d;
            k->e_tp += bp * 3.0 * a * d;
        }
        k->a_score = kv->flash > 0.5 ? 4.0 * a : (2.0 * bp + kv->drop) * a * sw;
    }
    k->inv_g = 1.0 / k->g;
    k->heads = a;
    k->f_core = core * (kv->flash > 0.5 ? causal : 1.0);
    *model_core = core;
}

/* Mamba-2 (SSD) mixer (Dao & Gu 2024, "Transformers are SSMs", Sec. 6-7; Megatron-Core
 * megatron/core/ssm/mamba_mixer.py and mamba_context_parallel.py; cost/README.md "State-space
 * and linear-attention layers"). H heads of P channels (d_inner D = H P), G groups of state
 * size N, conv of K taps, chunk length Q. Every weight is sharded over tp by heads and
 * groups (in_proj column-parallel, out_proj row-parallel, conv channels and the per-head
 * vectors with their heads; tp divides H and G, strategy.h R2). Per token, forward:
 *   GEMMs   in_proj 2 h (2D + 2GN + H), out_proj 2 D h
 *   conv    2 K (D + 2GN)
 *   scan    intra-chunk C B^T 2 Q G N and its product with x 2 Q H P, chunk states B^T x
 *           2 H P N, the state passing between chunks 2 H P N / Q, the output from the
 *           states C h 2 H P N: 2 Q (G N + H P) + 4 H P N + 2 H P N / Q
 * The conv and the scan are priced at the attention core's rates (f_core; both are chunked
 * matmul kernels, no separate kernel fraction is published). Kept for the backward (bytes
 * per token, all tp-sharded): in_proj's output z (D), xBC (D + 2GN) and dt (H), the conv's
 * output xBC (D + 2GN), the scan's output y (D), the gated norm's output (D): 5D + 4GN + H;
 * the chunk states are recomputed in the backward (mamba_ssm saves none). Elementwise: the
 * conv reads and writes xBC, the gated RMSNorm reads y and z and writes D. Context
 * parallelism is Megatron-Core's all-to-all: z, x, B, C and dt in (B and C repeated to cp
 * copies when G/tp < cp), y out, per pass; tp x cp must divide H. */
static void mamba_terms(const PrismSsmSpec *ss, double h, const KnobView *kv, PrismKKind *k,
                        double *core)
{
    const double H = ss->n_heads, P = ss->head_dim, N = ss->state, G = ss->n_groups;
    const double K = ss->conv_kernel, Q = ss->chunk, D = H * P, bp = kv->bp;
    const double in = 2.0 * D + 2.0 * G * N + H, xbc = D + 2.0 * G * N;
    k->p_tp += h * in + D * h + xbc * K + 3.0 * H + D + (ss->bias ? in : 0.0) +
               (ss->conv_bias ? xbc : 0.0);
    k->p_rep += ss->bias ? h : 0.0;
    k->f_tp += 2.0 * h * in + 2.0 * D * h;
    add_gemm(k, "in_proj", in, 0, 0, 0, h, 1);
    add_gemm(k, "out_proj", 0, 0, h, D, 0, 1);
    const double conv = 2.0 * K * xbc;
    const double scan = 2.0 * Q * (G * N + H * P) + 4.0 * H * P * N + 2.0 * H * P * N / Q;
    k->f_core = conv + scan;
    *core = conv + scan;
    k->a_tp += bp * (5.0 * D + 4.0 * G * N + H);
    k->e_tp += bp * (2.0 * xbc + 3.0 * D);
    k->g = G;
    k->inv_g = 1.0 / G;
    k->heads = H;
    k->cp_a2a = 1.0;
    k->cp_qo = bp * (3.0 * D + H); /* z, x, dt in; y out */
    k->cp_kv = bp * 2.0 * G * N;   /* B and C */
    k->cp_kvh = bp * 2.0 * N;      /* one group's B and C (repeated to cp copies) */
}

/* Gated DeltaNet mixer (Yang et al. 2025, "Gated Delta Networks"; Hugging Face
 * transformers models/qwen3_next/modeling_qwen3_next.py Qwen3NextGatedDeltaNet; Megatron-Core
 * megatron/core/ssm/gated_delta_net.py; the chunked kernel of flash-linear-attention,
 * chunk_gated_delta_rule, chunk length C = 64). Hk key heads of dk, Hv value heads of dv
 * (Hv a multiple of Hk: q and k are repeated to Hv heads before the kernel), conv of K taps.
 * Weights sharded over tp by heads as Megatron-Core does (in_proj column-, out_proj
 * row-parallel; tp divides Hk and Hv); the gated norm's weight (dv) is replicated. Per
 * token, forward:
 *   GEMMs   in_proj 2 h (2 Hk dk + 2 Hv dv + 2 Hv), out_proj 2 Hv dv h
 *   conv    2 K (2 Hk dk + Hv dv)
 *   scan    per value head: K K^T in the chunk 2 C dk, the WY factors w and u 2 C (dk + dv),
 *           the triangular solve C^2 / 3, the state update (W S and K^T u) 4 dk dv, the
 *           output from the state 2 dk dv and within the chunk (Q K^T, its product with the
 *           new values) 2 C (dk + dv): 6 dk dv + 2 C (3 dk + 2 dv) + C^2 / 3
 * Kept for the backward (bytes per token, tp-sharded): in_proj's output (q, k, v pre-conv,
 * the gate z, beta and alpha), the conv's output, the l2-normed q and k, the kernel's
 * inputs (q and k repeated to Hv heads when Hv > Hk; v contiguous), the fp32 decay g and
 * beta, the inverted chunk matrix A (C per head), the kernel's output and the gated norm's
 * output. No framework runs context parallelism over these layers at the versions read
 * (Megatron-Core gated_delta_net.py: "TODO: support CP"): cp > 1 is refused (strategy.h). */
static void gdn_terms(const PrismSsmSpec *ss, double h, const KnobView *kv, PrismKKind *k,
                      double *core)
{
    const double Hv = ss->n_heads, dv = ss->head_dim, dk = ss->state, Hk = ss->n_groups;
    const double K = ss->conv_kernel, C = ss->chunk, bp = kv->bp;
    const double qk = Hk * dk, v = Hv * dv, in = 2.0 * qk + 2.0 * v + 2.0 * Hv;
    const double rep = Hv > Hk ? 2.0 * Hv * dk : 0.0; /* q, k repeated to the value heads */
    k->p_tp += h * in + v * h + (2.0 * qk + v) * K + 2.0 * Hv;
    k->p_rep += dv;
    k->f_tp += 2.0 * h * in + 2.0 * v * h;
    add_gemm(k, "in_proj", in, 0, 0, 0, h, 1);
    add_gemm(k, "out_proj", 0, 0, h, v, 0, 1);
    const double conv = 2.0 * K * (2.0 * qk + v);
    const double scan = Hv * (6.0 * dk * dv + 2.0 * C * (3.0 * dk + 2.0 * dv) + C * C / 3.0);
    k->f_core = conv + scan;
    *core = conv + scan;
    k->a_tp += bp * (in + (2.0 * qk + v) + 2.0 * qk + rep + v + Hv + Hv * C + 2.0 * v) + 4.0 * Hv;
    /* conv read + write, l2norm of q and k read + write, the repeat (read q, k, write the
     * copies), the gated norm (read o and z, write) */
    k->e_tp += bp * (2.0 * (2.0 * qk + v) + 4.0 * qk + (rep > 0 ? rep + 2.0 * qk : 0.0) + 3.0 * v);
    k->g = Hk;
    k->inv_g = 1.0 / Hk;
    k->heads = Hv;
    k->cp_none = 1.0;
}

/* Elements per routed row the combine keeps for the probabilities' gradient: the expert's
 * output (h) when the combine scales the outputs by the probabilities (Megatron-Core's
 * unpermute with probs, core_r0.9 moe_utils.py; torchtitan's combine), none when the
 * probabilities scale the experts' activation before fc2 (moe_probs_in_act: TE
 * moe_permute_with_probs, PR #1468; Megatron-Core GroupedMLP activation_func_with_probs,
 * TEGroupedMLP weighted_bias_swiglu_impl), whose backward takes d(probs) from the
 * activation's kept input. */
static double combine_kept(const KnobView *kv, double h)
{
    return kv->probs_act > 0.5 ? 0.0 : h;
}

/* ffn-wide tensors per token an eager SwiGLU keeps beyond the fused one's gate, up and
 * product (swiglu_unfused): silu(gate), which the product saves as its operand. */
static double swiglu_kept(PrismMlpAct act, const KnobView *kv)
{
    return act == PRISM_MLP_SWIGLU ? kv->glu_eager : 0.0;
}

/* MLP part (dense or MoE). Returns the forward model FLOPs per token of the MLP. */
static double mlp_terms(const PrismMlpSpec *mp, double h, const KnobView *kv, PrismKKind *k)
{
    const double bp = kv->bp, mats = mlp_mats(mp->act);
    const double bias_tp = mp->act == PRISM_MLP_SWIGLU ? 2.0 : 1.0; /* fc1 biases per f */
    if (mp->n_experts == 0) {
        const double f = (double)mp->ffn_hidden;
        k->p_tp += mats * h * f + (mp->bias ? bias_tp * f : 0.0);
        k->p_rep += mp->bias ? h : 0.0;
        k->f_tp += 2.0 * mats * h * f;
        add_gemm(k, "fc1", (mats - 1.0) * f, 0, 0, 0, h, 1); /* gate + up fused */
        add_gemm(k, "fc2", 0, 0, h, f, 0, 1);
        k->a_tp += bp * mats * f; /* GELU: fc1 out + GELU out; SwiGLU: gate, up, product */
        k->a_tp += bp * swiglu_kept(mp->act, kv) * f; /* eager SwiGLU: silu's output */
        k->e_tp += bp * mats * f; /* bias-GeLU: read f, write f; SwiGLU: read 2f, write f */
        return 2.0 * mats * h * f;
    }
    const double E = mp->n_experts, topk = mp->top_k, nsh = mp->n_shared;
    const double fe = (double)mp->expert_hidden;
    const double fs = mp->shared_hidden ? (double)mp->shared_hidden : fe;
    const double cf = mp->capacity_factor > 0 ? mp->capacity_factor : kv->imbal;
    const double one_exp = mats * h * fe + (mp->bias ? bias_tp * fe + h : 0.0);
    const double one_sh = mats * h * fs + (mp->bias ? bias_tp * fs + h : 0.0);
    k->p_rep += (h + (mp->router_bias ? 1.0 : 0.0)) * E; /* router */
    k->p_exp += E * one_exp;
    k->p_tp += nsh * one_sh;
    k->f_rep += 2.0 * h * E;
    k->f_tp += 2.0 * nsh * mats * h * fs;
    k->f_exp += 2.0 * mats * h * fe * topk * cf;
    add_gemm(k, "router", 0, 0, E, 0, h, 0); /* BF16 */
    if (nsh > 0) {
        add_gemm(k, "shared_fc1", nsh * (mats - 1.0) * fs, 0, 0, 0, h, 1);
        add_gemm(k, "shared_fc2", 0, 0, h, nsh * fs, 0, 1);
        k->gemm[k->n_gemm - 2].shared = k->gemm[k->n_gemm - 1].shared = 1.0;
    }
    /* routed experts: E/ep grouped GEMMs per device, each over the tokens routed to it
     * (prism_cost_gemm_shape_internal: T x top_k x cf / E x ep x etp / tp rows) */
    add_gemm(k, "expert_fc1", (mats - 1.0) * fe, 0, 0, 0, h, 1);
    add_gemm(k, "expert_fc2", 0, 0, h, fe, 0, 1);
    for (uint32_t q = k->n_gemm - 2; q < k->n_gemm; q++) {
        k->gemm[q].m_tok = topk * cf / E;
        k->gemm[q].ep = 1.0;
        k->gemm[q].count = E;
    }
    k->a_rep += 4.0 * E;             /* router logits in fp32 */
    k->a_full += topk * cf * h * bp; /* permuted tokens (expert inputs) */
    k->a_tp += nsh * bp * mats * fs + topk * cf * bp * (mats * fe + combine_kept(kv, h));
    k->a_tp += bp * swiglu_kept(mp->act, kv) * (nsh * fs + topk * cf * fe); /* eager SwiGLU */
    k->ep_bytes = topk * cf * h * bp;
    k->is_moe = 1.0;
    k->e_tp += bp * mats * (nsh * fs + topk * cf * fe); /* activations of the experts */
    /* dispatch traffic of Megatron-Core's alltoall dispatcher without --moe-permute-fusion
     * (moe_utils.py permute / unpermute / sort_chunks_by_idxs; cost/README.md "MoE"), per
     * token the layer routes (T*r with SP), R = top_k*cf rows of h*bp bytes: permute
     * (index_select: read + write R), unpermute (x probs: read + write R; zeros: write 1;
     * scatter_add: read + write R) = 6R + 1, the router's fp32 softmax over E logits
     * (read + write 4E); the chunk sort and unsort of the received rows (split + cat:
     * read + write, twice) = 4R per etp-gathered row set, when E/ep > 1 */
    k->e_moe += (6.0 * topk * cf + 1.0) * h * bp + 8.0 * E;
    if (kv->probs_act > 0.5) /* the unpermute's x probs moves into the fused activation */
        k->e_moe -= 2.0 * topk * cf * h * bp;
    k->e_sort += 4.0 * topk * cf * h * bp;
    k->n_exp = E;
    double gate = 0.0;
    if (mp->shared_gate && nsh > 0) {
        /* sigmoid gate Linear(h, 1) on the shared output: h weights, 2h FLOPs, read + write
         * of the shared output for the scaling */
        gate = 2.0 * h;
        k->p_rep += h;
        k->f_rep += gate;
        k->e_rep += 2.0 * bp * h;
    }
    return 2.0 * h * E + 2.0 * nsh * mats * h * fs + 2.0 * mats * h * fe * topk + gate;
}

/* What recompute = selective keeps and runs again (cost/README.md "Memory", knob
 * selective_policy). Korthikanti's policy (0, and every kind the SAC count below does not
 * cover): everything but the attention core is kept, the core runs again. Per-op SAC
 * (1; torchtitan activation_checkpoint.selective_ac_option = "op": the outputs of SDPA
 * and of every other aten.mm are saved, every other op is recomputed) on a bias-free
 * standard-attention dense block with flash attention, whose matmuls run in torchtitan's
 * order wq, wk, wv, wo, w1, [w3,] w2: kept per token are the block input (h), the outputs
 * of the 1st, 3rd, 5th and 7th matmul - wq (a d), wv (g d), w1 (f), w2 (h, the row-parallel
 * output before its reduction, T rows) - and SDPA's output (a d) and fp32 log-sum-exp
 * (4 a bytes); recomputed are wk, wo and w3 (GELU: fc2; the same FLOPs 2 h f) and every
 * elementwise op (norms, RoPE, activation, residual adds), not the attention core. */
static void selective_terms(const PrismBlockSpec *sp, gboolean mtp, double h, const KnobView *kv,
                            PrismKKind *k)
{
    k->as_rep = k->a_rep;
    k->as_tp = k->a_tp;
    k->as_kv = k->a_kv;
    k->as_full = k->a_full;
    k->as_spg = k->a_spg;
    k->sel_core = 1.0;
    k->sel_gemm = k->sel_ew = k->sf_tp = k->sf_kv = 0.0;
    if (sp == NULL || mtp || kv->sac < 0.5 || kv->flash < 0.5 ||
        sp->mixer != PRISM_MIXER_ATTENTION || sp->no_mlp || sp->attn.kind != PRISM_ATTN_STANDARD ||
        sp->attn.qkv_bias || sp->attn.out_bias || sp->mlp.n_experts > 0 || sp->mlp.bias)
        return;
    const double a = sp->attn.n_heads, d = sp->attn.head_dim, g = sp->attn.n_kv_heads;
    const double f = (double)sp->mlp.ffn_hidden, bp = kv->bp;
    const int swiglu = sp->mlp.act == PRISM_MLP_SWIGLU;
    k->as_rep = bp * h;                            /* block input */
    k->as_tp = bp * (a * d + a * d + f) + 4.0 * a; /* wq, SDPA output, w1; log-sum-exp */
    k->as_kv = bp * g * d;                         /* wv */
    k->as_full = swiglu ? bp * h : 0.0;            /* w2 (7th matmul; GELU has 6) */
    k->as_spg = 0.0;   /* the all-gathers are recomputed, their outputs not kept */
    k->sel_core = 0.0; /* SDPA's output is saved */
    k->sf_tp = 2.0 * a * d * h + 2.0 * h * f;                  /* wo, w3 (GELU: fc2) */
    k->sf_kv = 2.0 * h * g * d;                                /* wk */
    k->sel_gemm = (k->sf_tp + k->sf_kv) / (k->f_tp + k->f_kv); /* exact while tp <= g */
    k->sel_ew = 1.0;
    /* selective_policy 2: the attention kernel's op is not on the save list (torchtitan's
     * _op_sac_save_list held the flash and memory-efficient SDPA ops but not cuDNN's until
     * pytorch/torchtitan#2095), so SDPA's output and log-sum-exp are not kept and SDPA
     * runs again in the recompute (from the kept wq and wv outputs and the recomputed k) */
    if (kv->sac > 1.5) {
        k->as_tp -= bp * a * d + 4.0 * a;
        k->sel_core = 1.0;
    }
    /* with SP, the policy's save list holds reduce_scatter_tensor but not the all-gathers
     * (torchtitan _save_list): the recomputed wk and w3 need the gathered attention and
     * MLP inputs, so both all-gathers run again - (t-1)/t of T h each, together one
     * all-reduce-equivalent (the unit of tp_coll_*) */
    k->tp_coll_sel_sp = 1.0;
}

/* Eager PyTorch (elementwise_eager = 1; cost/README.md "Elementwise traffic"): extra HBM
 * bytes per element of an RMSNorm, of RoPE and of SwiGLU over the fused kernels' read +
 * write, each eager op reading its inputs and writing its output (bp = activation bytes):
 *   RMSNorm (torchtitan: x.float(), pow, mean, x * rsqrt, type_as, * weight):
 *     (bp + 4) + 8 + 4 + 8 + (4 + bp) + 2bp = 4bp + 28, fused 2bp: + 2bp + 28 per element;
 *   RoPE (x.float(), complex multiply, type_as) on q and k: (bp + 4) + 8 + (4 + bp) =
 *     2bp + 16 per element, fused kernels: not counted;
 *   SwiGLU (silu(a), then * b): 2bp + 3bp = 5bp per f, fused 3bp: + 2bp. */
static double eager_norm_extra(double bp)
{
    return 2.0 * bp + 28.0;
}

/* Bytes per element of DeepSeek-V3's FP8 activation cache (its report, Sec. 3.3.2-3.3.3): an
 * FP8 value plus one fp32 scale per 1 x 128 tile, and the E5M6 format (12 bits) it keeps the
 * attention output in. */
#define FP8_CACHE_BYTES (1.0 + 4.0 / 128.0)
#define E5M6_CACHE_BYTES (1.5 + 4.0 / 128.0)

/* What recompute = selective keeps beyond Korthikanti's policy under Megatron-Core's
 * output-discarding recompute modules and DeepSeek-V3's FP8 activation cache (cost/README.md
 * "MoE memory"). recompute_norm ("layernorm"): the two pre-norms' outputs - the inputs of the
 * attention linears and of the MLP's first linears, 2h per token - are dropped and both norms
 * run again (read + write h each). recompute_mla_up ("mla_up_proj"): MLA's Q (with a q
 * LoRA), K and V and the normed latents the up-projections read are dropped; the LoRA norms,
 * the up-projection GEMMs (their FLOP share of the forward GEMMs) and RoPE run again.
 * act_cache_fp8 (DeepSeek-V3 Sec. 3.3.3): every kept linear input in FP8 (the pre-norm
 * outputs, the normed latents, the experts' permuted inputs, a dense MLP's fc2 input), the
 * attention output in E5M6, and the MoE's SwiGLU (routed and shared) keeps its inputs in FP8
 * and recomputes its output, as recompute_moe_act does. Q, K, V (the attention's inputs),
 * the norms' inputs, the router's logits and the experts' outputs kept for the combine
 * (none under moe_probs_in_act) stay as they are. */
static void memory_modules(const PrismBlockSpec *sp, double h, const KnobView *kv, PrismKKind *k)
{
    const PrismAttnSpec *at = &sp->attn;
    const PrismMlpSpec *mp = &sp->mlp;
    const double bp = kv->bp, q8 = FP8_CACHE_BYTES;
    const int mla = at->kind == PRISM_ATTN_MLA;
    const double a = at->n_heads;
    const double rq = mla ? at->q_lora_rank : 0.0, rkv = mla ? at->kv_lora_rank : 0.0;
    const double dn = at->qk_nope_head_dim, dr = at->qk_rope_head_dim, dv = at->v_head_dim;
    const double mats = mlp_mats(mp->act);
    if (kv->rc_norm > 0.5) {
        k->as_rep -= 2.0 * bp * h;
        k->as_spg = 0.0; /* a_spg is part of the pre-norms' outputs */
        k->se_tp += 4.0 * bp * h;
    }
    if (kv->rc_mla > 0.5 && mla) {
        const double f_up = 2.0 * (rq * a * (dn + dr) + rkv * a * (dn + dv));
        const double f_all = k->f_tp + k->f_kv + k->f_rep + k->f_exp;
        k->as_tp -= bp * ((rq > 0 ? a * (dn + dr) : 0.0) + a * (dn + dr) + a * dv);
        k->as_rep -= bp * (rq + rkv);
        k->se_tp += 2.0 * bp * (rq + rkv);
        k->sf_tp += f_up;
        k->sel_gemm += f_all > 0 ? f_up / f_all : 0.0;
    }
    if (kv->fp8_cache < 0.5)
        return;
    if (kv->rc_norm < 0.5) {
        k->as_rep -= (bp - q8) * 2.0 * h;
        k->as_spg *= q8 / bp;
    }
    if (mla && kv->rc_mla < 0.5)
        k->as_rep -= (bp - q8) * (rq + rkv);
    if (!(kv->sac > 1.5 && k->sel_ew > 0.5)) /* per-op SAC policy 2 keeps no attention output */
        k->as_tp -= (bp - E5M6_CACHE_BYTES) * a * (mla ? dv : at->head_dim);
    if (mp->n_experts == 0) {
        k->as_tp -= (bp - q8) * (double)mp->ffn_hidden; /* fc2's input */
        return;
    }
    const double cf = mp->capacity_factor > 0 ? mp->capacity_factor : kv->imbal;
    const double rows = (double)mp->top_k * cf, fe = (double)mp->expert_hidden;
    const double nsh = mp->n_shared, fs = mp->shared_hidden ? (double)mp->shared_hidden : fe;
    /* kept per routed row: fc1's outputs in FP8, the output for the combine (if any) as it
     * was; the activation's output is recomputed (already so under recompute_moe_act) */
    const double out = combine_kept(kv, h);
    const double kept_row = bp * (mats * fe + out) - (kv->moe_act > 0.5 ? bp * fe : 0.0);
    k->as_tp -= rows * (kept_row - (q8 * (mats - 1.0) * fe + bp * out));
    k->as_tp -= nsh * (bp * mats - q8 * (mats - 1.0)) * fs;
    k->as_full -= (bp - q8) * rows * h;
    k->se_tp += (kv->moe_act > 0.5 ? 0.0 : rows * bp * mats * fe) + nsh * bp * mats * fs;
}

/* A transformer block (optionally an MTP module around it). */
static void block_kind(const PrismModel *m, const PrismBlockSpec *sp, gboolean mtp,
                       const KnobView *kv, PrismKKind *k, double *model_flops, double *exec_flops,
                       double *core)
{
    const double h = (double)m->hidden, bp = kv->bp, V = (double)m->vocab;
    memset(k, 0, sizeof *k);
    /* the mixer (attention, Mamba-2, gated DeltaNet or none) and the MLP, each behind its
     * own norm; a hybrid layer holds one of the two (np = the parts present) */
    const gboolean attn = sp->mixer == PRISM_MIXER_ATTENTION,
                   ssm = !attn && sp->mixer != PRISM_MIXER_NONE;
    double ssm_core = 0.0;
    *core = 0.0;
    if (attn) {
        attn_terms(&sp->attn, h, kv, k, core);
    } else if (sp->mixer == PRISM_MIXER_MAMBA2) {
        mamba_terms(&sp->ssm, h, kv, k, &ssm_core);
    } else if (sp->mixer == PRISM_MIXER_GDN) {
        gdn_terms(&sp->ssm, h, kv, k, &ssm_core);
    } else { /* an MLP-only layer: nothing exchanged over CP */
        k->g = k->inv_g = 1.0;
        k->cp_none = 1.0;
    }
    const double attn_gemm = k->f_tp + k->f_kv + k->f_rep;
    double mm = sp->no_mlp ? 0.0 : mlp_terms(&sp->mlp, h, kv, k);
    const double np = (double)prism_block_norms(sp);
    k->p_rep += np * norm_params(sp->norm, h);
    /* stored per token, Korthikanti et al. Sec. 4.1: per part the input of its norm and of
     * its first linears (attention + MLP: 4 x h), a dropout mask each */
    k->a_rep += np * (2.0 * bp * h) + np * (kv->drop * h);
    k->a_ckpt = bp * h;
    /* of these, the attention linears' (the SSM in_proj's) input and the dense MLP's first
     * linear input are column-parallel inputs (sp_saves_gathered keeps them gathered) */
    k->a_spg = ((attn && sp->attn.kind == PRISM_ATTN_STANDARD) || ssm ? bp * h : 0.0) +
               (!sp->no_mlp && sp->mlp.n_experts == 0 ? bp * h : 0.0);
    /* per part a norm (read + write h) and a bias-dropout-add (read 2h, write h, mask) */
    k->e_rep += np * ((5.0 * bp + kv->drop) * h);
    k->tp_coll_fwd = np; /* after the mixer and after the MLP */
    k->tp_coll_bwd = np;
    k->tp_bytes = bp * h;
    k->is_layer = 1.0;
    if (mtp) {
        /* DeepSeek-V3 MTP module: two norms, a 2h -> h projection, the block, and the
         * shared output head (its logits are computed and kept here) */
        k->p_rep += 2.0 * norm_params(sp->norm, h);
        k->p_tp += 2.0 * h * h;
        k->f_tp += 2.0 * 2.0 * h * h + 2.0 * h * V;
        add_gemm(k, "mtp_proj", h, 0, 0, 0, 2.0 * h, 1); /* 2h -> h */
        add_gemm(k, "mtp_logits", V, 0, 0, 0, h, 0);     /* shared head, BF16 */
        k->a_rep += bp * (2.0 * h + 2.0 * h + h);
        k->a_tp += kv->logits * V;
        k->e_rep += bp * 6.0 * h;       /* two norms, concatenation */
        k->e_tp += loss_traffic(kv, V); /* cross-entropy over the logits */
        mm += 2.0 * 2.0 * h * h + 2.0 * h * V;
    }
    if (kv->eager > 0.5) {
        if (sp->norm == PRISM_NORM_RMSNORM)
            k->e_rep += np * eager_norm_extra(bp) * h;
        if (sp->mlp.act == PRISM_MLP_SWIGLU && sp->mlp.n_experts == 0 && !sp->no_mlp)
            k->e_tp += 2.0 * bp * (double)sp->mlp.ffn_hidden;
        /* RoPE on q and k (k counted as tp-sharded: exact while t <= g) */
        if (m->pos == PRISM_POS_ROPE && attn && sp->attn.kind == PRISM_ATTN_STANDARD)
            k->e_tp += (2.0 * bp + 16.0) * (double)sp->attn.head_dim *
                       ((double)sp->attn.n_heads + (double)sp->attn.n_kv_heads);
    }
    /* layout copies (layout_copies; cost/README.md "Elementwise traffic"): query-width
     * tensors read and written once each, both passes together, so stated per forward as
     * / (1 + bwd_ratio); sharded by tp with the heads */
    if (kv->layout > 0.0 && attn && sp->attn.kind == PRISM_ATTN_STANDARD)
        k->e_tp += kv->layout * 2.0 * bp * (double)sp->attn.head_dim * (double)sp->attn.n_heads /
                   (1.0 + kv->bwd);
    selective_terms(sp, mtp, h, kv, k);
    if (!attn) /* selective recompute (Megatron-Core core_attn) leaves SSM and MLP layers whole */
        k->sel_core = 0.0;
    if (kv->moe_act > 0.5 && sp->mlp.n_experts > 0 && !sp->no_mlp) {
        /* recompute_moe_act (Megatron-Core --recompute-modules moe_act, under selective):
         * the routed experts' activation output, fc2's input (f_e per routed row), is
         * dropped after fc2's forward and the activation runs again in backward from the
         * kept fc1 output: its elementwise traffic (SwiGLU: read 2 f_e, write f_e) again */
        const PrismMlpSpec *mp = &sp->mlp;
        const double cf = mp->capacity_factor > 0 ? mp->capacity_factor : kv->imbal;
        const double rows = (double)mp->top_k * cf, fe = (double)mp->expert_hidden;
        k->as_tp -= rows * bp * fe;
        k->se_tp = rows * bp * mlp_mats(mp->act) * fe;
    }
    memory_modules(sp, h, kv, k);
    /* model FLOPs per token (MFU convention: the attention core as executed, full or half
     * by the mfu_core knob; top-k experts), and as executed (HFU) */
    *model_flops = attn_gemm + mm + *core * kv->mfu_core;
    *exec_flops = attn_gemm + mm + *core * kv->exec_core;
    if (ssm) { /* the conv and the scan as counted (no causal half to skip) */
        *model_flops += ssm_core;
        *exec_flops += ssm_core;
        *core = ssm_core;
    }
}

static void embedding_kind(const PrismModel *m, const KnobView *kv, PrismKKind *k)
{
    const double h = (double)m->hidden, V = (double)m->vocab;
    memset(k, 0, sizeof *k);
    k->p_tp = V * h; /* vocabulary-parallel */
    k->p_rep = m->pos == PRISM_POS_LEARNED ? (double)m->max_positions * h : 0.0;
    k->g = 1.0;
    k->inv_g = 1.0;
    k->a_rep = kv->drop * h;                  /* dropout mask of the embedding output */
    k->e_rep = (3.0 * kv->bp + kv->drop) * h; /* lookup write, dropout read/write/mask */
    k->tp_coll_fwd = 1.0; /* all-reduce (reduce-scatter with SP) of the output */
    k->tp_bytes = kv->bp * h;
    selective_terms(NULL, FALSE, h, kv, k);
}

static void head_kind(const PrismModel *m, const KnobView *kv, gboolean own, PrismKKind *k)
{
    const double h = (double)m->hidden, V = (double)m->vocab, bp = kv->bp;
    memset(k, 0, sizeof *k);
    k->p_tp = (own ? V * h : 0.0) + (m->head_bias ? V : 0.0);
    k->p_rep = norm_params(m->final_norm, h);
    k->g = 1.0;
    k->inv_g = 1.0;
    /* Korthikanti Sec. 4.3: final-norm input, projection input, fp32 logits */
    k->a_rep = 2.0 * bp * h;
    k->a_spg = bp * h; /* the projection's input: gathered under sp_saves_gathered */
    k->a_tp = kv->logits * V;
    k->f_tp = 2.0 * h * V;
    add_gemm(k, "logits", V, 0, 0, 0, h, 0); /* stays BF16 in the FP8 recipes */
    k->e_rep = 2.0 * bp * h;                 /* final norm */
    if (kv->eager > 0.5 && m->final_norm == PRISM_NORM_RMSNORM)
        k->e_rep += eager_norm_extra(bp) * h;
    k->e_tp = loss_traffic(kv, V); /* cross-entropy: read logits, fp32 softmax */
    /* the loss backward: eager F.cross_entropy holds log-softmax's saved output (the kept
     * logits), the incoming and the produced gradient at once - one copy more than the
     * working set's (cost/README.md "Backward working set") */
    k->w_tp = kv->loss_bwd * kv->logits * V;
    k->tp_coll_fwd_sp = 1.0; /* SP: all-gather of the input */
    k->tp_coll_bwd = 1.0;    /* all-reduce (reduce-scatter with SP) of the input gradient */
    k->tp_bytes = bp * h;
    selective_terms(NULL, FALSE, h, kv, k);
}

static char *spec_label(const PrismBlockSpec *sp)
{
    const PrismAttnSpec *a = &sp->attn;
    if (sp->mixer != PRISM_MIXER_ATTENTION || sp->no_mlp) {
        const PrismSsmSpec *s = &sp->ssm;
        g_autofree char *mix =
            sp->mixer == PRISM_MIXER_MAMBA2
                ? g_strdup_printf("Mamba-2 %u heads state %u", s->n_heads, s->state)
            : sp->mixer == PRISM_MIXER_GDN
                ? g_strdup_printf("gated DeltaNet %u/%u heads", s->n_groups, s->n_heads)
            : sp->mixer == PRISM_MIXER_NONE
                ? g_strdup("")
                : g_strdup_printf("%s", a->n_kv_heads == a->n_heads ? "MHA" : "GQA");
        if (sp->no_mlp)
            return g_steal_pointer(&mix);
        const char *act = sp->mlp.act == PRISM_MLP_SWIGLU  ? "SwiGLU"
                          : sp->mlp.act == PRISM_MLP_RELU2 ? "ReLU^2"
                                                           : "GELU";
        g_autofree char *mlp = sp->mlp.n_experts > 0
                                   ? g_strdup_printf("MoE %u experts top-%u, %s", sp->mlp.n_experts,
                                                     sp->mlp.top_k, act)
                                   : g_strdup_printf("dense %s", act);
        return mix[0] ? g_strdup_printf("%s, %s", mix, mlp) : g_steal_pointer(&mlp);
    }
    const char *attn = a->kind == PRISM_ATTN_MLA     ? "MLA"
                       : a->n_kv_heads == a->n_heads ? "MHA"
                       : a->n_kv_heads == 1          ? "MQA"
                                                     : "GQA";
    const char *act = sp->mlp.act == PRISM_MLP_SWIGLU ? "SwiGLU" : "GELU";
    g_autofree char *win = a->window > 0 ? g_strdup_printf(" window %u", a->window) : g_strdup("");
    if (sp->mlp.n_experts > 0)
        return g_strdup_printf("%s%s, MoE %u experts top-%u, %s", attn, win, sp->mlp.n_experts,
                               sp->mlp.top_k, act);
    return g_strdup_printf("%s%s, dense %s", attn, win, act);
}

static uint32_t add_kind(PrismCostModel *cm, PrismKindRole role, char *name)
{
    uint32_t i = cm->n_kinds++;
    cm->kinds = g_renew(PrismKKind, cm->kinds, cm->n_kinds);
    cm->kind_role = g_renew(PrismKindRole, cm->kind_role, cm->n_kinds);
    cm->kind_name = g_renew(char *, cm->kind_name, cm->n_kinds);
    cm->kind_model_flops = g_renew(double, cm->kind_model_flops, cm->n_kinds);
    cm->kind_exec_flops = g_renew(double, cm->kind_exec_flops, cm->n_kinds);
    cm->kind_core_flops = g_renew(double, cm->kind_core_flops, cm->n_kinds);
    cm->kind_role[i] = role;
    cm->kind_name[i] = name;
    cm->kind_model_flops[i] = 0.0;
    cm->kind_exec_flops[i] = 0.0;
    cm->kind_core_flops[i] = 0.0;
    return i;
}

/* Device memory bandwidth in GB/s: the cluster's datasheet value (PrismCluster.mem_bw_GBps,
 * set by every preset and by memory_bandwidth_GBps in a cluster file); a cluster that does
 * not give it is priced as an A100-class HBM2e part. The hbm_GBps knob overrides both. */
#define PRISM_HBM_FALLBACK_GBPS 2000.0

static double device_hbm_GBps(const PrismCluster *c)
{
    return c->mem_bw_GBps > 0 ? c->mem_bw_GBps : PRISM_HBM_FALLBACK_GBPS;
}

static void compile_network(PrismCostModel *cm)
{
    const PrismCluster *c = cm->cluster;
    const double eff = cm->knobs.v[PRISM_KNOB_NET_EFFICIENCY];
    /* Every level the cluster declares is priced (PRISM_K_LEVELS >= PRISM_MAX_LEVELS);
     * the kernel's levels past the cluster's last repeat it at size +inf. */
    G_STATIC_ASSERT(PRISM_K_LEVELS >= PRISM_MAX_LEVELS);
    for (uint32_t j = 0; j < PRISM_K_LEVELS; j++) {
        const gboolean last = j + 1 >= c->n_levels || j + 1 == PRISM_K_LEVELS;
        const PrismNetLevel *lv = &c->levels[last ? c->n_levels - 1 : j];
        cm->k.lvl_size[j] = last || lv->size == 0 ? HUGE_VAL : (double)lv->size;
        cm->k.lvl_inv_bw[j] = 1.0 / (lv->bw_GBps * 1e9 * eff);
        cm->k.lvl_lat[j] = lv->latency_us * 1e-6;
        /* all-gather / reduce-scatter: the level's own figure where the cluster gives one */
        const double gbw = c->gather_bw_GBps[last ? c->n_levels - 1 : j];
        const double ag = gbw > 0 ? gbw : lv->bw_GBps;
        cm->k.lvl_inv_bw_ag[j] = 1.0 / (ag * 1e9 * eff);
    }
}

/* The costs small and latency-bound work pays (cost/README.md, "Latency-bound work"):
 * NCCL's ring latencies per protocol for each priced level (the cluster's level 0, the
 * node's NVLink, at NCCL's NVLink hop latencies; every outer level at its network ones;
 * a level's nccl_hop_*_us where the cluster file gives them) and the host's launch time
 * of one layer. nccl_model = 0 keeps the levels' latency_us. */
static void compile_latency(PrismCostModel *cm)
{
    const PrismCluster *c = cm->cluster;
    const double *kn = cm->knobs.v;
    PrismKModel *k = &cm->k;
    static const double base_us[3] = {PRISM_NCCL_BASE_LL_US, PRISM_NCCL_BASE_LL128_US,
                                      PRISM_NCCL_BASE_SIMPLE_US};
    static const double nvl_us[3] = {PRISM_NCCL_HOP_NVLINK_LL_US, PRISM_NCCL_HOP_NVLINK_LL128_US,
                                     PRISM_NCCL_HOP_NVLINK_SIMPLE_US};
    static const double net_us[3] = {PRISM_NCCL_HOP_NET_LL_US, PRISM_NCCL_HOP_NET_LL128_US,
                                     PRISM_NCCL_HOP_NET_SIMPLE_US};
    static const double inv_eff[3] = {PRISM_NCCL_INV_EFF_LL, PRISM_NCCL_INV_EFF_LL128,
                                      PRISM_NCCL_INV_EFF_SIMPLE};
    k->nccl_on = kn[PRISM_KNOB_NCCL_MODEL] > 0.5 ? 1.0 : 0.0;
    for (uint32_t p = 0; p < 3; p++) {
        k->nccl_base[p] = base_us[p] * 1e-6;
        k->nccl_inv_eff[p] = inv_eff[p];
        for (uint32_t j = 0; j < PRISM_K_LEVELS; j++) {
            /* the cluster level priced as kernel level j (compile_network) */
            const gboolean last = j + 1 >= c->n_levels || j + 1 == PRISM_K_LEVELS;
            const uint32_t idx = last ? c->n_levels - 1 : j;
            /* a level's own figure where the cluster file gives one (nccl_hop_*_us) */
            const double own = c->nccl_hop_us[idx][p];
            k->nccl_hop[j][p] = (own > 0 ? own : idx == 0 ? nvl_us[p] : net_us[p]) * 1e-6;
        }
    }
    const double launch = kn[PRISM_KNOB_LAUNCH_US] * 1e-6;
    k->host_fwd = kn[PRISM_KNOB_LAYER_KERNELS_FWD] * launch;
    k->host_bwd = kn[PRISM_KNOB_LAYER_KERNELS_BWD] * launch;
    k->host_launch = launch;
    k->host_sync = kn[PRISM_KNOB_LAYER_HOST_SYNCS] *
                   (kn[PRISM_KNOB_LAUNCH_US] + kn[PRISM_KNOB_HOST_SYNC_US]) * 1e-6;
    k->mb_host = kn[PRISM_KNOB_MB_HOST_SYNCS] *
                 (kn[PRISM_KNOB_LAUNCH_US] + kn[PRISM_KNOB_HOST_SYNC_US]) * 1e-6;
    k->host_sp_fwd = kn[PRISM_KNOB_LAYER_KERNELS_SP_FWD] * launch;
    k->host_sp_bwd = kn[PRISM_KNOB_LAYER_KERNELS_SP_BWD] * launch;
}

/* NVFP4 (cost/README.md, "NVFP4"): one copy of a tensor is half a byte per element and a
 * 1-byte E4M3 scale per 16 elements = 9/16 byte. A cast reads the BF16 tensor (2 bytes)
 * and writes the row-wise and the column-wise copies (the wgrad GEMM's operands are the
 * transposes; NVIDIA's recipe applies its random Hadamard transform in that pass):
 * 2 + 2 x 9/16 = 3.125 bytes per element. The quantized weight (row-wise for the forward,
 * column-wise for dgrad) is held from the forward to the backward: 2 x 9/16 = 9/8 byte
 * per parameter (Transformer Engine keeps the quantized weight as the FP8 recipes'
 * workspace; arXiv:2509.25149 section 4: 16x16 2D block scaling gives both copies). */
#define NVFP4_COPY_BYTES (0.5 + 1.0 / 16.0)
#define NVFP4_CAST_BYTES (2.0 + 2.0 * NVFP4_COPY_BYTES)
#define NVFP4_WEIGHT_BYTES (2.0 * NVFP4_COPY_BYTES)
/* MXFP4 (cost/README.md, "MXFP4"): NVFP4's casts and held weight copies with OCP MX blocks,
 * half a byte per element and a 1-byte E8M0 scale per 32 = 17/32 byte per copy: a cast
 * 2 + 2 x 17/32 = 3.0625 bytes per element (row-wise and column-wise copies, each with its
 * own 1-D block scales, as Transformer Engine's MXFP8 cast writes them), the held weight
 * 2 x 17/32 = 1.0625 bytes per parameter (NVFP4's convention: no MXFP4 training recipe read
 * says whether the quantized weight is kept or recast). */
#define MXFP4_COPY_BYTES (0.5 + 1.0 / 32.0)
#define MXFP4_CAST_BYTES (2.0 + 2.0 * MXFP4_COPY_BYTES)
#define MXFP4_WEIGHT_BYTES (2.0 * MXFP4_COPY_BYTES)

/* The share of the linear GEMMs an FP4 run (nvfp4, mxfp4) keeps in BF16: nvfp4_bf16_layers
 * of the model's transformer blocks (all when it has no more); 0 for every other dtype. */
static double nvfp4_bf16_share(const PrismCostModel *cm)
{
    const uint32_t blocks = prism_model_n_blocks(cm->model);
    if (!prism_dtype_is_fp4(cm->training.dtype) || blocks == 0)
        return 0.0;
    const double n = cm->knobs.v[PRISM_KNOB_NVFP4_BF16_LAYERS];
    const double l = (double)blocks;
    return n >= l ? 1.0 : n / l;
}

/* The shape-aware compute model's constants (cost/README.md, "Compute"): the device as the
 * GEMM model sees it, the large-GEMM rates per dtype, the attention core's rates and the
 * FP8 recipes' cast traffic and weight copies. Needs k->inv_hbm and k->bwd_ratio. */
static void compile_compute(PrismCostModel *cm, double peak)
{
    const PrismCluster *c = cm->cluster;
    const double *kn = cm->knobs.v;
    PrismKModel *k = &cm->k;
    const PrismDtype dt = cm->training.dtype;
    const double eff = prism_knobs_gemm_efficiency(&cm->knobs, c->gemm_efficiency);
    /* the datasheet peak is stated at the boost clock; a power-limited part holds less */
    const double clk = c->boost_clock_mhz > 0 && c->sustained_clock_mhz > 0
                           ? c->sustained_clock_mhz / c->boost_clock_mhz
                           : 1.0;
    const double peak16 =
        c->peak_flops[PRISM_DTYPE_BF16] > 0 ? c->peak_flops[PRISM_DTYPE_BF16] : peak;
    const gboolean fp8 = prism_dtype_is_fp8(dt);
    k->inv_rate_bf16 =
        dt == PRISM_DTYPE_FP32 ? 1.0 / (peak * clk * eff) : 1.0 / (peak16 * clk * eff);
    k->inv_rate = 1.0 / (peak * clk * eff * (fp8 ? kn[PRISM_KNOB_FP8_GEMM_RATIO] : 1.0));
    /* NVFP4: the device's own large-GEMM efficiency in the dtype (gemm_efficiency_nvfp4,
     * cost/README.md "NVFP4"), and the share of the linear GEMMs the recipe keeps in BF16
     * (nvfp4_bf16_layers) */
    const double bf16_share = nvfp4_bf16_share(cm);
    if (prism_dtype_is_fp4(dt)) {
        /* MXFP4 the same with the device's MXFP4 figure (gemm_efficiency_mxfp4) */
        const double eff4 = prism_knobs_gemm_efficiency_nvfp4(
            &cm->knobs, c->gemm_efficiency,
            dt == PRISM_DTYPE_MXFP4 ? c->gemm_eff_mxfp4 : c->gemm_eff_nvfp4);
        k->inv_rate = (1.0 - bf16_share) / (peak * clk * eff4) + bf16_share * k->inv_rate_bf16;
    }
    k->low_in_bytes = (1.0 - bf16_share) * prism_dtype_bytes(dt) + bf16_share * 2.0;
    PrismKGemmDev *g = &k->gdev;
    const gboolean quant = kn[PRISM_KNOB_GEMM_QUANTISATION] > 0.5 && c->sm_count > 0 &&
                           c->gemm_tile_m > 0 && c->gemm_tile_n > 0;
    g->quant = quant ? 1.0 : 0.0;
    g->sms = quant ? (double)c->sm_count : 1.0;
    g->inv_sms = 1.0 / g->sms;
    g->tm = quant ? (double)c->gemm_tile_m : 1.0;
    g->tn = quant ? (double)c->gemm_tile_n : 1.0;
    g->inv_tm = 1.0 / g->tm;
    g->inv_tn = 1.0 / g->tn;
    g->wave_work = 2.0 * g->sms * g->tm * g->tn;
    g->inv_hbm = k->inv_hbm;
    /* a tile's fixed time (cost/README.md, "Compute"): only with the tile model */
    g->tile_s = quant ? kn[PRISM_KNOB_GEMM_TILE_US] * 1e-6 : 0.0;
    g->ref_k = kn[PRISM_KNOB_GEMM_EFF_K];
    /* attention core: flash attention at the device's published kernel fractions (FA2/FA3;
     * the backward recomputes QK^T: 5 matmuls against the forward's 2 = 2.5x its FLOPs);
     * without flash attention (or without a published fraction) the batched QK^T/AV GEMMs
     * run at the large-GEMM BF16 rate and the backward is bwd_ratio x the forward */
    const gboolean flash = kn[PRISM_KNOB_FLASH_ATTENTION] > 0.5;
    const double r16 = k->inv_rate_bf16;
    const double af = kn[PRISM_KNOB_ATTN_FWD_FRACTION] > 0 ? kn[PRISM_KNOB_ATTN_FWD_FRACTION]
                                                           : c->attn_fwd_fraction;
    const double ab = kn[PRISM_KNOB_ATTN_BWD_FRACTION] > 0 ? kn[PRISM_KNOB_ATTN_BWD_FRACTION]
                                                           : c->attn_bwd_fraction;
    k->core_fwd_inv = flash && af > 0 ? 1.0 / (peak16 * clk * af) : r16;
    k->core_bwd_inv = flash && ab > 0 ? 2.5 / k->bwd_ratio / (peak16 * clk * ab) : r16;
    /* FP8 casts per element (HBM bytes; Hopper's FP8 GEMMs take only the TN layout, so each
     * cast also writes the transposed copy the other pass needs):
     *  fp8 (delayed scaling): read bf16 2 + write fp8 1 + transposed 1 = 4; the amax is
     *    taken in the same pass (the scale comes from the history);
     *  fp8-cs (current scaling): + one more read of the tensor for its amax before the
     *    cast = 6;
     *  mxfp8: read 2 + row-wise and column-wise copies (1 + 1/32 scale byte each) = 4.0625
     *    in one fused kernel; with mx_cast_passes 2 a kernel per layout reads the tensor
     *    again: 2 x (2 + 1 + 1/32) = 6.0625 (torchao); mx_cast_efficiency, where set, prices
     *    the MX cast kernels at that fraction of the HBM bandwidth instead of hbm_efficiency
     *    (the bytes scale by their ratio: inv_hbm holds hbm_efficiency).
     * Weights are cast every micro-batch (no FP8 weight cache across micro-batches). */
    const double mx_row = 1.0 + 1.0 / 32.0; /* one MX copy: an FP8 byte + a scale per 32 */
    const double mx_eff = kn[PRISM_KNOB_MX_CAST_EFFICIENCY];
    const double mx_cast =
        (kn[PRISM_KNOB_MX_CAST_PASSES] > 1.5 ? 2.0 * (2.0 + mx_row) : 2.0 + 2.0 * mx_row) *
        (mx_eff > 0 ? kn[PRISM_KNOB_HBM_EFFICIENCY] / mx_eff : 1.0);
    const double cast = dt == PRISM_DTYPE_FP8      ? 4.0
                        : dt == PRISM_DTYPE_FP8_CS ? 6.0
                        : dt == PRISM_DTYPE_MXFP8  ? mx_cast
                        : dt == PRISM_DTYPE_NVFP4  ? (1.0 - bf16_share) * NVFP4_CAST_BYTES
                        : dt == PRISM_DTYPE_MXFP4  ? (1.0 - bf16_share) * MXFP4_CAST_BYTES
                                                   : 0.0;
    k->cast_x = cast;
    k->cast_w = cast;
    /* memory: delayed scaling (Transformer Engine) keeps each weight's FP8 copy and its
     * transpose between forward and backward: 2 B per parameter (the amax histories are
     * kilobytes); the current-scaling and MX recipes recast from the BF16 weight */
    k->bytes_param_mem = k->bytes_param + (dt == PRISM_DTYPE_FP8 ? 2.0 : 0.0) +
                         (dt == PRISM_DTYPE_NVFP4 ? (1.0 - bf16_share) * NVFP4_WEIGHT_BYTES : 0.0) +
                         (dt == PRISM_DTYPE_MXFP4 ? (1.0 - bf16_share) * MXFP4_WEIGHT_BYTES : 0.0);
    k->exp_param_mem_rel = 1.0;
}

/* prism_cost_model_new, phase 1: the inputs the model cannot price (bad user input). */
static gboolean check_inputs(const PrismModel *model, const PrismCluster *cluster,
                             const PrismTraining *training, GError **error)
{
    if (!prism_model_validate(model, error) || !prism_training_validate(training, error))
        return FALSE;
    if (cluster->n_levels == 0 || cluster->n_levels > PRISM_MAX_LEVELS) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "cluster '%s': %u network levels (allowed 1..%d)", cluster->name,
                    cluster->n_levels, PRISM_MAX_LEVELS);
        return FALSE;
    }
    for (uint32_t j = 0; j < cluster->n_levels; j++)
        if (!(cluster->levels[j].bw_GBps > 0)) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                        "cluster '%s': level %u (%s) bandwidth %g GB/s must be > 0", cluster->name,
                        j, cluster->levels[j].name, cluster->levels[j].bw_GBps);
            return FALSE;
        }
    const double peak = cluster->peak_flops[training->dtype];
    if (!(peak > 0)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "cluster '%s' has no %s peak FLOP/s (dtype unsupported by the device; "
                    "use --dtype with a supported one)",
                    cluster->name, prism_dtype_name(training->dtype));
        return FALSE;
    }
    if (model->pos == PRISM_POS_LEARNED && training->seq > model->max_positions) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "--seq %" G_GUINT64_FORMAT
                    " exceeds model '%s' max positions %" G_GUINT64_FORMAT,
                    training->seq, model->name, model->max_positions);
        return FALSE;
    }
    return TRUE;
}

/* Phase 2: the knobs the layer kinds read, as one view. */
static KnobView knob_view(const PrismCostModel *cm, const PrismTraining *training)
{
    const double *kn = cm->knobs.v;
    const PrismDtype dt = training->dtype;
    const double dbytes = prism_dtype_bytes(dt);
    KnobView kv = {
        .bp = dbytes < 2.0 ? 2.0 : dbytes, /* fp8: activations kept in bf16 */
        .drop = kn[PRISM_KNOB_DROPOUT] > 0.5 ? 1.0 : 0.0,
        .flash = kn[PRISM_KNOB_FLASH_ATTENTION],
        .causal = 1.0 - kn[PRISM_KNOB_CAUSAL_SKIP],
        .logits = kn[PRISM_KNOB_LOGITS_BYTES],
        .imbal = kn[PRISM_KNOB_MOE_IMBALANCE],
        .seq = (double)training->seq,
        .sac = kn[PRISM_KNOB_SELECTIVE_POLICY],
        .loss_bwd = kn[PRISM_KNOB_LOSS_BWD_EXTRA],
        .eager = kn[PRISM_KNOB_ELEMENTWISE_EAGER],
        .moe_act = kn[PRISM_KNOB_RECOMPUTE_MOE_ACT] > 0.5 ? 1.0 : 0.0,
        .kv_repeat = kn[PRISM_KNOB_KV_REPEAT],
        .rc_norm = kn[PRISM_KNOB_RECOMPUTE_NORM],
        .rc_mla = kn[PRISM_KNOB_RECOMPUTE_MLA_UP],
        .fp8_cache = kn[PRISM_KNOB_ACT_CACHE_FP8],
        .probs_act = kn[PRISM_KNOB_MOE_PROBS_IN_ACT] > 0.5 ? 1.0 : 0.0,
        .loss = kn[PRISM_KNOB_LOSS_BYTES],
        .bwd = kn[PRISM_KNOB_BWD_RATIO],
        .layout = kn[PRISM_KNOB_LAYOUT_COPIES],
        .glu_eager = kn[PRISM_KNOB_SWIGLU_UNFUSED] > 0.5 ? 1.0 : 0.0,
        .sm_rule = kn[PRISM_KNOB_SOFTMAX_FUSION_RULE] > 0.5 ? 1.0 : 0.0,
    };
    /* the attention core as it runs: causal flash attention skips causal_skip of it,
     * without flash the full s x s scores are computed */
    kv.exec_core = kv.flash > 0.5 ? kv.causal : 1.0;
    const double mc = kn[PRISM_KNOB_MFU_CORE];
    kv.mfu_core = mc < 0.5 ? kv.exec_core : mc < 1.5 ? 1.0 : 0.5;
    return kv;
}

/* Phase 3: the model's scalars (bytes, rates, exposed shares, budgets) and the network
 * and latency tables. @p peak: the training dtype's peak FLOP/s. */
static void compile_scalars(PrismCostModel *cm, const PrismModel *model,
                            const PrismCluster *cluster, const PrismTraining *training,
                            const KnobView *kvp, double peak)
{
    const double *kn = cm->knobs.v;
    const PrismDtype dt = training->dtype;
    const double dbytes = prism_dtype_bytes(dt);
    const KnobView kv = *kvp;
    PrismKModel *k = &cm->k;
    k->seq = (double)training->seq;
    k->gbs = (double)training->gbs;
    k->bytes_act = kv.bp;
    k->bytes_param = dbytes < 2.0 ? 2.0 : dbytes; /* fp8: bf16 weights */
    k->bytes_grad = kn[PRISM_KNOB_GRAD_FP32] > 0.5 ? 4.0 : k->bytes_param;
    /* the model-dtype gradients beside the fp32 buffer until a micro-batch's backward ends
     * (grad_lowp_kept, only with grad_fp32: without it they are the held gradients), and
     * DDP's bucket copy of them (ddp_grad_copy; the kernel holds it with ZeRO-0 over more
     * than one replica) */
    k->grad_kept = kn[PRISM_KNOB_GRAD_FP32] > 0.5 && kn[PRISM_KNOB_GRAD_LOWP_KEPT] > 0.5
                       ? k->bytes_param
                       : 0.0;
    k->ddp_copy = kn[PRISM_KNOB_DDP_GRAD_COPY] > 0.5 ? k->bytes_param : 0.0;
    /* ZeRO-1/2's flat gather buffers after the optimizer step (zero1_gather_copies) */
    k->gather_copies = kn[PRISM_KNOB_ZERO1_GATHER_COPIES];
    k->gather_p = k->gather_copies > 0.0 ? k->bytes_param : 0.0;
    /* what the DP/ZeRO reduction moves: the held gradient, or the 16-bit copy a stack reduces
     * beside its fp32 main gradient (grad_reduce_bytes; cost/README.md, "Data parallelism") */
    k->bytes_grad_comm =
        kn[PRISM_KNOB_GRAD_REDUCE_BYTES] > 0.0 ? kn[PRISM_KNOB_GRAD_REDUCE_BYTES] : k->bytes_grad;
    /* fp32 master copy + the moments (Adam 2, SGD 1) at adam_moment_bytes each */
    k->bytes_opt = (dt == PRISM_DTYPE_FP32 ? 0.0 : 4.0) +
                   (training->optimizer == PRISM_OPTIMIZER_ADAM ? 2.0 : 1.0) *
                       kn[PRISM_KNOB_ADAM_MOMENT_BYTES];
    /* MFU and HFU are against the BF16 dense peak (the published tables' convention, also
     * for FP8 runs); a device without a BF16 peak uses its dtype's */
    const double peak16 = cluster->peak_flops[PRISM_DTYPE_BF16];
    k->peak_flops = peak16 > 0 ? peak16 : peak;
    /* Adam step: read + write the optimizer state (master copy, moments), read the
     * gradient, write the low-precision copy (fp32 training: read + write the weight) */
    k->opt_traffic =
        2.0 * k->bytes_opt + k->bytes_grad + (dt == PRISM_DTYPE_FP32 ? 2.0 : 1.0) * k->bytes_param;
    k->bwd_ratio = kn[PRISM_KNOB_BWD_RATIO];
    const double hbm =
        kn[PRISM_KNOB_HBM_GBPS] > 0 ? kn[PRISM_KNOB_HBM_GBPS] : device_hbm_GBps(cluster);
    k->inv_hbm = 1.0 / (hbm * 1e9 * kn[PRISM_KNOB_HBM_EFFICIENCY]);
    compile_compute(cm, peak);
    k->hidden_bytes = kv.bp * (double)model->hidden;
    /* softmax_fusion_rule (sm_fallback_terms): Megatron's custom_kernel_constraint, key
     * and query length 16 < s <= 2048 with s % 4 = 0 (self-attention: both the sequence),
     * 16-bit scores, and the attention batches (micro-batch x heads / tp, tested per lane)
     * a multiple of 4; each unfused pass launches 4 kernels more than the fused one (cast,
     * scale, mask, softmax, cast against one; fp32: 2) */
    {
        const uint64_t s_seq = (uint64_t)training->seq;
        const double lch = kn[PRISM_KNOB_LAUNCH_US] * 1e-6;
        const gboolean seq_ok = s_seq > 16 && s_seq <= 2048 && s_seq % 4 == 0;
        k->sm_on = kv.sm_rule > 0.5 && kv.flash < 0.5 ? 1.0 : 0.0;
        k->sm_all = seq_ok && kv.bp < 4.0 ? 0.0 : 1.0;
        k->sm_inv_bpb = 0.25;
        k->sm_launch_f = k->sm_on * (kv.bp < 4.0 ? 4.0 : 2.0) * lch;
        k->sm_launch_b = k->sm_launch_f;
    }
    k->tp_exposed = 1.0 - kn[PRISM_KNOB_TP_OVERLAP];
    k->tp_exposed_b = k->tp_exposed;
    if (kn[PRISM_KNOB_TP_UB_SMS] > 0.0) {
        /* Transformer Engine's userbuffers (cost/README.md, "TP overlap as userbuffers run
         * it"), per all-reduce-equivalent (an all-gather and a reduce-scatter of equal time
         * t). Forward: the ring-exchange all-gather (qkv/fc1 fprop) runs each chunk's
         * transfer under the previous chunk's GEMM, the local chunk first: nothing exposed,
         * the GEMM loses k_r/S while it runs; the pipelined reduce-scatter (proj/fc2 fprop)
         * splits the GEMM in n chunks, each chunk's reduce-scatter under the next chunk's
         * GEMM, the last one exposed (t/n), the rest hidden at k/S of the GEMM's rate.
         * Backward: the ring-exchange all-gather (proj/fc2 dgrad) as forward and the bulk
         * reduce-scatter (qkv/fc1 wgrad) under the weight-gradient GEMM, at k/S. S = 0 (the
         * device gives no SM count): no SM loss. */
        /* source: code: NVIDIA/TransformerEngine transformer_engine/pytorch/module/base.py
         * initialize_ub get_default_config: ring_exchange num_sm 1 */
        const double k_ring = 1.0;
        const double sms = cluster->sm_count > 0 ? (double)cluster->sm_count : 0.0;
        const double inv_s = sms > 0.0 ? 1.0 / sms : 0.0;
        const double kub = kn[PRISM_KNOB_TP_UB_SMS], n = kn[PRISM_KNOB_TP_UB_SPLITS];
        const double ring = k_ring * inv_s;
        k->tp_exposed = 0.5 * ring + 0.5 * (1.0 / n + (1.0 - 1.0 / n) * kub * inv_s);
        k->tp_exposed_b = 0.5 * ring + 0.5 * kub * inv_s;
    }
    k->cp_exposed = 1.0; /* cp_overlap is the per-step overlap (cp_ov) */
    k->ep_exposed = 1.0 - kn[PRISM_KNOB_EP_OVERLAP];
    k->shared_overlap = kn[PRISM_KNOB_SHARED_EXPERT_OVERLAP] > 0.5 ? 1.0 : 0.0;
    k->dp_exposed = 1.0 - kn[PRISM_KNOB_DP_OVERLAP];
    k->pp_exposed = 1.0 - kn[PRISM_KNOB_PP_OVERLAP];
    k->pp_scatter = kn[PRISM_KNOB_PP_SCATTER];
    k->zero3_prefetch = kn[PRISM_KNOB_ZERO3_PREFETCH];
    k->runtime_bytes = kn[PRISM_KNOB_RUNTIME_OVERHEAD];
    /* each micro-batch's weight gradients are added into the gradient buffer: one read and
     * one write of bytes_grad per parameter (cost/README.md, "gradient accumulation") */
    k->accum_traffic = 2.0 * k->bytes_grad * kn[PRISM_KNOB_GRAD_ACCUM_EXPOSED];
    k->bwd_ws = kn[PRISM_KNOB_BWD_WORKING_SET];
    k->fsdp_reshard = kn[PRISM_KNOB_FSDP_RESHARD];
    k->fsdp_pp_nosync = kn[PRISM_KNOB_FSDP_PP_NOSYNC] > 0.5 ? 1.0 : 0.0;
    k->nic_spread = kn[PRISM_KNOB_NIC_SPREAD] > 0.5 ? 1.0 : 0.0;
    k->zero_exposed = kn[PRISM_KNOB_ZERO_SYNC_EXPOSED] > 0.5 ? 1.0 : 0.0;
    k->zero1_allreduce = kn[PRISM_KNOB_ZERO1_GRAD_ALLREDUCE] > 0.5 ? 1.0 : 0.0;
    /* tied embeddings (cost/README.md, "Tied embeddings under a pipeline"): the embedding
     * on the first stage and the head on the last hold one matrix, vocab x hidden */
    k->tie_params = model->tied_embeddings ? (double)model->vocab * (double)model->hidden : 0.0;
    k->sp_gathered = kn[PRISM_KNOB_SP_SAVES_GATHERED] > 0.5 ? 1.0 : 0.0;
    k->zero3_lowp = kn[PRISM_KNOB_ZERO3_LOWP_SHARD] > 0.5 ? 1.0 : 0.0;
    /* one all-reduce-equivalent = an all-gather + a reduce-scatter of T h: each copies the
     * full tensor once (read + write) */
    k->tp_layout_copy = 4.0 * kn[PRISM_KNOB_TP_LAYOUT_COPY];
    k->hsdp = kn[PRISM_KNOB_HSDP];
    k->dp_bucket = kn[PRISM_KNOB_DP_BUCKET];
    k->dp_bucket_rank = kn[PRISM_KNOB_DP_BUCKET_PER_RANK];
    /* NCCL's SMs (cost/README.md, "NCCL's SMs"): hiding H seconds of a DP/FSDP collective
     * leaves the compute beside it (S - k)/S of the device, H k/S of compute later */
    const double nsm = kn[PRISM_KNOB_NCCL_SMS];
    k->nccl_share = cluster->sm_count > 0
                        ? (nsm < (double)cluster->sm_count ? nsm / (double)cluster->sm_count : 1.0)
                        : 0.0;
    k->cp_ulysses = kn[PRISM_KNOB_CP_ALGO];
    k->cp_zigzag = kn[PRISM_KNOB_CP_LOAD_BALANCE];
    k->moe_allgather = kn[PRISM_KNOB_MOE_DISPATCHER] > 0.5 ? 1.0 : 0.0;
    /* the all-to-all dispatcher's token-count exchange (cost/README.md, EP) */
    k->moe_sync = kn[PRISM_KNOB_MOE_COUNT_SYNC] > 0.5 ? 1.0 : 0.0;
    k->moe_sync_host = (kn[PRISM_KNOB_LAUNCH_US] + kn[PRISM_KNOB_HOST_SYNC_US]) * 1e-6;
    /* the causal skip is executed only by flash attention; without it every block runs */
    k->cp_skip = kv.flash > 0.5 ? kn[PRISM_KNOB_CAUSAL_SKIP] : 0.0;
    k->cp_inv_run = k->cp_skip < 1.0 ? 1.0 / (1.0 - k->cp_skip) : 0.0;
    k->cp_ov = kn[PRISM_KNOB_CP_OVERLAP];
    const double mem =
        training->mem_budget_bytes > 0 ? training->mem_budget_bytes : cluster->mem_bytes;
    k->budget = mem - kn[PRISM_KNOB_MEM_MARGIN];
    prism_cost_memory_setup_internal(kn, &k->mem_scale, &k->mem_fixed, &k->nccl_group,
                                     &k->mem_reserve);
    k->gather_units = kn[PRISM_KNOB_FSDP_GATHER_POOL];
    /* the host (cost/README.md, "Offloading"): usable only when the cluster gives all
     * three numbers; otherwise the host budget is 0 and every offload is infeasible
     * (reason mem_host), priced at zero transfer time so the row stays finite */
    const gboolean host =
        cluster->host_link_GBps > 0 && cluster->host_mem_bytes > 0 && cluster->host_mem_bw_GBps > 0;
    k->inv_host_link = host ? 1.0 / (cluster->host_link_GBps * 1e9) : 0.0;
    k->inv_host_mem = host ? 1.0 / (cluster->host_mem_bw_GBps * 1e9) : 0.0;
    k->host_budget = host ? cluster->host_mem_bytes : 0.0;
    /* TP overlap's userbuffers (cost/README.md, "Communication overlap"): only where
     * something is hidden (tp_overlap > 0) */
    k->ub_bytes = kn[PRISM_KNOB_TP_OVERLAP] > 0.0 || kn[PRISM_KNOB_TP_UB_SMS] > 0.0
                      ? kn[PRISM_KNOB_TP_OVERLAP_BUFFERS] * k->hidden_bytes
                      : 0.0;
    /* persistent TP gather buffers (cost/README.md, "Memory"): whatever the overlap */
    k->gb_bytes = kn[PRISM_KNOB_TP_GATHER_BUFFERS] * k->hidden_bytes;
    k->off_keep = 2.0; /* the layer running and the one in transfer (double buffering) */
    /* the CP ring's backward step: K/V (activation dtype) and dK/dV (the same, or fp32) */
    k->cp_bwd_units = 1.0 + (kn[PRISM_KNOB_CP_DKV_FP32] > 0.5 ? 4.0 / k->bytes_act : 1.0);
    compile_network(cm);
    compile_latency(cm);
}

/* Phase 4: the layer kinds, one per distinct (BLOCK|MTP, spec) and the embedding and
 * heads; returns the head's FLOPs per token. */
static double compile_kinds(PrismCostModel *cm, const PrismModel *model, const KnobView *kvp)
{
    PrismKModel *k = &cm->k;
    const KnobView kv = *kvp;
    /* kinds: one per distinct (BLOCK|MTP, spec) in order of first appearance */
    cm->layer_kind = g_new(uint32_t, model->n_layers);
    uint32_t *kind_of_spec[2] = {g_new(uint32_t, model->n_specs), g_new(uint32_t, model->n_specs)};
    for (uint32_t i = 0; i < model->n_specs; i++)
        kind_of_spec[0][i] = kind_of_spec[1][i] = G_MAXUINT32;
    double head_flops = 0.0;
    for (uint32_t i = 0; i < model->n_layers; i++) {
        const PrismLayer *l = &model->layers[i];
        if (l->kind != PRISM_LAYER_BLOCK && l->kind != PRISM_LAYER_MTP)
            continue;
        const int mtp = l->kind == PRISM_LAYER_MTP;
        uint32_t *slot = &kind_of_spec[mtp][l->spec];
        if (*slot == G_MAXUINT32) {
            const PrismBlockSpec *sp = &model->specs[l->spec];
            g_autofree char *lab = spec_label(sp);
            *slot = add_kind(cm, mtp ? PRISM_KIND_MTP : PRISM_KIND_BLOCK,
                             g_strdup_printf("%s %u (%s)", mtp ? "mtp" : "block", l->spec, lab));
            block_kind(model, sp, mtp, &kv, &cm->kinds[*slot], &cm->kind_model_flops[*slot],
                       &cm->kind_exec_flops[*slot], &cm->kind_core_flops[*slot]);
            if (sp->mlp.n_experts > 0 && cm->kinds[*slot].ep_bytes > k->moe_tok_bytes)
                k->moe_tok_bytes = cm->kinds[*slot].ep_bytes;
        }
        cm->layer_kind[cm->n_split++] = *slot;
    }
    g_free(kind_of_spec[0]);
    g_free(kind_of_spec[1]);
    cm->kind_emb = add_kind(cm, PRISM_KIND_EMBEDDING, g_strdup("embedding"));
    embedding_kind(model, &kv, &cm->kinds[cm->kind_emb]);
    cm->kinds[cm->kind_emb].loads_first = 1.0;
    cm->kind_head = add_kind(cm, PRISM_KIND_HEAD, g_strdup("head"));
    head_kind(model, &kv, TRUE, &cm->kinds[cm->kind_head]);
    cm->kind_head_tied = add_kind(cm, PRISM_KIND_HEAD_TIED, g_strdup("head (tied weights)"));
    head_kind(model, &kv, FALSE, &cm->kinds[cm->kind_head_tied]);
    cm->kinds[cm->kind_head].loads_last = 1.0;
    cm->kinds[cm->kind_head_tied].loads_last = 1.0;
    head_flops = 2.0 * (double)model->hidden * (double)model->vocab;
    cm->kind_model_flops[cm->kind_head] = head_flops;
    cm->kind_model_flops[cm->kind_head_tied] = head_flops;
    cm->kind_exec_flops[cm->kind_head] = head_flops;
    cm->kind_exec_flops[cm->kind_head_tied] = head_flops;
    cm->exec_core = kv.exec_core;
    return head_flops;
}

/* Phase 5: which GEMMs an FP8 recipe runs in FP8 (fp8_scope), the weight copies it keeps,
 * and whether any GEMM pays casts. */
static void compile_fp8(PrismCostModel *cm, const PrismTraining *training)
{
    const double *kn = cm->knobs.v;
    const PrismDtype dt = training->dtype;
    PrismKModel *k = &cm->k;
    /* fp8_scope: which linear GEMMs an FP8 recipe runs in FP8 (cost/README.md, "FP8 as the
     * stacks run it"); 1 keeps the routed experts' grouped GEMMs in BF16, 2 everything but
     * them. BF16/FP16/FP32 training has no FP8 GEMM to move. */
    const double scope = kn[PRISM_KNOB_FP8_SCOPE];
    if (prism_dtype_is_fp8(dt) && scope > 0.5) {
        const double keep_ep = scope < 1.5 ? 0.0 : 1.0; /* the GEMMs that stay FP8 */
        for (uint32_t q = 0; q < cm->n_kinds; q++)
            for (uint32_t j = 0; j < cm->kinds[q].n_gemm; j++) {
                PrismKGemm *g = &cm->kinds[q].gemm[j];
                if (g->low > 0.5 && (g->ep > 0.5 ? 1.0 : 0.0) != keep_ep)
                    g->low = 0.0;
            }
    }
    /* delayed scaling's FP8 weight copies (compile_compute) only for the parameters whose
     * GEMMs run in FP8: the experts' relative to the others' (1: the same bytes) */
    if (dt == PRISM_DTYPE_FP8 && scope > 0.5) {
        const double dense = scope < 1.5 ? k->bytes_param_mem : k->bytes_param;
        const double expert = scope < 1.5 ? k->bytes_param : k->bytes_param_mem;
        k->bytes_param_mem = dense;
        k->exp_param_mem_rel = expert / dense;
    }
    k->kinds = cm->kinds;
    k->n_kinds = cm->n_kinds;
    /* some GEMM pays FP8 casts (else every PRISM_KG_CAST entry is exactly +0: the kernel
     * then leaves them out of its copy of the table) */
    k->has_cast = 0.0;
    for (uint32_t q = 0; q < cm->n_kinds; q++)
        for (uint32_t j = 0; j < cm->kinds[q].n_gemm; j++)
            if (cm->kinds[q].gemm[j].low > 0.5 && k->cast_x + k->cast_w > 0.0)
                k->has_cast = 1.0;
}

/* Phase 6: the model and executed FLOPs per step. */
static void compile_step_flops(PrismCostModel *cm, double head_flops)
{
    PrismKModel *k = &cm->k;
    double per_token = head_flops, exec_token = head_flops;
    for (uint32_t i = 0; i < cm->n_split; i++) {
        per_token += cm->kind_model_flops[cm->layer_kind[i]];
        exec_token += cm->kind_exec_flops[cm->layer_kind[i]];
    }
    k->model_flops_step = k->gbs * k->seq * (1.0 + k->bwd_ratio) * per_token;
    k->exec_flops_step = k->gbs * k->seq * (1.0 + k->bwd_ratio) * exec_token;
}

PrismCostModel *prism_cost_model_new(const PrismModel *model, const PrismCluster *cluster,
                                     const PrismTraining *training, const PrismKnobs *knobs,
                                     GError **error)
{
    g_return_val_if_fail(model != NULL && cluster != NULL && training != NULL, NULL);
    if (!check_inputs(model, cluster, training, error))
        return NULL;
    const double peak = cluster->peak_flops[training->dtype];
    PrismCostModel *cm = g_new0(PrismCostModel, 1);
    cm->model = prism_model_copy(model);
    cm->cluster = prism_cluster_copy(cluster);
    cm->training = *training;
    if (knobs != NULL)
        cm->knobs = *knobs;
    else
        prism_knobs_default(&cm->knobs);
    const KnobView kv = knob_view(cm, training);
    compile_scalars(cm, model, cluster, training, &kv, peak);
    const double head_flops = compile_kinds(cm, model, &kv);
    compile_fp8(cm, training);
    compile_step_flops(cm, head_flops);
    return cm;
}

void prism_cost_model_free(PrismCostModel *cm)
{
    if (cm == NULL)
        return;
    prism_model_free(cm->model);
    prism_cluster_free(cm->cluster);
    for (uint32_t i = 0; i < cm->n_kinds; i++)
        g_free(cm->kind_name[i]);
    g_free(cm->kind_name);
    g_free(cm->kinds);
    g_free(cm->kind_role);
    g_free(cm->kind_model_flops);
    g_free(cm->kind_exec_flops);
    g_free(cm->kind_core_flops);
    g_free(cm->layer_kind);
    g_free(cm);
}

const PrismModel *prism_cost_model_model(const PrismCostModel *cm)
{
    return cm->model;
}

const PrismCluster *prism_cost_model_cluster(const PrismCostModel *cm)
{
    return cm->cluster;
}

const PrismTraining *prism_cost_model_training(const PrismCostModel *cm)
{
    return &cm->training;
}

const PrismKnobs *prism_cost_model_knobs(const PrismCostModel *cm)
{
    return &cm->knobs;
}

double prism_cost_model_flops_per_step(const PrismCostModel *cm)
{
    return cm->k.model_flops_step;
}

double prism_cost_model_peak_flops(const PrismCostModel *cm)
{
    return cm->k.peak_flops;
}

double prism_cost_model_tokens_per_step(const PrismCostModel *cm)
{
    return cm->k.gbs * cm->k.seq; /* as the kernel forms it for tokens_per_s */
}

double prism_cost_model_budget(const PrismCostModel *cm)
{
    return cm->training.mem_budget_bytes > 0 ? cm->training.mem_budget_bytes
                                             : cm->cluster->mem_bytes;
}

double prism_cost_model_usable(const PrismCostModel *cm)
{
    return cm->k.budget;
}

double prism_cost_model_host_budget(const PrismCostModel *cm)
{
    return cm->k.host_budget;
}

void prism_cost_gemm_shape_internal(const PrismCostModel *cm, uint32_t kind, uint32_t q, double tp,
                                    double cp, double mbs, double ep, double etp,
                                    PrismGemmShape *out)
{
    const PrismKModel *k = &cm->k;
    const PrismKKind *K = &cm->kinds[kind];
    const PrismKGemm *G = &K->gemm[q];
    const double it = 1.0 / tp;
    const double kvs = tp <= K->g ? it : K->inv_g;
    const double T = mbs * k->seq / cp; /* the kernel's tokens per micro-batch */
    /* Routed experts (G->ep): the t*c*d devices of a stage hold E/ep experts each, every
     * expert cut etp ways; the tokens routed to a device's experts are its etp*ep group's
     * T/t x top_k x cf tokens per device over E/ep experts, gathered over etp, so one
     * local expert sees M = T x (top_k cf / E) x ep x etp / tp rows (m_tok = top_k cf/E)
     * with widths n_tp/etp. Tied (etp = tp): T x top_k x cf x ep / E. */
    const gboolean ex = G->ep > 0.5;
    const double iw = ex ? 1.0 / etp : it;
    out->M = ex ? T * G->m_tok * ep * etp * it : T * G->m_tok;
    out->count = G->count * (ex ? 1.0 / ep : 1.0);
    out->N = G->n_tp * iw + G->n_kv * kvs + G->n_rep;
    out->K = G->k_tp * iw + G->k_rep;
    out->inv_rate = G->low > 0.5 ? k->inv_rate : k->inv_rate_bf16;
    /* the routed experts' grouped launch at the framework's grouped-GEMM rate
     * (grouped_gemm_ratio: 1 = the dense large-GEMM rate) */
    if (ex)
        out->inv_rate /= cm->knobs.v[PRISM_KNOB_GROUPED_GEMM_RATIO];
    out->in_bytes = G->low > 0.5 ? k->low_in_bytes : 2.0;
    out->peak = G->low > 0.5 ? cm->cluster->peak_flops[cm->training.dtype] : k->peak_flops;
}

void prism_cost_gemm_entry_internal(const PrismCostModel *cm, double tp, double cp, double mbs,
                                    double ep, double etp, double *out)
{
    const PrismKModel *k = &cm->k;
    for (uint32_t kind = 0; kind < cm->n_kinds; kind++) {
        const PrismKKind *K = &cm->kinds[kind];
        double *o = out + (size_t)kind * PRISM_KG_COUNT;
        for (int j = 0; j < PRISM_KG_COUNT; j++)
            o[j] = 0.0;
        for (uint32_t q = 0; q < K->n_gemm; q++) {
            PrismGemmShape g;
            prism_cost_gemm_shape_internal(cm, kind, q, tp, cp, mbs, ep, etp, &g);
            double f, d, w;
            prism_k_gemm_linear(&k->gdev, g.M, g.N, g.K, g.count, g.inv_rate, g.in_bytes, 2.0, &f,
                                &d, &w);
            o[PRISM_KG_FWD] += f;
            o[PRISM_KG_DGRAD] += d;
            o[PRISM_KG_WGRAD] += w;
            /* FP8 recipes: cast (+ transpose, amax) the input and the weight in forward,
             * the output gradient in backward; HBM-bound */
            const double low = K->gemm[q].low;
            o[PRISM_KG_CAST] +=
                low * (k->cast_x * g.M * g.K + k->cast_w * g.K * g.N) * g.count * k->inv_hbm;
            o[PRISM_KG_CAST_BWD] += low * k->cast_x * g.M * g.N * g.count * k->inv_hbm;
            if (K->gemm[q].shared > 0.5) {
                o[PRISM_KG_SHARED_FWD] += f;
                o[PRISM_KG_SHARED_BWD] += d + w;
            }
        }
    }
}
