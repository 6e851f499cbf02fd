/*
 * app-internal.h - the CLI: subcommand table, shared options, input loading.
 *
 * Every subcommand is a function `gboolean run(PrismComm *comm, int argc, char **argv,
 * GError **error)` in its own file cmd_<name>.c. It parses its options with GOption
 * (the shared ones come from prism_app_add_common_options(), so they are spelled the
 * same everywhere), prints only on rank 0, and returns FALSE with a GError on failure.
 * prism_app_main() maps PRISM_INPUT_ERROR to exit status 2 and anything else to 1.
 * All ranks run the same command with the same argv; commands are collective on comm.
 */
#ifndef PRISM_APP_INTERNAL_H
#define PRISM_APP_INTERNAL_H

#include <signal.h>
#include <stdio.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include <prism/comm.h>
#include <prism/core.h>
#include <prism/cluster.h>
#include <prism/cost.h>
#include <prism/diagnose.h>
#include <prism/explain.h>
#include <prism/framework.h>
#include <prism/knobs.h>
#include <prism/model.h>
#include <prism/ranges.h>
#include <prism/search.h>
#include <prism/space.h>
#include <prism/training.h>
#include <prism/validate.h>

G_BEGIN_DECLS

typedef gboolean (*PrismCmdFn)(PrismComm *comm, int argc, char **argv, GError **error);

typedef struct PrismAppCommand {
    const char *name;
    const char *summary;
    PrismCmdFn run;
    gboolean stops; /* polls the SIGINT/SIGTERM flag (prism_app_stop_catch) */
    gboolean mpi;   /* needs MPI also when no launcher started prism: HDF5 landscape files */
} PrismAppCommand;

/** Which shared options a command takes (bit flags). */
enum {
    PRISM_OPT_MODEL = 1u << 0,     /* --model */
    PRISM_OPT_CLUSTER = 1u << 1,   /* --cluster, --devices */
    PRISM_OPT_TRAINING = 1u << 2,  /* --gbs --seq --dtype --optimizer --mem-budget */
    PRISM_OPT_KNOBS = 1u << 3,     /* --set --knobs */
    PRISM_OPT_JSON = 1u << 4,      /* --json */
    PRISM_OPT_OUTPUT = 1u << 5,    /* -o/--output --force */
    PRISM_OPT_ISA = 1u << 6,       /* --isa */
    PRISM_OPT_FRAMEWORK = 1u << 7, /* --framework */
    PRISM_OPT_ALL_INPUTS = PRISM_OPT_MODEL | PRISM_OPT_CLUSTER | PRISM_OPT_TRAINING |
                           PRISM_OPT_KNOBS | PRISM_OPT_ISA | PRISM_OPT_FRAMEWORK,
};

/** Raw values of the shared options, as GOption fills them. */
typedef struct PrismCommonOptions {
    unsigned flags;
    char *model;
    char *cluster;
    char *devices; /* "1024", "64,128,256" or "64:1024" (powers of two) or "64:1024:64" */
    gint64 gbs;    /* 0 = default */
    gint64 seq;
    char *dtype;
    char *optimizer;
    double mem_budget_gib; /* 0 = device memory */
    char **set;            /* repeatable name=value */
    char *knobs_file;
    gboolean json;
    char *output;
    gboolean force;
    char *isa;
    char *framework; /* --framework NAME|FILE */
    /* Set by prism_app_add_common_options(): gbs/seq/mem_budget_gib start at the
     * PRISM_OPT_UNSET_* values below, so an explicit 0 is caught as an error. Without it
     * (a zero-initialised struct), 0 means "use the default". */
    gboolean unset_markers;
} PrismCommonOptions;

#define PRISM_OPT_UNSET_INT G_MININT64
#define PRISM_OPT_UNSET_DOUBLE (-G_MAXDOUBLE)

