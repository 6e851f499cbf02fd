/*
 * validate.h - `prism validate`: predicted against published measurements, per row.
 *
 * A CSV of measured runs (the layout of shared/validation/measured.csv) is read row by
 * row. Each row runs under a framework profile (framework.h): the row's `framework`
 * column, else the --framework given, else its source's profile (sources.ini). A dim the
 * row leaves unstated takes the profile's documented default; where the profile has none
 * the row is PLANNED: the dims it states (and the defaults) are fixed and the search
 * (prism_search_run, collective) picks the rest within what the framework supports, and
 * the best strategy's throughput is compared with the measured one. Every row is
 * predicted, planned, or skipped with the reason; none is dropped. An optional `knobs`
 * column ("NAME=VALUE;NAME=VALUE") sets knobs for its row over the profile's and the
 * source's (sources.ini `set`); the user's --set/--knobs override all three. Rows whose
 * notes start with "OOM" are measured failures: they are checked for infeasibility and
 * counted.
 * The library returns data; src/app/cmd_validate.c renders text and JSON.
 */
#ifndef PRISM_VALIDATE_H
#define PRISM_VALIDATE_H

#include <stdint.h>

#include <glib.h>

#include <prism/comm.h>
#include <prism/cost.h>
#include <prism/explain.h>
#include <prism/framework.h>
#include <prism/knobs.h>
#include <prism/strategy.h>

G_BEGIN_DECLS

typedef enum {
    PRISM_VALIDATE_PREDICTED = 0, /**< every dim stated or defaulted: one evaluation */
    PRISM_VALIDATE_PLANNED = 1,   /**< some dims planned by the search */
    PRISM_VALIDATE_SKIPPED = 2,   /**< not modelled; reason says why */
} PrismValidateKind;

/** Compared metrics. */
enum {
    PRISM_VM_MEM = 0, /**< peak memory, GiB, as the framework counts it (mem_counts) */
    PRISM_VM_STEP,    /**< step time, s (or from tokens/s) */
    PRISM_VM_TFLOPS,  /**< TFLOP/s per GPU (model FLOPs, or hardware FLOPs for hfu sources) */
    PRISM_VM_MFU,     /**< model FLOPs utilisation against the BF16 dense peak */
    PRISM_VM_COUNT
};

typedef struct PrismValidateRow {
    int line; /**< line in the CSV (header = 1) */
    char *source, *model;
    char *framework;      /**< profile name, NULL when none applied */
    char *framework_from; /**< "column", "--framework" or "sources.ini" */
    PrismValidateKind kind;
    char *reason;      /**< skipped: why */
    char *strategy;    /**< predicted: the strategy; planned: the best found or NULL */
    char *fixed;       /**< planned: the --fix text given to the search */
    char *only;        /**< planned: the --only text (framework support) */
    char *defaults;    /**< dims taken from the profile's defaults ("mbs=2,recompute=..") */
    char *knobs;       /**< the row's knobs column as written, NULL when empty */
    char *unsupported; /**< why the row's profile does not run its (predicted or best
                            planned) strategy, priced anyway; NULL when it does
                            (prism_space_framework_unsupported) */
    char *planned;     /**< dims the search picked ("micro_batch,vpp") */
    char *cluster;     /**< preset used */
    char *dtype;
    uint64_t searched, feasible; /**< planned: the space and how much of it fits */
    gboolean fits;               /**< the predicted (or best planned) strategy fits */
    gboolean oom;                /**< the row is a measured OOM */
    double pred[PRISM_VM_COUNT], meas[PRISM_VM_COUNT], err[PRISM_VM_COUNT]; /**< NAN = none */
    uint32_t devices, tp, pp, cp, ep, dp; /**< as the row gives them; 0 = planned */
    uint64_t gbs, seq;                    /**< stated, else sources.ini's for the source */
    double step_lo, step_hi;       /**< the predicted step's interval from the knob ranges alone
                                        (ranges.h corners, no widening); NAN = none */
    double step_fast, step_slow;   /**< the step at the optimistic and pessimistic corner */
    double held_lo, held_hi;       /**< the interval `prism plan` would show for the row with its
                                        own source left out of the track record: step_lo and
                                        step_hi widened by held_widen (prism_track_holdout);
                                        NAN = none */
    double held_widen;             /**< that widening (prism_track_widening of the record without
                                        the row's source; 0 when no other source has a speed
                                        error); NAN = none */
    double held_tol;               /**< the tolerance plan's equivalence takes from that record
                                        (prism_track_pair_tolerance); NAN = none */
    PrismExplain *explain;         /**< the row of PrismValidateOptions.explain_line, predicted or
                                        planned with a strategy: the explanation's data of that
                                        strategy (explain.h) under the row's cost model; else NULL */
    PrismCostModel *explain_model; /**< that cost model, owned with @c explain */
    int mem_counts; /**< what pred/meas[PRISM_VM_MEM] count (a PrismMemCounts); -1 = not
                         modelled */
} PrismValidateRow;

