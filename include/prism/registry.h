/*
 * registry.h - the registry of strategy dims and pipeline schedules: one row per dim and
 * one per schedule, the single place their names, domains, texts and schedule facts stand.
 *
 * Who reads it: the strategy parser and text form (strategy.c), the shape rules R4/R7-R9
 * (strategy.c) and the space enumerator (search/search_space.c), the filters
 * (search/search_filter.c), explain's JSON (src/app/render_explain.c), the landscape schema
 * (io/io_schema.c, which also writes the dim list as the `dims` attribute of /landscape
 * that the Python scripts read), the segment compiler and the kernel view of a segment
 * (cost/cost_stages.c: in-flight states, placement and bubble coefficients, copied into
 * PrismKSegment once per segment; the kernels read that copy, never this table).
 * src/core/README.md has the how-tos for adding a dim and adding a schedule.
 *
 * Everything here is static data: thread-safe, nothing is collective.
 */
#ifndef PRISM_REGISTRY_H
#define PRISM_REGISTRY_H

#include <stdint.h>

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
    PRISM_SCHEDULE_1F1B = 0,
    PRISM_SCHEDULE_INTERLEAVED = 1, /**< interleaved 1F1B, vpp > 1 */
    PRISM_SCHEDULE_GPIPE = 2,
    PRISM_SCHEDULE_ZB_H1 = 3,      /**< zero-bubble ZB-H1 (Qi et al., ICLR 2024) */
    PRISM_SCHEDULE_ZB_V = 4,       /**< zero-bubble V shape: 2 chunks per device (Qi et al. 2024) */
    PRISM_SCHEDULE_DUALPIPE = 5,   /**< bidirectional (DeepSeek-V3): 2 stages per device */
    PRISM_SCHEDULE_DUALPIPE_V = 6, /**< DualPipe cut in half: V shape, 2 chunks per device */
    PRISM_SCHEDULE_SEQ1F1B = 7,    /**< 1F1B over sequence chunks (Sun et al. 2024) */
    PRISM_SCHEDULE_COUNT = 8,
} PrismSchedule;

typedef enum {
    PRISM_RECOMPUTE_NONE = 0,
    PRISM_RECOMPUTE_SELECTIVE = 1, /**< attention core recomputed (Korthikanti et al.) */
    PRISM_RECOMPUTE_FULL = 2,      /**< every layer: only the layer input is kept */
    PRISM_RECOMPUTE_BLOCK = 3,     /**< full on the first k layers of each model chunk */
    PRISM_RECOMPUTE_COUNT = 4,
} PrismRecompute;

/** Offloading to host memory, a bit set (R11). */
typedef enum {
    PRISM_OFFLOAD_NONE = 0,
    PRISM_OFFLOAD_OPTIMIZER = 1,   /**< optimizer state + its update on the host (CPU Adam) */
    PRISM_OFFLOAD_ACTIVATIONS = 2, /**< kept activations copied to host memory per layer */
    PRISM_OFFLOAD_BOTH = 3,
    PRISM_OFFLOAD_COUNT = 4,
} PrismOffload;

/** Communication-overlap options (R12), as bits of PrismStrategy.overlap_off. The dims
 *  tp_overlap, dp_overlap and param_overlap are 1 when the bit is clear. */
typedef enum {
    PRISM_OVERLAP_TP = 1,    /**< TP collectives overlapped with GEMMs (TE userbuffers) */
    PRISM_OVERLAP_DP = 2,    /**< gradient reduce overlapped with backward */
    PRISM_OVERLAP_PARAM = 4, /**< ZeRO-1/2 parameter all-gather overlapped with forward */
    PRISM_OVERLAP_ALL = 7,
} PrismOverlap;

/** The dimensions of a strategy, in index order (outermost first; space.h). Append-only:
 *  the codes are the `index` of landscape columns. */
typedef enum {
    PRISM_DIM_DEVICES = 0,
    PRISM_DIM_PP,
    PRISM_DIM_VPP,
    PRISM_DIM_SCHEDULE,  /**< values are PrismSchedule codes */
    PRISM_DIM_RECOMPUTE, /**< values are PrismRecompute codes */
    PRISM_DIM_RC_LAYERS, /**< k of recompute=block:k (0 for the other modes) */
    PRISM_DIM_TP,
    PRISM_DIM_CP,
    PRISM_DIM_DP, /**< derived: N/(tp*pp*cp) */
    PRISM_DIM_EP,
    PRISM_DIM_SP,
    PRISM_DIM_MBS,
    PRISM_DIM_M, /**< derived: gbs/(dp*mbs) */
    PRISM_DIM_ZERO,
    PRISM_DIM_ETP,           /**< expert tensor parallelism (innermost lane key) */
    PRISM_DIM_FOLDING,       /**< derived: 0 tied (etp = tp, ep | dp*cp), 1 folded */
    PRISM_DIM_OFFLOAD,       /**< PrismOffload bit set; in the index the innermost STRUCTURAL key
                                  (after rc_layers), appended here because this enum is append-only */
    PRISM_DIM_TP_OVERLAP,    /**< 1 on / 0 off: TP comm overlap (lane key, after etp; R12) */
    PRISM_DIM_DP_OVERLAP,    /**< 1 on / 0 off: gradient-reduce overlap (lane key; R12) */
    PRISM_DIM_PARAM_OVERLAP, /**< 1 on / 0 off: parameter-gather overlap (lane key; R12) */
    PRISM_DIM_COUNT
} PrismDim;

