/*
 * fwconfig.h - a strategy as a training framework's own configuration, and back.
 *
 * prism prices a strategy (strategy.h) with a batch, a sequence and a precision
 * (training.h). The frameworks that run it spell the same choices in their own
 * configuration, each at a named version:
 *   megatron    Megatron-LM command-line arguments (megatron/training/arguments.py of the
 *               tree that ships Megatron-Core 0.14; vpp as --num-virtual-stages-per-
 *               pipeline-rank, the model chunks per pipeline rank)
 *   nemo        Megatron-Bridge recipe overrides, Hydra/OmegaConf "group.field=value" on a
 *               recipe script's command line (the fields of Megatron-Core's
 *               ModelParallelConfig/TransformerConfig under model., of the DDP and optimizer
 *               configs under ddp. and optimizer., train. for the batch)
 *   torchtitan  a torchtitan job TOML (torchtitan/config/job_config.py, 2025)
 *   deepspeed   a Megatron-DeepSpeed launch script: a ds_config.json (DeepSpeed
 *               deepspeed/runtime/constants.py and zero/config.py) written by a here-document,
 *               then the Megatron-DeepSpeed parallel arguments
 *   nanotron    a nanotron YAML config (src/nanotron/config/config.py and
 *               parallelism_config.py, 2025)
 * prism_fwconfig_emit() writes one; prism_fwconfig_read() reads any of them (the format is
 * told from the file) back into a strategy and training setup, lists the keys prism does
 * not model, and refuses contradictions. For every strategy a target can run, emit then
 * read gives back the identical strategy, batch, sequence and precision (the tests check
 * it on random strategies). What a target cannot express (a schedule it lacks, ZeRO-1 in
 * FSDP2, ...) is refused with the reason. Nothing here is collective.
 */
#ifndef PRISM_FWCONFIG_H
#define PRISM_FWCONFIG_H

#include <glib.h>

#include <prism/model.h>
#include <prism/strategy.h>
#include <prism/training.h>

G_BEGIN_DECLS

typedef enum {
    PRISM_FWC_MEGATRON = 0,
    PRISM_FWC_NEMO = 1,
    PRISM_FWC_TORCHTITAN = 2,
    PRISM_FWC_DEEPSPEED = 3,
    PRISM_FWC_NANOTRON = 4,
    PRISM_FWC_COUNT = 5,
} PrismFwTarget;

/** Static names: "megatron", "nemo", "torchtitan", "deepspeed", "nanotron". */
const char *prism_fw_target_name(PrismFwTarget t);
/** The framework version the target's names follow, one line (static). */
const char *prism_fw_target_version(PrismFwTarget t);
/** The framework profile (cost/frameworks/NAME.ini) whose conventions the target runs,
 *  NULL when there is none. */
const char *prism_fw_target_profile(PrismFwTarget t);
/** Parse a target name (also "megatron-lm", "megatron-core", "megatron-bridge",
 *  "megatron-deepspeed"). Errors: PRISM_INPUT_ERROR_UNKNOWN_NAME naming the allowed. */
gboolean prism_fw_target_parse(const char *text, PrismFwTarget *out, GError **error);

/**
 * The one refusal of every target: PRISM_INPUT_ERROR_UNSUPPORTED, "--emit T: T cannot run
 * this strategy: @p why". Returns FALSE.
 */
gboolean prism_fw_refuse(GError **error, PrismFwTarget t, const char *why);

/**
 * Strategy @p s (already valid for @p model and @p training) as target @p t's
 * configuration text, with comments naming the framework version and the strategy.
 * What the target's framework does not run is its profile's to say
 * (prism_fw_target_profile(), [planning]): the caller refuses that first, as --emit does
 * (prism_space_framework_unsupported()); this refuses what the profile admits but the
 * target's settings cannot spell. Errors: PRISM_INPUT_ERROR_UNSUPPORTED with the reason
 * (prism_fw_refuse()). Ownership: g_free().
 */
char *prism_fwconfig_emit(PrismFwTarget t, const PrismStrategy *s, const PrismTraining *training,
                          const PrismModel *model, GError **error);

/**
 * prism_fwconfig_emit() with an explicit split of the layers over the pipeline: @p
 * chunk_layers holds s->pp * s->vpp counts of split layers (blocks + MTP, in model order),
 * chunk c of stage s at [c * pp + s] as cost.h's PrismLayout; NULL = the default split
 * (even, the remainder one each on chunks 1, 2, ...: prism_layout_default). Megatron-LM
 * and Megatron-Bridge spell an uneven split as the first and last stages' layer counts
 * (the middle stages equal, every virtual stage alike) or as one layer fewer on the first
 * and/or last chunk (the embedding and loss counted as layers) where these build it, and
 * any other split as Megatron-Core's pipeline_model_parallel_layout string (Megatron-Core
 * 0.13 and later); only a split that leaves the MTP layers over several chunks or outside
 * the last virtual stage is refused; torchtitan writes any split as its split points;
 * DeepSpeed and nanotron refuse a split other than the default one. Errors: as
 * prism_fwconfig_emit().
 */
char *prism_fwconfig_emit_layout(PrismFwTarget t, const PrismStrategy *s,
                                 const uint32_t *chunk_layers, const PrismTraining *training,
                                 const PrismModel *model, GError **error);

/**
 * The default split's layers of chunk @p j of @p chunks over @p layers split layers:
 * floor(layers / chunks), one more on chunks 1 .. layers mod chunks (prism_layout_default,
 * torchtitan's generate_split_points).
 */
uint32_t prism_fw_chunk_layers(uint32_t layers, uint32_t chunks, uint32_t j);

/** A configuration read back. */
typedef struct PrismRunConfig {
    PrismFwTarget target;
    PrismStrategy strategy;
    PrismTraining training; /**< the caller's, with the file's batch, sequence, dtype */
    GPtrArray *ignored;     /**< keys the file states that prism does not model (char *) */
    /** the file's split of the layers over the pipeline when it is not the default one:
     *  strategy.pp * strategy.vpp counts as prism_fwconfig_emit_layout() takes them;
     *  NULL = the default split */
    uint32_t *chunk_layers;
} PrismRunConfig;

/**
 * Read a configuration from @p len bytes of @p data (need not be NUL-terminated), named
 * @p path in messages. @p devices is the device count when the file does not fix it (a
 * Megatron argument list without torchrun's --nnodes/--nproc-per-node); @p training the
 * batch, sequence and dtype the file does not state; @p model the model whose shape the
 * file's shape keys must match. Errors (each naming the file, key and value and what is
 * allowed): PRISM_INPUT_ERROR_UNKNOWN_NAME (not a configuration of any target),
 * _PARSE (malformed TOML/JSON/YAML, a bad number), _CONFLICT (keys that contradict each
 * other or the model), _SHAPE (a strategy rule of strategy.h broken), _UNSUPPORTED (a
 * setting prism cannot price). Ownership: prism_run_config_free().
 */
PrismRunConfig *prism_fwconfig_from_data(const char *data, size_t len, const char *path,
                                         uint32_t devices, const PrismTraining *training,
                                         const PrismModel *model, GError **error);
/** The same from the file @p path (PRISM_INPUT_ERROR_FILE when it cannot be read). */
PrismRunConfig *prism_fwconfig_read(const char *path, uint32_t devices,
                                    const PrismTraining *training, const PrismModel *model,
                                    GError **error);
void prism_run_config_free(PrismRunConfig *c);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismRunConfig, prism_run_config_free)

G_END_DECLS

#endif /* PRISM_FWCONFIG_H */