/** Absolute percentage errors of one source, over predicted or planned rows. */
typedef struct PrismValidateStat {
    char *source;
    PrismValidateKind kind; /**< PREDICTED or PLANNED */
    int rows;
    double sum[PRISM_VM_COUNT], worst[PRISM_VM_COUNT];
    double signed_sum[PRISM_VM_COUNT]; /**< sum of 100 (predicted - measured) / measured: the
                                            bias, + = predicted higher */
    int n[PRISM_VM_COUNT];
    int iv_n;        /**< rows with a measured step time and a step interval */
    int iv_inside;   /**< of those, measured step_lo <= measured <= step_hi */
    double iv_width; /**< sum of 100 (step_hi - step_lo) / predicted step */
    int ho_n;        /**< rows of iv_n given a held-out interval (prism_track_holdout) */
    int ho_inside;   /**< of those, held_lo <= measured <= held_hi */
    int ho_bare;     /**< of those, not widened: no other source of the row's device family
                          and framework has a speed error */
    double ho_width; /**< sum of 100 (held_hi - held_lo) / predicted step */
} PrismValidateStat;

typedef struct PrismValidateReport {
    char *path;
    GPtrArray *rows;       /**< PrismValidateRow *, file order */
    GPtrArray *stats;      /**< PrismValidateStat *, first appearance; predicted then planned */
    GPtrArray *frameworks; /**< PrismFramework * used, first use order */
    int n_predicted, n_planned, n_skipped;
    int n_moe;                /**< MoE rows (experts > 0), modelled like the others */
    int n_oom, n_oom_flagged; /**< modelled OOM rows, and of those predicted infeasible */
    int n_oom_skipped;        /**< OOM rows that could not be modelled (skipped) */
} PrismValidateReport;

/* prism_device_family(): include/prism/cluster.h */

typedef struct PrismValidateOptions {
    const PrismKnobOverrides *user;  /**< the knobs the user gave override the profile's,
                                          even where a value equals the default (NULL: none) */
    const PrismFramework *framework; /**< --framework: rows without a framework column */
    const char *family;              /**< non-NULL: only rows on this device family
                                          (prism_device_family() of their preset) are evaluated,
                                          the others are skipped with that reason */
    const char *only_framework;      /**< non-NULL: likewise, only rows under this profile */
    int explain_line;                /**< > 0: only the data row on this CSV line is read
                                          and evaluated, and its row gets `explain`; no such
                                          row is PRISM_INPUT_ERROR_VALUE */
    gboolean no_interval;            /**< TRUE: the rows' step intervals (step_lo, step_hi,
                                          step_fast, step_slow) are not priced and stay NAN
                                          (the track record reads only the point errors) */
} PrismValidateOptions;

/**
 * Validate every row of @p path. Collective: every rank must call it with the same CSV
 * and options (planned rows run prism_search_run on @p comm, in file order); the result
 * is the same on every rank. Errors (PRISM_INPUT_ERROR_*, exit status 2): unreadable
 * file, missing column, a row with the wrong field count, a malformed numeric cell (not a
 * finite non-negative number: "abc", "nan", "-4"), a NUL byte, an unknown or bad framework,
 * each naming the file, line and column. Lines are those an editor shows (a quoted cell
 * may hold line breaks); a UTF-8 byte order mark before the header is skipped.
 * Ownership: prism_validate_report_free().
 */
PrismValidateReport *prism_validate_run(PrismComm *comm, const char *path,
                                        const PrismValidateOptions *opt, GError **error);
void prism_validate_report_free(PrismValidateReport *r);

/** A run the user measured, for prism_validate_strategy(). */
typedef struct PrismValidateRun {
    const char *source;         /**< where the run is described (a file): the row's source */
    const char *framework_from; /**< how its profile was chosen ("--framework", ...) */
    double step_s;              /**< measured step time, s; NAN = not measured */
    double mem_gib;             /**< measured peak memory, GiB; NAN = not measured */
    int mem_kind;               /**< what mem_gib counts (a PrismMemCounts), -1 = what the
                                     profile's framework logs (allocated without one) */
    long mem_rank;              /**< the global rank mem_gib was measured on: its pipeline
                                     stage's peak; -1 = the peak stage */
} PrismValidateRun;

