/*
 * framework.h - framework profiles: what a training framework does by default, as data.
 *
 * A profile is a GLib key file NAME.ini in a frameworks folder (cost/frameworks/ in the
 * source tree; the build copies it next to the binary). It holds
 *   [profile]   title, source (where the values come from)
 *   [knobs]     any `prism knobs` name = value (overlap features, flash attention, ...)
 *   [memory]    the framework's memory conventions: grad_fp32 (an fp32 gradient buffer),
 *               optimizer (adam: fp32 master copy + two fp32 moments), context_bytes
 *               (the CUDA context outside the allocator: the cuda_context knob),
 *               allocator_reserve (the knob: reserved / allocated - 1 of the caching
 *               allocator without expandable segments) and
 *               counts (what its logged "memory" counts: allocated, reserved, or device =
 *               nvidia-smi, reserved plus the CUDA context)
 *   [defaults]  the framework's value for a dim a user may leave unstated: micro_batch
 *               (N, "local" = the whole local batch, or "plan"), pp_microbatches ("stages"
 *               = m defaults to pp when micro_batch is not given and pp > 1), recompute,
 *               vpp, zero_stage, sp (1 = on whenever tp > 1), schedule, dtype; "plan" (or
 *               no key) = no default: the planner picks it
 *   [planning]  only (what the framework supports, an --only text: plan and sweep
 *               search within it, validate plans within it), uniform_chunks (pp*vpp must
 *               divide the layers: space.h prism_space_filter_set_uniform_chunks),
 *               overlap (the communication-overlap options the framework can turn off:
 *               a list of tp, dp, param; default none) and overlap_search (the subset
 *               `prism plan` searches without a filter naming the dim; the rest only with
 *               --only/--range/--fix; space.h prism_space_filter_set_overlap),
 *               sequence_parallel ("always": the framework has no switch, sp = 1 wherever
 *               tp > 1; "optional", the default: searched) and recompute_layers
 *               ("first_k", the default: recompute=block:k on any k; "every_nth": only the
 *               k that checkpointing every N-th layer gives, strategy.h
 *               prism_recompute_every_nth) and context_parallel_sharding ("always": the
 *               framework shards parameters over the data and context ranks whenever cp > 1,
 *               so zero 0 with cp > 1 is not run; "optional", the default)
 *   [model]     architecture (gpt or llama) and tied_embeddings, for measurement rows
 *               that give only a shape
 * Every value cites its source in a comment in the file. Unknown groups or keys, bad
 * values and missing files are refused (PRISM_INPUT_ERROR_*, naming file, group, key and
 * value). Nothing here is collective.
 */
#ifndef PRISM_FRAMEWORK_H
#define PRISM_FRAMEWORK_H

#include <glib.h>

#include <prism/cluster.h>
#include <prism/knobs.h>
#include <prism/training.h>

G_BEGIN_DECLS

/** What a framework's logged "memory" counts. */
typedef enum {
    PRISM_MEM_ALLOCATED = 0, /**< torch.cuda.max_memory_allocated: tensors only */
    PRISM_MEM_RESERVED = 1,  /**< torch.cuda.max_memory_reserved: + allocator cache */
    PRISM_MEM_DEVICE = 2,    /**< nvidia-smi: reserved + CUDA context */
    PRISM_MEM_COUNTS_COUNT
} PrismMemCounts;

/** Dims a profile can give a default for. */
typedef enum {
    PRISM_FW_MICRO_BATCH = 0,
    PRISM_FW_RECOMPUTE,
    PRISM_FW_VPP,
    PRISM_FW_ZERO,
    PRISM_FW_SP,
    PRISM_FW_SCHEDULE,
    PRISM_FW_DIM_COUNT
} PrismFrameworkDim;

#define PRISM_FW_NONE (-1)      /**< no default: planned */
#define PRISM_FW_MBS_LOCAL (-2) /**< micro_batch = local: gbs / dp (no accumulation) */

/** A profile's knobs for one device family: its [knobs.FAMILY] group, laid over [knobs]
 *  when the run's cluster is of that family (prism_device_family(), case-insensitive): the
 *  framework runs another kernel there (cuDNN attention on Blackwell, for instance). */
typedef struct PrismFrameworkDevice {
    char *family; /**< as written in the group name ("B200") */
    PrismKnobs knobs;
    gboolean knob_set[PRISM_KNOB_COUNT];
} PrismFrameworkDevice;