/** Loaded and validated inputs. Free with prism_inputs_clear(). */
typedef struct PrismInputs {
    PrismModel *model;
    PrismCluster *cluster;
    PrismTraining training;
    PrismKnobs knobs;
    PrismKnobOverrides user_knobs; /* --knobs/--set only (no profile), marked: what the
                              track record lays over each published run's own profile */
    uint32_t *devices;             /* sorted ascending, unique */
    size_t n_devices;
    gboolean defaults_used;    /* no model/cluster/devices given: the documented example */
    PrismFramework *framework; /* --framework, applied before --knobs/--set; NULL = none */
} PrismInputs;

/* The search options `prism plan` and `prism sweep` share (app_search.c). */

#define PRISM_APP_TOP_MAX 1000
#define PRISM_APP_TOP_UNSET G_MININT /* --top not given */

/** Raw values of --fix/--range/--only/--objectives/--rank-by/--top/--no-progress. */
typedef struct PrismSearchCli {
    char **fix, **range, **only;
    char *objectives, *rank_by;
    gint top; /* PRISM_APP_TOP_UNSET when not given */
    gboolean no_progress;
} PrismSearchCli;

/** Add the shared search options to @p ctx's main group (and mark --top unset). */
void prism_app_add_search_options(GOptionContext *ctx, PrismSearchCli *o);
/** Free what GOption allocated in @p o. */
void prism_search_cli_clear(PrismSearchCli *o);

/**
 * Add --fix/--range/--only texts (from the command line or a grid file) to @p f; a
 * non-NULL @p where prefixes the error. Not collective. Errors: as space.h's filters.
 */
gboolean prism_app_add_filters(PrismSpaceFilter *f, char **fix, char **range, char **only,
                               const char *where, GError **error);

/** prism_framework_resolve, refusing a profile whose [planning] only does not parse as a
 *  filter (the loader, in cost/, cannot check it: the filter is search/'s), so that every
 *  command (frameworks FILE included) says so when it loads the profile. Not collective. */
PrismFramework *prism_app_framework_resolve(const char *name_or_path, GError **error);

/**
 * Initialise @p opt and set objectives, rank-by and top-k (1..PRISM_APP_TOP_MAX) and the
 * SIGINT/SIGTERM stop hook. The *_from strings name where a value came from in error
 * messages (NULL: the command-line option). Not collective. Errors: PRISM_INPUT_ERROR_*.
 */
gboolean prism_app_search_options(PrismSearchOptions *opt, const char *objectives,
                                  const char *objectives_from, const char *rank_by,
                                  const char *rank_by_from, gint top, const char *top_from,
                                  GError **error);
/* The search's progress line on rank 0's stderr (PrismSearchOptions.progress_fn, which
 * prism_app_search_options installs): after 0.5 s, a live line rewritten with '\r' on a
 * TTY (every 0.25 s), plain lines every 10 s otherwise, then the total and rate. */
void prism_app_progress_line(void *user, PrismProgressPhase phase, const char *label, double done,
                             uint64_t total, double seconds);

/** SIGINT/SIGTERM handlers saved by prism_app_stop_catch(). */
typedef struct PrismStopGuard {
    struct sigaction old_int, old_term;
} PrismStopGuard;

/**
 * While caught, SIGINT/SIGTERM only set a flag that prism_app_stop_requested() (the stop
 * hook prism_app_search_options() installs) reports; the search driver agrees on it at
 * its next round, so every rank stops at the same round. Release restores the handlers.
 */
void prism_app_stop_catch(PrismStopGuard *g);
/**
 * Catch SIGINT/SIGTERM from the start of the process (main calls it first, and again
 * after MPI_Init when it starts MPI): a signal that comes while the process starts up
 * sets the same flag.
 * A command that catches (plan, sweep: prism_app_stop_catch keeps the flag) stops at its
 * first poll; dispatch calls prism_app_stop_early_end() for every other command, which
 * restores the handlers from before and re-raises a signal caught meanwhile.
 */