/**
 * One run the user measured, priced as a validation row that states every dim (`prism
 * validate --from FILE`): strategy @p s under cost model @p cm (built with @p fw's knobs
 * applied, as a row's) gives the predicted peak memory as @p fw's framework logs it (or
 * @p run's mem_kind), step time, TFLOP/s and MFU, the step interval of the knob ranges, and
 * whether @p fw runs the strategy; @p run's figures are the measured ones and the errors
 * are theirs. @p layout: the run's own split of the layers over the pipeline chunks (its
 * per-layer recompute modes included), priced as stated (prism_cost_eval_layout()) and
 * shown in the row's strategy; NULL = the default split. @p fw may be NULL (no profile:
 * allocated memory, no framework note). Not collective. Errors: a strategy the cost model refuses
 * (PRISM_INPUT_ERROR_*). Ownership: prism_validate_row_free().
 */
PrismValidateRow *prism_validate_strategy(const PrismCostModel *cm, const PrismStrategy *s,
                                          const PrismLayout *layout, const PrismFramework *fw,
                                          const PrismValidateRun *run, GError **error);
void prism_validate_row_free(PrismValidateRow *r);

/** Static names: "predicted", "planned", "skipped"; "peak_mem", "step_time", ... */
const char *prism_validate_kind_name(PrismValidateKind k);
const char *prism_validate_metric_name(int metric);

/** The order statistic's tie: pairs whose measured speeds differ by less than 1 % of the
 *  larger are measurement ties (published figures are rounded) and are not counted. */
#define PRISM_VALIDATE_ORDER_TIE 0.01

/**
 * How prism orders runs that differ only in strategy or settings (validate_order.c). The
 * modelled rows of one source with the same model, cluster preset, device count, global
 * batch and sequence length form a group (their strategy, dtype, framework or notes
 * differ). In every pair of a group, prism's predicted order is compared with the measured
 * one on the pair's speed: the first of step time (lower is faster), TFLOP/s and MFU
 * (higher is faster) that both rows have measured and predicted. Pairs whose measured
 * values differ by less than @p tie (relative to the larger) are ties and are not counted;
 * a pair prism predicts equal counts one half. Planned rows take part with the best
 * strategy found (what their prediction is); skipped and OOM rows do not. It answers
 * whether prism's comparisons between strategies hold where its absolute times do not.
 */
typedef struct PrismValidateOrder {
    char *source;       /**< NULL: the sources of the report together */
    int groups;         /**< groups with at least one counted pair */
    int pairs;          /**< pairs counted */
    int ties;           /**< pairs left out as measured ties */
    double same;        /**< counted pairs prism orders as measured (+1/2 per predicted tie) */
    int fastest_groups; /**< groups whose rows all give one speed metric (the first of the
                             three that all give) and whose measured fastest row is ahead of
                             the next by at least the tie */
    int fastest_agree;  /**< of those, where that row alone has prism's best prediction */
} PrismValidateOrder;

/** Per source with a counted pair, a tie or a fastest-row group, in first-appearance order, then,
 *  when two or more sources have one, all of them together (source NULL). Ownership:
 *  g_ptr_array_unref(). */
GPtrArray *prism_validate_order(const PrismValidateReport *rep, double tie);

/** Add @p from's counts to @p to (its source is left as it is). */
void prism_validate_order_add(PrismValidateOrder *to, const PrismValidateOrder *from);

/** One counted pair of the order statistic: rows @p a and @p b of the report (a first in
 *  file order), the speed metric compared, and the verdict. */
typedef struct PrismValidateOrderPair {
    const PrismValidateRow *a, *b; /**< borrowed from the report */
    int metric;                    /**< PRISM_VM_STEP, PRISM_VM_TFLOPS or PRISM_VM_MFU */
    double same; /**< 1: prism orders them as measured; 1/2: predicted equal; 0: reversed */
} PrismValidateOrderPair;

/** Every counted pair of prism_validate_order(), group by group in first-appearance
 *  order, pairs in file order. Ownership: g_array_unref() (the rows stay the report's). */
GArray *prism_validate_order_pairs(const PrismValidateReport *rep, double tie);