/** Where a dim sits in the strategy index (space.h). */
typedef enum {
    PRISM_DIM_STRUCTURAL, /**< a segment key (PrismSegmentKey): one compiled segment per value */
    PRISM_DIM_LANE,       /**< a lane key: varies inside a segment */
    PRISM_DIM_DERIVED,    /**< follows from the others (dp, m, folding) */
} PrismDimRole;

/** When prism_strategy_format leaves a dim of the text out (so strategies that do not use
 *  a later dim print as before it existed). */
typedef enum {
    PRISM_TEXT_ALWAYS = 0, /**< always written */
    PRISM_TEXT_UNLESS_0,   /**< left out at 0 (offload) */
    PRISM_TEXT_UNLESS_1,   /**< left out at 1 (an overlap option on) */
    PRISM_TEXT_UNLESS_TP,  /**< left out when equal to tp (etp, the tied mapping) */
} PrismTextQuiet;

/** One dim's row. */
typedef struct PrismDimInfo {
    /** The one name: strategy text key, filter name, landscape column, explain JSON key. */
    const char *name;
    const char *alias; /**< a second filter name ("n", "k"), or NULL */
    /** The landscape column's description (its `doc` attribute); a code dim's doc is
     *  this text followed by its codes, "schedule: 0 1f1b, 1 interleaved, ...". */
    const char *doc;
    PrismDimRole role;
    /** Bytes of its PrismStrategy field (1, 2, 4): the landscape stores it in as many. */
    uint8_t bytes;
    /** The PrismOverlap bit of an overlap dim (value 1 = bit clear), else 0. */
    uint8_t overlap_bit;
    /** Written in the strategy text (prism_strategy_format, prism_strategy_parse); dims
     *  that are not (rc_layers, folding) follow from others there. */
    gboolean in_text;
    /** Domain of a filter value and of a strategy-text value (the parser leaves counts'
     *  zeros to R1): lo..hi, and the same in words for messages. */
    uint64_t lo, hi;
    const char *allowed;
    /** Value names of a code dim (schedule, recompute), n_codes of them; NULL otherwise. */
    const char *const *codes;
    uint32_t n_codes;
    PrismTextQuiet quiet; /**< when the strategy text leaves it out */
} PrismDimInfo;

/** The row of @p dim (NULL when out of range). */
const PrismDimInfo *prism_dim_info(PrismDim dim);
/** The dims in the order users read them: landscape columns, `prism_strategy_format`
 *  (devices, rc_layers and folding aside), `prism plan`'s difference lists. */
extern const PrismDim prism_dim_user_order[PRISM_DIM_COUNT];
/** The dims in the order of explain's and plan's "strategy" JSON object. */
extern const PrismDim prism_dim_json_order[PRISM_DIM_COUNT];

/** Static names: "devices", "pp", "vpp", "schedule", "recompute", "rc_layers", ... */
const char *prism_dim_name(PrismDim dim);
/**
 * Look a dimension up by name or alias ("k" is rc_layers, "n" devices).
 * Errors: PRISM_INPUT_ERROR_UNKNOWN_NAME listing the closest names and every name.
 */
gboolean prism_dim_lookup(const char *name, PrismDim *out, GError **error);
/** Text of one value of @p dim ("1f1b", "block", "8"). Ownership: g_free(). */
char *prism_dim_value_text(PrismDim dim, uint64_t value);

/** How many model chunks a schedule runs per device, in terms of vpp (rule R7). */
typedef enum {
    PRISM_VPP_ONE,  /**< vpp = 1 */
    PRISM_VPP_MANY, /**< vpp > 1 (up to PRISM_VPP_MAX) */
    PRISM_VPP_TWO,  /**< vpp = 2: two chunks per device in a V */
} PrismVppRule;

/** The micro-batch counts a schedule runs (rule R8). */
typedef enum {
    PRISM_M_ANY = 0,          /**< any m >= 1 */
    PRISM_M_MULTIPLE_PP = 1,  /**< m a multiple of pp (whole rounds) */
    PRISM_M_AT_LEAST_PP = 2,  /**< m >= pp */
    PRISM_M_AT_LEAST_2PP = 3, /**< m >= 2 pp */
    PRISM_M_EVEN_2PP = 4,     /**< m >= 2 pp and even */
} PrismMRule;

/** Which virtual chunk (model order) stage s runs as its chunk c. */
typedef enum {
    PRISM_PLACE_LOOP,  /**< c*pp + s (1F1B, interleaved: the chunks loop over the stages) */
    PRISM_PLACE_V,     /**< chunks s and 2pp-1-s (a V) */
    PRISM_PLACE_BIDIR, /**< stage s of one direction and pp-1-s of the other (two pipelines) */
} PrismPlacement;