void prism_app_stop_early(void);
/** Between phases: a caught signal becomes PRISM_RUNTIME_ERROR_INTERRUPTED in @p error
 * (unless it holds an error already); call it before prism_comm_agree_error() so every
 * rank stops at the same point. Returns FALSE when it set the error. Not collective. */
gboolean prism_app_stop_check(GError **error);
void prism_app_stop_early_end(void);
void prism_app_stop_release(PrismStopGuard *g);
gboolean prism_app_stop_requested(void *user);

/** The documented default example (`prism sweep` / `prism plan` with no options). */
#define PRISM_DEFAULT_MODEL "gpt3-175b"
#define PRISM_DEFAULT_CLUSTER "A100-80GB"
#define PRISM_DEFAULT_DEVICES 1024

/** Add the shared options selected by @p o->flags to @p ctx's main group. */
void prism_app_add_common_options(GOptionContext *ctx, PrismCommonOptions *o);
/** Free what GOption allocated in @p o. */
void prism_common_options_clear(PrismCommonOptions *o);

/**
 * Turn the shared options into inputs: resolve the model (zoo name or config.json), the
 * cluster (preset or key file), the device list, training setup and knobs; apply the
 * documented defaults for what is missing. Every rank does this; the result is agreed.
 * Collective: yes. Errors: PRISM_INPUT_ERROR_* naming option, file, key and value.
 */
gboolean prism_app_load_inputs(PrismComm *comm, const PrismCommonOptions *o, PrismInputs *in,
                               GError **error);
void prism_inputs_clear(PrismInputs *in);

/* The --knobs file and --set assignments of @p o as overrides, marked (what `validate`
 * and the track record lay over each run's profile; load_inputs applies them after
 * --framework). Errors: as prism_knobs_set(), exit status 2. */
gboolean prism_app_knob_overrides(const PrismCommonOptions *o, PrismKnobOverrides *out,
                                  GError **error);
/**
 * The usable memory per device, budget (or device memory) minus the mem_margin knob,
 * must be positive. prism_app_load_inputs() checks it; grid sweeps check each point.
 * Not collective. Errors: PRISM_INPUT_ERROR_CONFLICT naming the budget and the knob.
 */
gboolean prism_app_check_budget(const PrismTraining *t, const PrismCluster *c, const PrismKnobs *k,
                                GError **error);

/** Parse a --devices value. Errors name the value and the accepted forms. */
gboolean prism_app_parse_devices(const char *text, uint32_t **out, size_t *n_out, GError **error);

/**
 * Parse argv with @p ctx, turning GOption errors into PRISM_INPUT_ERROR_PARSE.
 * Positional arguments are left in argv (argv[1..argc-1]); the command checks them.
 */
gboolean prism_app_parse(GOptionContext *ctx, int *argc, char ***argv, GError **error);

/**
 * Append @p m as one JSON object to @p b (the `prism models NAME --json` object: summary
 * fields, parameter counts and the layer sequence). Not collective.
 */
void prism_app_model_json(JsonBuilder *b, const PrismModel *m);
/** Append @p c as one JSON object (the `prism clusters NAME --json` object). */
void prism_app_cluster_json(JsonBuilder *b, const PrismCluster *c);

/* `prism explain` (render_explain.c): the data of cost/ (explain.h) as text or JSON. */

/** The explanation of @p ex: text, or the JSON of `prism explain --json`. Not collective.
 *  Ownership: g_free(). */
char *prism_app_explain_render(const PrismExplain *ex, gboolean json);
/** prism_explain_new() of @p s under @p cm (@p layout NULL = the default) and its
 *  rendering. Errors: as prism_explain_new(). Ownership: g_free(). */
char *prism_app_explain(const PrismCostModel *cm, const PrismStrategy *s, const PrismLayout *layout,
                        gboolean json, GError **error);
/** Every dim of @p s (devices, dp, tp, ..., recompute, schedule) as members of an open JSON
 *  object, in the registry's JSON order; codes as names, edp after etp. */