/**
 * What a user choosing by prism would feel, per source (search/analysis/validate_order.c). Regret:
 * the predicted rows of a source that differ only in strategy (same model, cluster preset, device
 * count, global batch, sequence, dtype and framework; measured failures left out) form a group; in
 * the speed metric most of its rows give (step time, else TFLOP/s, else MFU; ties in that order),
 * prism's pick is the row with the best prediction (the first in file order on ties) and its regret
 * is how much slower it measured than the measured fastest row, in % of the time (step: pick /
 * fastest - 1; TFLOP/s and MFU: fastest / pick - 1). Groups of fewer than two such rows are not
 * counted. Feasibility, both ways, over the modelled rows (predicted and planned; a planned row
 * fits when some strategy within its stated dims does): measured failures (notes "OOM...")
 * predicted infeasible, and measured runs predicted feasible.
 */
typedef struct PrismValidateRegret {
    char *source;              /**< the source id; NULL: several sources together */
    int groups;                /**< groups with a regret */
    int picks_fastest;         /**< of those, where prism's pick measured fastest (0 %) */
    double regret_sum;         /**< sum of the groups' regrets, % (mean = sum / groups) */
    double regret_worst;       /**< the largest, % */
    int oom_rows, oom_flagged; /**< modelled failures, and of those predicted infeasible */
    int ok_rows, ok_feasible;  /**< modelled measured runs, and of those predicted feasible */
    int simplest_groups;       /**< groups where `plan --pick simplest`'s rule applies (in
                                    the group's speed metric; the equivalence on the predicted
                                    steps' intervals): the simplest run (default order) of those
                                    equivalent to the predicted fastest (ranges.h, no
                                    tolerance) */
    double simplest_sum, simplest_worst; /**< its regret against the measured fastest, % */
    int simplest_held_groups; /**< the same with plan's tolerance (ranges.h) taken from the
                                   track record without the group's source (the rows' held_tol,
                                   set by prism_track_holdout; groups without it are left out) */
    double simplest_held_sum, simplest_held_worst; /**< its regret, % */
} PrismValidateRegret;

/** Per source in first-appearance order (no all-sources entry). Ownership:
 *  g_ptr_array_unref(). */
GPtrArray *prism_validate_regret(const PrismValidateReport *rep);
/** An empty list for prism_validate_regret_collect() (frees its entries). */
GPtrArray *prism_validate_regret_list_new(void);
/** Add @p rep's groups and rows to @p list's entries (one per source, appended when new):
 *  several CSVs of one source (its runs and its failures) add up. */
void prism_validate_regret_collect(const PrismValidateReport *rep, GPtrArray *list);
/** The entry of @p source (NULL: the all-sources one) in @p list, appended when new. */
PrismValidateRegret *prism_validate_regret_entry(GPtrArray *list, const char *source);
/** Add @p from's counts and sums to @p to (the worst is the larger). */
void prism_validate_regret_add(PrismValidateRegret *to, const PrismValidateRegret *from);

/** Signed and absolute percentage errors of one metric over the rows of a track record. */
typedef struct PrismTrackStat {
    int n;              /**< rows with this metric */
    double mean_signed; /**< mean of the signed errors (sign: see PrismTrackRecord) */
    double mean_abs;    /**< mean of their absolute values */
    double worst;       /**< largest absolute value */
    double sd;          /**< standard deviation of the signed errors (population): the part
                             of the error not common to the runs (the sum of squares until
                             prism_track_record_finish) */
} PrismTrackStat;

/**
 * The model's error on a comparison (validate_order.c): over the pairs of predicted runs of
 * one workload that differ only in strategy (prism_validate_regret's groups: same source,
 * model, cluster, device count, global batch, sequence, dtype and framework; the strategy
 * differs; measured failures left out), in the first speed metric both runs give, the error
 * of the predicted time ratio: d = ln(predicted a / predicted b) - ln(measured a /
 * measured b) (TFLOP/s and MFU as times: their inverse). The error both runs share (the
 * clock, an efficiency, a setting prism does not price) cancels in d; what is left is what
 * separates two strategies, the error a choice between them carries.
 */
typedef struct PrismTrackPairs {
    int n;        /**< pairs */
    double rms;   /**< root mean square of d, in % (100 d; the sum of squares until
                       prism_track_record_finish) */
    double worst; /**< largest |d|, in % */
} PrismTrackPairs;

/** Add the pairs of @p rep (PrismTrackPairs) to @p acc: n, the sum of squares of 100 d in
 *  acc->rms and the largest |100 d| in acc->worst. Not collective. */
void prism_validate_pair_errors(const PrismValidateReport *rep, PrismTrackPairs *acc);