/** What the bubble's sum is divided by (bub_scale of the kernel view). */
typedef enum {
    PRISM_BUBBLE_PER_VPP,   /**< 1 / vpp */
    PRISM_BUBBLE_PER_SPLIT, /**< 1 / k, k = the knob seq1f1b_splits (when pp > 1) */
    PRISM_BUBBLE_HALF,      /**< 1 / 2 */
} PrismBubbleScale;

/** An in-flight count of one chunk of stage s at p = pp stages (registry data, read by
 *  cost/cost_stages.c): (p_ p + s_ s + k_ k + one) / (per_k ? k : 1), k = the knob
 *  seq1f1b_splits; summed in that order, so the counts are those of the formulas of
 *  cost/README.md ("In-flight micro-batches") bit for bit. */
typedef struct PrismInflight {
    double p_, s_, k_, one;
    gboolean per_k;
} PrismInflight;

/**
 * One schedule's row. The step's bubble is
 *     max(0, bub_sum * sum_s u_s - max_s u_s) * scale,   u_s = T_s - bub_w W_s
 * (cost/README.md, "Step"); in-flight counts per stage and chunk are the row's @c states
 * (or, for Megatron's interleaved order, a walk of cost/cost_stages.c), described by
 * @c inflight.
 */
typedef struct PrismScheduleInfo {
    const char *name;       /**< canonical name ("zb-h1") */
    const char *aliases[2]; /**< other spellings the parser accepts, NULL-padded */
    /** R7: the only schedule with pp = 1 (a single stage has no pipeline) */
    gboolean single_stage;
    PrismVppRule vpp;
    gboolean pp_even; /**< R7: pp must be even */
    PrismMRule m;     /**< R8 */
    /** Model chunks one device holds: 0 = vpp (the strategy's), else this many. */
    uint32_t chunks;
    PrismPlacement place;
    /** Every stage holds all m micro-batches (GPipe; weight b of the memory kernel). */
    gboolean holds_m;
    /** Its in-flight states differ between m = pp, m = 2pp and m >= 3pp (interleaved:
     *  the kernel's m_cap and m_mid regimes); else one set of states serves every m. */
    gboolean regimes;
    double bub_sum, bub_w;
    PrismBubbleScale bub_scale;
    /** Share of the micro-batches each chunk of a stage carries (one direction each). */
    double m_share;
    /** 1: a forward and a backward overlap, hiding the EP all-to-all (DualPipe). */
    double hide;
    /** The refine surrogate (search/dc) knows its in-flight counts. */
    gboolean refined;
    /** Rank among schedules by moving parts (diagnose: plain first). */
    uint8_t moving;
    /** The in-flight states a stage passes through: n_states states of one count per chunk
     *  the stage holds (prism_schedule_chunks), chunk 0 first; memory takes the largest.
     *  0 states: the interleaved order, walked per regime (cost_stages.c,
     *  interleaved_states). */
    uint8_t n_states;
    PrismInflight states[4];
    const char *inflight; /**< explain: in-flight count per (stage s, chunk) */
    const char *bubble;   /**< explain: the bubble formula */
} PrismScheduleInfo;

/** The row of schedule code @p s (NULL when out of range). */
const PrismScheduleInfo *prism_schedule_info(uint32_t s);
/** Static names: "1f1b", "interleaved", "gpipe", "zb-h1", "zb-v", "dualpipe",
 *  "dualpipe-v", "seq1f1b"; "?" out of range. */
const char *prism_schedule_name(PrismSchedule s);
/** A schedule by name or alias (case-insensitive). Errors: PRISM_INPUT_ERROR_VALUE
 *  listing the names. */
gboolean prism_schedule_parse(const char *text, PrismSchedule *out, GError **error);
/** TRUE when @p m micro-batches meet rule @p rule at @p pp stages (R8). */
gboolean prism_schedule_m_ok(PrismMRule rule, uint64_t m, uint64_t pp);
/** Model chunks one device holds under schedule @p s at @p vpp. */
static inline uint32_t prism_schedule_chunks(uint32_t s, uint32_t vpp)
{
    const PrismScheduleInfo *i = prism_schedule_info(s);
    return i != NULL && i->chunks != 0 ? i->chunks : vpp;
}
/** The virtual chunk (model order, 0 .. pp*chunks-1) that stage @p st runs as its chunk @p c
 *  under schedule @p s's placement. */
static inline uint32_t prism_schedule_place(uint32_t s, uint32_t pp, uint32_t st, uint32_t c)
{
    const PrismScheduleInfo *i = prism_schedule_info(s);
    const PrismPlacement place = i != NULL ? i->place : PRISM_PLACE_LOOP;
    if (place == PRISM_PLACE_V)
        return c == 0 ? st : 2 * pp - 1 - st;
    if (place == PRISM_PLACE_BIDIR)
        return c == 0 ? st : pp - 1 - st;
    return c * pp + st;
}
/** Static names: "none", "selective", "full", "block". */
const char *prism_recompute_name(PrismRecompute r);

G_END_DECLS

#endif /* PRISM_REGISTRY_H */