void prism_app_strategy_json(const PrismStrategy *s, JsonBuilder *b);
/**
 * The metric members of `prism explain --json` for one row of columns, into the open
 * object of @p b: memory{the parts, peak_stage, the allocated peak's reserved and device
 * figures (prism_cost_memory_kinds), budget (prism_cost_model_usable), host_budget},
 * time{...}, flops_per_device, bytes_per_level, mfu, hfu, tokens_per_s, feasible, reason.
 * Explain and plan's rows both add them, so their keys cannot drift apart.
 */
void prism_app_metrics_json(const PrismCostModel *cm, const PrismStrategy *s,
                            const double cols[PRISM_COL_COUNT], JsonBuilder *b);

/** The `prism plan --count` report of @p space (render_space.c): per dimension the count of
 *  distinct values and a compact list, then segments, lane tables and the total. Text table,
 *  or JSON {"total":..,"segments":..,"lane_tables":..,"dims":{"tp":{"count":6,"values":[1,
 *  2,...]},...}}. Not collective. Ownership: g_free(). */
char *prism_app_space_describe(const PrismSpace *space, gboolean json);

/* Citations of defaults (core.h "KIND: WHERE"; app_sources.c): `--sources` of knobs,
 * clusters and frameworks. Not collective; print on rank 0. */

/** The --sources option (flag @p on) for @p ctx. */
void prism_app_add_sources_option(GOptionContext *ctx, gboolean *on);
/** One value and its citation @p source ("KIND: WHERE"; NULL or malformed: "none: WHY"),
 *  as a text line "  NAME  VALUE  KIND: WHERE". */
void prism_app_source_text(FILE *f, const char *name, const char *value, const char *source);
/** Member "source": {"kind", "where"} of @p source (malformed: kind "none", "problem"),
 *  appended to the open object of @p b. */
void prism_app_source_json(JsonBuilder *b, const char *source);
/** The keys of a key file with their citations (prism_keyfile_citations()), as text
 *  lines "  [GROUP] KEY = VALUE  KIND: WHERE" or as a JSON array of {"group", "key",
 *  "value", "source"} (@p b non-NULL); groups named in @p skip (NULL-terminated, NULL:
 *  none) are left out. */
void prism_app_cited_keys(FILE *f, JsonBuilder *b, const GPtrArray *cited, const char *const *skip);

/** Print the builder's root as pretty JSON plus a newline (the builder is a JsonBuilder *). */
void prism_app_print_json(FILE *out, void *json_builder);

/* Rendering of library data (app_render.c). Not collective; print on rank 0. */

/** A strategy as "dp=..,tp=..", with a leading "devices=N," when @p with_devices.
 *  Ownership: g_free(). */
char *prism_app_strategy_text(const PrismStrategy *s, gboolean with_devices);
/** One evaluated row as a JSON object appended to @p b: "index", every dim, "strategy"
 *  and the metric members of `prism explain --json`. */
void prism_app_row_json(JsonBuilder *b, const PrismCostModel *cm, uint64_t index,
                        const PrismStrategy *s, const double cols[PRISM_COL_COUNT]);
/** The members of prism_app_row_json() into the open object of @p b (more may follow). */
void prism_app_row_json_members(JsonBuilder *b, const PrismCostModel *cm, uint64_t index,
                                const PrismStrategy *s, const double cols[PRISM_COL_COUNT]);
/** The "what would make room" lines of a diagnosis (diagnose.h), in print order, naming
 *  the options ("--devices 32"); with @p grid (`prism sweep --grid`) also the grid file's
 *  key beside each ("--devices 32 (or the grid file's devices)"). The JSON of `prism plan`
 *  names the options only. Ownership: g_ptr_array_unref(). */