typedef struct PrismFramework {
    char *name;  /**< file name without .ini */
    char *path;  /**< the file read */
    char *title; /**< [profile] title */
    char *source;
    PrismKnobs knobs;                    /**< knob defaults with the profile's applied */
    gboolean knob_set[PRISM_KNOB_COUNT]; /**< set by the profile ([knobs] or [memory]) */
    PrismOptimizer optimizer;
    PrismMemCounts counts;
    int def[PRISM_FW_DIM_COUNT];     /**< PRISM_FW_NONE, a value, or PRISM_FW_MBS_LOCAL */
    gboolean pp_microbatches_stages; /**< m = pp when micro_batch is unstated, pp > 1 */
    gboolean has_dtype;
    PrismDtype dtype;
    char *only; /**< [planning] only, NULL = everything */
    gboolean uniform_chunks;
    gboolean split_by_cost; /**< [planning] pipeline_split = cost: blocks split by the cost estimate
                               nanotron's build_model uses (prism_layout_nanotron(), the one
                               framework that splits so); validate only */
    gboolean sp_always;     /**< [planning] sequence_parallel = always */
    gboolean rc_every_nth;  /**< [planning] recompute_layers = every_nth */
    gboolean cp_shards;     /**< [planning] context_parallel_sharding = always */
    unsigned overlap;       /**< [planning] overlap: PrismOverlap bits that can be off */
    unsigned overlap_search;   /**< [planning] overlap_search: the subset searched by default */
    gboolean llama;            /**< [model] architecture = llama (else gpt) */
    int tied_embeddings;       /**< 1, 0, or -1 = not stated (gpt: tied, llama: untied) */
    PrismFrameworkDevice *dev; /**< [knobs.FAMILY] groups, file order */
    unsigned n_dev;
} PrismFramework;

/**
 * Load a profile file. Not collective. Errors: PRISM_INPUT_ERROR_FILE (missing),
 * _PARSE (syntax, duplicate key), _UNKNOWN_NAME (unknown group or key), _VALUE (bad
 * value), each naming the file, group, key and value. Ownership: prism_framework_free().
 */
PrismFramework *prism_framework_load(const char *path, GError **error);
/** The same from @p len bytes of @p data (not NUL-terminated), as if read from @p path,
 *  which names the profile and its messages. Not collective. */
PrismFramework *prism_framework_from_data(const char *data, size_t len, const char *path,
                                          GError **error);

/**
 * A profile by name (NAME.ini in the frameworks folders, see prism_framework_dirs(); else
 * the profile whose name is loosely NAME, prism_name_lookup: "Megatron_Core") or by path
 * (a name holding '/' or ending in ".ini"). Not collective.
 * Errors: as prism_framework_load(); PRISM_INPUT_ERROR_UNKNOWN_NAME with the names
 * available. Ownership: prism_framework_free().
 */
PrismFramework *prism_framework_resolve(const char *name_or_path, GError **error);
void prism_framework_free(PrismFramework *fw);

/**
 * The folders searched for profiles, first match wins: $PRISM_FRAMEWORKS_DIR when set,
 * <bindir>/frameworks, <bindir>/../share/prism/frameworks, then the source tree's
 * cost/frameworks (compile-time fallback). Only existing folders are returned.
 * Ownership: g_strfreev().
 */
char **prism_framework_dirs(void);

/**
 * The folders searched for the shipped validation data (the measured*.csv files of
 * published runs `prism validate` reads, whose first two the track record of plan and
 * explain summarises, and the cluster files of their sources), in the same order:
 * $PRISM_VALIDATION_DIR, <bindir>/validation, <bindir>/../share/prism/validation, then the
 * source tree's cost/validation/. Only existing folders. Ownership: g_strfreev().
 */
char **prism_validation_dirs(void);
/** Path of @p basename ("measured.csv") in the first validation folder holding it, NULL
 *  when none does. Ownership: g_free(). */
char *prism_validation_data_file(const char *basename);

/** The profile names found (sorted, unique; sources.ini is not a profile).
 *  Ownership: g_strfreev(). */
char **prism_framework_names(void);

/** Path of data file @p basename (e.g. "sources.ini") in the first folder holding it.
 *  Errors: PRISM_INPUT_ERROR_FILE naming the folders searched. Ownership: g_free(). */
char *prism_framework_data_file(const char *basename, GError **error);

/** Copy the knobs the profile sets into @p knobs (the others keep their value), then those
 *  of its [knobs.FAMILY] group for @p cluster_name's family (NULL: none), and its optimizer
 *  into @p training (NULL: not). Not collective. */
void prism_framework_apply(const PrismFramework *fw, const char *cluster_name, PrismKnobs *knobs,
                           PrismTraining *training);
/** The [knobs.FAMILY] group for @p cluster_name's device family, or NULL. */
const PrismFrameworkDevice *prism_framework_device(const PrismFramework *fw,
                                                   const char *cluster_name);
/** TRUE when the profile sets knob @p id on @p cluster_name's devices: in [knobs] or in
 *  that family's [knobs.FAMILY] group (NULL cluster: [knobs] only). */
gboolean prism_framework_knob_given(const PrismFramework *fw, const char *cluster_name,
                                    PrismKnobId id);

/** Static names: "allocated", "reserved", "device"; the dims' key names. */
const char *prism_mem_counts_name(PrismMemCounts c);

/**
 * What a memory figure counts, from its name as prism_mem_counts_name() gives it (exact:
 * "allocated", "reserved" or "device"): the one parser of a validation CSV's mem_kind
 * column, `prism validate --mem-kind`, a profile's [memory] counts and a source's counts in
 * sources.ini. Errors: PRISM_INPUT_ERROR_VALUE "'TEXT' is not allowed (allocated, reserved or
 * device (nvidia-smi))"; the caller prefixes where TEXT stood (file, line, key). Pure.
 */
gboolean prism_mem_counts_parse(const char *text, PrismMemCounts *out, GError **error);
const char *prism_framework_dim_name(PrismFrameworkDim d);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismFramework, prism_framework_free)

G_END_DECLS

#endif /* PRISM_FRAMEWORK_H */