/**
 * The track record: how the model did on the shipped published runs of one device
 * family under one framework profile (validate_track.c). Each run's errors are the ones
 * `prism validate` reports for it, with a sign. Speed: the error of its time metric (the
 * step time when the run gives it, else TFLOP/s, else MFU), positive when the prediction
 * is faster than the measurement. Memory: the peak-memory error (predicted rows only: a
 * planned row's strategy is not the measured one), positive when more is predicted. OOM
 * rows (no measurement) and skipped rows are left out. It changes no prediction.
 */
typedef struct PrismTrackRecord {
    char *family;       /**< device family (prism_device_family of the row's cluster, "H100") */
    char *framework;    /**< profile matched; NULL = the runs of every profile */
    GPtrArray *data;    /**< char *: the CSVs read */
    GPtrArray *sources; /**< char *: the source ids of the rows that matched, first seen */
    char *unavailable;  /**< why some data could not be read (NULL: all read) */
    int rows;           /**< matching rows with a speed or memory error */
    PrismTrackStat speed, mem;
    PrismValidateOrder order; /**< the order statistic (prism_validate_order) over the
                                   matching rows, every source together (source NULL) */
    PrismTrackPairs pairs;    /**< the error of the predicted ratio of two strategies of
                                   one workload over the matching rows (PrismTrackPairs) */
    char *knobs;     /**< the user's knobs laid over every run ("hsdp=1, dp_bucket=4e+07", in
                          knob order); NULL: none (each run under its own profile only) */
    int oom_rows;    /**< matching measured failures (notes "OOM...") that were modelled */
    int oom_flagged; /**< of those, predicted infeasible */
    char *leave_out; /**< a source whose rows prism_track_record_add skips (NULL: none) */
} PrismTrackRecord;

/** An empty record for @p family and @p framework (NULL: any profile). */
PrismTrackRecord *prism_track_record_new(const char *family, const char *framework);
/** Add the matching rows of @p rep (sums; call prism_track_record_finish() once after). */
void prism_track_record_add(PrismTrackRecord *t, const PrismValidateReport *rep);
/** Turn the sums into means. */
void prism_track_record_finish(PrismTrackRecord *t);
/** The relative widening `prism plan` applies to an interval from a record's statistic
 *  @p st: its mean absolute error / 100, at most 0.9; 0 without rows. */
double prism_track_widening(const PrismTrackStat *st);
/** The tolerance `prism plan`'s equivalence takes from a record's pairs @p p: the relative
 *  error of a predicted ratio of two strategies one root mean square of d away,
 *  exp(rms / 100) - 1, with one pair or more, and never less than the measurement tie
 *  PRISM_VALIDATE_ORDER_TIE (a smaller difference is one no published run can confirm);
 *  the tie alone without pairs. */
double prism_track_pair_tolerance(const PrismTrackPairs *p);

/**
 * The out-of-sample check of the intervals `prism plan` shows: for every row of @p reps
 * with a step interval (step_lo, step_hi of the knob ranges) and a measured step time, the
 * track record of its device family and framework built from @p reps with the row's own
 * source left out (PrismTrackRecord.leave_out; prism_track_record_add on every report),
 * its widening (prism_track_widening of the speed statistic) and the interval widened by
 * it as plan widens (prism_interval_widen: step_lo / (1 + w), step_hi / (1 - w)): the rows'
 * held_lo, held_hi, held_widen and held_tol (plan's equivalence tolerance from the same record's
 * pairs; NAN for the others), and the ho_* counts of the rows' statistics (PrismValidateStat). A
 * row whose family and framework have no other source with a speed error is not widened and counted
 * in ho_bare. Deterministic: the same on every rank. Not collective.
 */
void prism_track_holdout(PrismValidateReport *const *reps, size_t n);

/**
 * The record of @p cluster_name's family under @p framework (NULL: every profile), from
 * every shipped CSV in prism_validation_dirs() (measured.csv, measured_modern.csv,
 * measured_playbook.csv, measured_playbook_failed.csv), each run under its own
 * profile with @p knobs (the user's --set/--knobs; NULL none) laid over it, as `prism
 * validate --set` does. Collective like prism_validate_run(). Never fails: data that
 * cannot be found or read is reported in `unavailable`. Ownership:
 * prism_track_record_free().
 */
PrismTrackRecord *prism_track_record_run(PrismComm *comm, const char *cluster_name,
                                         const char *framework, const PrismKnobOverrides *knobs);
void prism_track_record_free(PrismTrackRecord *t);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismValidateReport, prism_validate_report_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismValidateRow, prism_validate_row_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismTrackRecord, prism_track_record_free)

G_END_DECLS

#endif /* PRISM_VALIDATE_H */