GPtrArray *prism_app_diagnosis_suggestions(const PrismDiagnosis *d, gboolean grid);
/** "Nothing fits in ...": the closest table, the memory of #1 and the suggestions. */
void prism_app_diagnosis_text(FILE *out, const PrismDiagnosis *d, gboolean grid);
/** The "closest" and "suggestions" members, added to an open JSON object. */
void prism_app_diagnosis_json(JsonBuilder *b, const PrismCostModel *cm, const PrismDiagnosis *d);
/** The one-line PRISM_INPUT_ERROR_INFEASIBLE error: the closest peak, by how much it is
 *  over, and the first suggestion. */
void prism_app_diagnosis_error(const PrismDiagnosis *d, gboolean grid, GError **error);
/** `plan --refine K` as text (a GPtrArray of PrismRefineResult, refine.h). */
void prism_app_refine_text(FILE *out, const GPtrArray *results);
/** The "refine": [...] member, added to an open JSON object. */
void prism_app_refine_json(JsonBuilder *b, const GPtrArray *results);

/** The track record (validate.h) under an answer: text (a paragraph starting with a blank
 *  line; @p times names what to read as optimistic, "the step times above"; ownership
 *  g_free()) and the JSON member "track_record". */
char *prism_app_track_text(const PrismTrackRecord *t, const char *times);
void prism_app_track_json(JsonBuilder *b, const PrismTrackRecord *t);
/** The record as one JSON object (no member name), and as one text line (no newline;
 *  `prism validate`'s per family and framework list). Ownership of the line: g_free(). */
void prism_app_track_json_object(JsonBuilder *b, const PrismTrackRecord *t);
/* The members of an order statistic (validate.h, PrismValidateOrder) in the current JSON
 * object: groups, pairs, measured_ties, fastest_groups, fastest_agree, same_order and
 * same_order_pct (null without pairs). */
void prism_app_order_json_members(JsonBuilder *b, const PrismValidateOrder *od);
char *prism_app_track_line(const PrismTrackRecord *t);
/** A record back from its JSON object (a landscape's track_record attribute); NULL for
 *  anything else. Ownership: prism_track_record_free(). */
PrismTrackRecord *prism_app_track_from_json(JsonNode *n);

/** The relative widening of an interval from a track record's mean absolute error (per
 *  cent), kept below 0.9 so that step_lo stays positive; 0 without published runs. */
double prism_app_widening(const PrismTrackStat *st);
/** The corners of @p cm (ranges.h) widened as `prism plan` widens them: the record's mean
 *  step and memory errors, and its step-error spread as the equivalence tolerance. Not
 *  collective. Ownership: prism_corners_free(). */
PrismCorners *prism_app_corners_new(const PrismCostModel *cm, const PrismTrackRecord *track,
                                    GError **error);

/** JSON members: a string, or null for NULL; an array of the strings of @p v. */
void prism_app_json_string(JsonBuilder *b, const char *name, const char *v);
void prism_app_json_strings(JsonBuilder *b, const char *name, const GPtrArray *v);

/** stdout on rank 0, NULL elsewhere: `if (out) fprintf(out, ...)`. */
FILE *prism_app_out(const PrismComm *comm);

/* --emit and --from (app_fwconfig.c). Not collective. */
typedef struct PrismRunConfig PrismRunConfig;
/** Write @p s as framework @p target's configuration to @p out (NULL: check only),
 *  refusing what the target's profile ([planning] only) or its mapping cannot run, in
 *  one message form ("--emit T: T cannot run this strategy: why"). @p layout (NULL: the
 *  default split) is a refined split and per-layer recompute (plan --refine): its modes
 *  become the strategy's one recompute setting, or it is refused.
 *  Errors: PRISM_INPUT_ERROR_UNKNOWN_NAME, _UNSUPPORTED with the reason. */
gboolean prism_app_emit(FILE *out, const char *target, const PrismStrategy *s,
                        const PrismLayout *layout, const PrismInputs *in, GError **error);
/** The split a --from file states when it is not the default one (PrismRunConfig
 *  chunk_layers), each layer recomputed as the file's strategy says; NULL when the file
 *  keeps the default split. Ownership: prism_layout_free(). */
