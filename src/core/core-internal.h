/*
 * core-internal.h - helpers shared by the files of src/core (not public API).
 *
 * PrismModelDesc is the flat description of a decoder/encoder transformer that both
 * the zoo (model_zoo.c) and the Hugging Face reader (model_hf.c) fill in;
 * prism_model_build_internal() turns it into the layer-sequence IR. Nothing of that is
 * collective. The comm part (core_comm.c and core_reduce.c) shares the debug check of
 * the collective wrappers and an unchecked chunked broadcast; both are collective.
 */
#ifndef PRISM_CORE_INTERNAL_H
#define PRISM_CORE_INTERNAL_H

#include <stdint.h>

#include <glib.h>

#include <prism/comm.h>
#include <prism/model.h>

G_BEGIN_DECLS

/*
 * One transformer as a handful of numbers. Block i (0-based) is an MoE block when
 *   n_experts > 0 && i >= first_dense && (i + moe_phase) % moe_step == 0
 *   && !(dense_mask && dense_mask[i])
 * (DeepSeek: first_k_dense_replace, moe_layer_freq, phase 0; Qwen-MoE:
 * decoder_sparse_step with phase 1 and mlp_only_layers as the mask; Llama 4:
 * interleave_moe_layer_step with phase 1), else dense with width ffn. Block i attends
 * over a sliding window of `window` tokens when
 *   window > 0 && (window_mask ? window_mask[i] : i % window_step == 0)
 * (gpt-oss: step 2, the even blocks; Mistral: step 1), else over the full sequence.
 * MTP blocks (DeepSeek-V3) use the MoE spec when the model has experts, full attention.
 */
typedef struct PrismModelDesc {
    const char *name;
    const char *family;
    uint32_t n_blocks;
    uint64_t hidden;
    uint64_t vocab;
    uint64_t max_positions;
    PrismPosKind pos;
    PrismNormKind norm; /* block norms and the final norm */
    gboolean tied;
    gboolean head_bias;
    PrismAttnSpec attn;
    PrismMlpAct act;
    gboolean mlp_bias;
    uint64_t ffn; /* dense blocks */
    uint32_t n_experts;
    uint32_t top_k;
    uint32_t n_shared;
    uint64_t expert_ffn;
    uint64_t shared_ffn; /* width of ONE shared expert; 0 = expert_ffn */
    gboolean router_bias;
    gboolean shared_gate;
    uint32_t first_dense;
    uint32_t moe_step; /* 0 is read as 1 */
    uint32_t moe_phase;
    const gboolean *dense_mask;  /* NULL or n_blocks entries */
    uint32_t window;             /* sliding window in tokens; 0 = none */
    uint32_t window_step;        /* 0 is read as 1 */
    const gboolean *window_mask; /* NULL or n_blocks entries */
    uint32_t n_mtp;
    double published_params;
    /* hybrid models. pattern: NULL, or n_blocks characters (Nemotron-H's
     * hybrid_override_pattern), block i holding only the part its character names:
     * 'M' a Mamba-2 mixer (ssm), '*' attention (attn), '-' a dense MLP (act, ffn), 'E' a
     * MoE MLP (the expert fields). linear_mask: NULL, or n_blocks entries, TRUE where
     * block i's mixer is ssm_mixer instead of attention (Qwen3-Next's "linear_attention"
     * layers; the MLP as above). */
    const char *pattern;
    const gboolean *linear_mask;
    PrismMixerKind ssm_mixer;
    PrismSsmSpec ssm;
} PrismModelDesc;

/*
 * Build and validate the IR of @p d. Ownership: caller frees with prism_model_free().
 * Errors: PRISM_INPUT_ERROR_VALUE from prism_model_validate().
 */
PrismModel *prism_model_build_internal(const PrismModelDesc *d, GError **error);

/* TRUE when block @p i of @p d is an MoE block (rule above). */
gboolean prism_model_desc_is_moe_internal(const PrismModelDesc *d, uint32_t i);

/* The attention window of block @p i of @p d (rule above; 0 = full attention). */
uint32_t prism_model_desc_window_internal(const PrismModelDesc *d, uint32_t i);

/* The collective wrappers of comm.h, as seen by the PRISM_COMM_DEBUG check. */
typedef enum {
    PRISM_COMM_SITE_AGREE = 1,
    PRISM_COMM_SITE_AGREE_ERROR,
    PRISM_COMM_SITE_ALLREDUCE_U64,
    PRISM_COMM_SITE_ALLREDUCE_F64,
    PRISM_COMM_SITE_EXSCAN_U64,
    PRISM_COMM_SITE_BCAST_BYTES,
    PRISM_COMM_SITE_BCAST_BLOB,
    PRISM_COMM_SITE_BARRIER,
    PRISM_COMM_SITE_REDUCE_ORDERED,
    PRISM_COMM_SITE_OR_IDLE,
} PrismCommSite;

/*
 * With comm->debug, check that every rank entered the same wrapper @p site with the same
 * @p arg (root, op code, tag) and @p count: one MPI_Allreduce(MAX) of (v, -v), and on a
 * mismatch an MPI_Allgather so that the message lists what each rank called. Without
 * comm->debug it returns TRUE at once. Collective (when debug). Errors:
 * PRISM_RUNTIME_ERROR_INTERNAL (mismatch), PRISM_RUNTIME_ERROR_MPI.
 */
gboolean prism_comm_check_internal(PrismComm *comm, PrismCommSite site, int64_t arg, int64_t count,
                                   GError **error);

/* The largest count of one MPI call on @p comm: comm->max_count, at most INT_MAX. */
size_t prism_comm_chunk_internal(const PrismComm *comm);

/* prism_comm_bcast_bytes() without the debug check, in chunks of comm->max_count. */
gboolean prism_comm_bcast_bytes_internal(PrismComm *comm, void *buf, size_t n, int root,
                                         GError **error);

G_END_DECLS

#endif /* PRISM_CORE_INTERNAL_H */