PrismLayout *prism_app_from_layout(const PrismRunConfig *c, const PrismModel *model);
/** Read --from FILE (fwconfig.h) and lay its batch, sequence, precision and device count
 *  over @p in. Ownership: prism_run_config_free(). */
/**
 * prism_strategy_parse() of @p text, the dims it leaves out taken from profile @p fw's
 * [defaults] (framework.h) where the shape rules allow them: zero where dp*cp > 1, sp where
 * tp > 1 (or always, [planning] sequence_parallel), recompute, the schedule of a pipeline,
 * and the micro-batch (a count, the local batch, or one per stage). @p fw NULL: the generic
 * defaults of prism_strategy_parse(). @p filled (may be NULL) gets the items added
 * ("zero=1, sp=1"), NULL when none. Errors: as prism_strategy_parse(). Ownership: g_free().
 */
gboolean prism_app_strategy_parse(const char *text, const PrismFramework *fw, uint32_t devices,
                                  const PrismTraining *tr, PrismStrategy *out, char **filled,
                                  GError **error);
PrismRunConfig *prism_app_from(const char *path, PrismInputs *in, GError **error);
/** "from FILE (megatron): devices=.., STRATEGY; gbs .." and the ignored keys, as lines.
 *  Ownership: g_free(). */
char *prism_app_from_note(const char *path, const PrismRunConfig *c);

/** `plan --baseline`: the user's configuration priced next to the recommendation, and the
 *  changes that turn one into the other, each priced alone (app_fwconfig.c). */
typedef struct PrismBaseline PrismBaseline;
/** Price @p cfg's strategy and each change towards @p best (its row @p best_cols) with
 *  @p cm. Not collective. Errors: as prism_cost_eval_one(). Ownership:
 *  prism_app_baseline_free(). */
PrismBaseline *prism_app_baseline_new(const PrismCostModel *cm, const PrismInputs *in,
                                      const char *path, const PrismRunConfig *cfg,
                                      const PrismStrategy *best,
                                      const double best_cols[PRISM_COL_COUNT], GError **error);
void prism_app_baseline_free(PrismBaseline *bl);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismBaseline, prism_app_baseline_free)
/** The "Baseline" paragraph, and the "baseline" member of `plan --json`. */
void prism_app_baseline_text(FILE *out, const PrismBaseline *bl);
void prism_app_baseline_json(JsonBuilder *b, const PrismBaseline *bl);

/* The subcommands (cmd_<name>.c). */
gboolean prism_cmd_plan(PrismComm *comm, int argc, char **argv, GError **error);
gboolean prism_cmd_sweep(PrismComm *comm, int argc, char **argv, GError **error);
gboolean prism_cmd_explain(PrismComm *comm, int argc, char **argv, GError **error);
gboolean prism_cmd_models(PrismComm *comm, int argc, char **argv, GError **error);
gboolean prism_cmd_clusters(PrismComm *comm, int argc, char **argv, GError **error);
gboolean prism_cmd_knobs(PrismComm *comm, int argc, char **argv, GError **error);
gboolean prism_cmd_version(PrismComm *comm, int argc, char **argv, GError **error);
gboolean prism_cmd_layouts(PrismComm *comm, int argc, char **argv, GError **error);
gboolean prism_cmd_info(PrismComm *comm, int argc, char **argv, GError **error);
gboolean prism_cmd_pareto(PrismComm *comm, int argc, char **argv, GError **error);
gboolean prism_cmd_validate(PrismComm *comm, int argc, char **argv, GError **error);
gboolean prism_cmd_frameworks(PrismComm *comm, int argc, char **argv, GError **error);
gboolean prism_cmd_inputs(PrismComm *comm, int argc, char **argv, GError **error);

/** Entry point used by main(): MPI init, dispatch, error printing, exit status. */
int prism_app_main(int argc, char **argv);

G_END_DECLS

#endif /* PRISM_APP_INTERNAL_H */
