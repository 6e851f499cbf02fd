// SPDX-License-Identifier: MIT
/*
 * registry.c - the rows of the strategy dims and the pipeline schedules (registry.h).
 * Static data; nothing here is collective.
 */
#include <prism/registry.h>

#include <prism/core.h>

static const char *const schedule_codes[PRISM_SCHEDULE_COUNT] = {
    "1f1b", "interleaved", "gpipe", "zb-h1", "zb-v", "dualpipe", "dualpipe-v", "seq1f1b"};
static const char *const recompute_codes[PRISM_RECOMPUTE_COUNT] = {"none", "selective", "full",
                                                                   "block"};

#define COUNT(...) .lo = 1, .hi = G_MAXUINT32, .allowed = "an integer >= 1", __VA_ARGS__

static const PrismDimInfo dims[PRISM_DIM_COUNT] = {
    [PRISM_DIM_DEVICES] = {"devices", "n", "device count N", PRISM_DIM_STRUCTURAL, 4, 0, TRUE,
                           COUNT()},
    [PRISM_DIM_PP] = {"pp", NULL, "pipeline stages", PRISM_DIM_STRUCTURAL, 4, 0, TRUE, COUNT()},
    [PRISM_DIM_VPP] = {"vpp", NULL, "virtual pipeline chunks per stage", PRISM_DIM_STRUCTURAL, 4, 0,
                       TRUE, COUNT()},
    [PRISM_DIM_SCHEDULE] = {"schedule", NULL, "schedule", PRISM_DIM_STRUCTURAL, 1, 0, TRUE, 0,
                            PRISM_SCHEDULE_COUNT - 1, "a schedule name", schedule_codes,
                            PRISM_SCHEDULE_COUNT},
    [PRISM_DIM_RECOMPUTE] = {"recompute", NULL, "recompute", PRISM_DIM_STRUCTURAL, 1, 0, TRUE, 0,
                             PRISM_RECOMPUTE_COUNT - 1, "none, selective, full, block or block:K",
                             recompute_codes, PRISM_RECOMPUTE_COUNT},
    [PRISM_DIM_RC_LAYERS] = {"rc_layers", "k",
                             "k of recompute=block (full on the first k layers per chunk)",
                             PRISM_DIM_STRUCTURAL, 2, 0, FALSE, 1, G_MAXUINT16,
                             "an integer between 1 and 65535", NULL, 0},
    [PRISM_DIM_TP] = {"tp", NULL, "tensor-parallel degree", PRISM_DIM_LANE, 4, 0, TRUE, COUNT()},
    [PRISM_DIM_CP] = {"cp", NULL, "context-parallel degree", PRISM_DIM_LANE, 4, 0, TRUE, COUNT()},
    [PRISM_DIM_DP] = {"dp", NULL, "data-parallel degree", PRISM_DIM_DERIVED, 4, 0, TRUE, COUNT()},
    [PRISM_DIM_EP] = {"ep", NULL, "expert-parallel degree", PRISM_DIM_LANE, 4, 0, TRUE, COUNT()},
    [PRISM_DIM_SP] = {"sp", NULL, "Megatron sequence parallel (0/1)", PRISM_DIM_LANE, 1, 0, TRUE, 0,
                      1, "0, 1, on or off", NULL, 0},
    [PRISM_DIM_MBS] = {"mbs", NULL, "micro-batch size in sequences", PRISM_DIM_LANE, 4, 0, TRUE,
                       COUNT()},
    [PRISM_DIM_M] = {"m", NULL, "micro-batches per step", PRISM_DIM_DERIVED, 4, 0, TRUE, COUNT()},
    [PRISM_DIM_ZERO] = {"zero", NULL, "ZeRO stage 0..3", PRISM_DIM_LANE, 1, 0, TRUE, 0, 3,
                        "0, 1, 2 or 3", NULL, 0},
    [PRISM_DIM_ETP] = {"etp", NULL, "expert tensor-parallel degree (etp; = tp when tied or dense)",
                       PRISM_DIM_LANE, 4, 0, TRUE, COUNT(.quiet = PRISM_TEXT_UNLESS_TP)},
    [PRISM_DIM_FOLDING] = {"folding", NULL,
                           "parallel folding: 0 tied (etp = tp, ep divides dp*cp), 1 folded",
                           PRISM_DIM_DERIVED, 1, 0, FALSE, 0, 1,
                           "0 (tied: etp = tp, ep divides dp*cp) or 1 (folded)", NULL, 0},
    [PRISM_DIM_OFFLOAD] = {"offload", NULL,
                           "offload to host memory: 0 none, 1 optimizer state, 2 activations, "
                           "3 both",
                           PRISM_DIM_STRUCTURAL, 1, 0, TRUE, 0, PRISM_OFFLOAD_COUNT - 1,
                           "0 (none), 1 (optimizer), 2 (activations) or 3 (both)", NULL, 0,
                           PRISM_TEXT_UNLESS_0},
    [PRISM_DIM_TP_OVERLAP] = {"tp_overlap", NULL,
                              "TP communication overlap: 1 on (tp_overlap knob hidden), 0 off; 1 "
                              "where tp = 1 or sp = 0",
                              PRISM_DIM_LANE, 1, PRISM_OVERLAP_TP, TRUE, 0, 1, "0 (off) or 1 (on)",
                              NULL, 0, PRISM_TEXT_UNLESS_1},
    [PRISM_DIM_DP_OVERLAP] = {"dp_overlap", NULL,
                              "gradient-reduce overlap: 1 on (dp_overlap knob hidden), 0 off; 1 "
                              "where dp*cp = 1 or zero = 3",
                              PRISM_DIM_LANE, 1, PRISM_OVERLAP_DP, TRUE, 0, 1, "0 (off) or 1 (on)",
                              NULL, 0, PRISM_TEXT_UNLESS_1},
    [PRISM_DIM_PARAM_OVERLAP] = {"param_overlap", NULL,
                                 "parameter-gather overlap: 1 on (dp_overlap knob hidden), 0 off; "
                                 "1 where dp*cp = 1 or zero is 0 or 3",
                                 PRISM_DIM_LANE, 1, PRISM_OVERLAP_PARAM, TRUE, 0, 1,
                                 "0 (off) or 1 (on)", NULL, 0, PRISM_TEXT_UNLESS_1},
};

const PrismDim prism_dim_user_order[PRISM_DIM_COUNT] = {
    PRISM_DIM_DEVICES,   PRISM_DIM_DP,         PRISM_DIM_TP,         PRISM_DIM_PP,
    PRISM_DIM_VPP,       PRISM_DIM_CP,         PRISM_DIM_EP,         PRISM_DIM_ETP,
    PRISM_DIM_SP,        PRISM_DIM_MBS,        PRISM_DIM_M,          PRISM_DIM_ZERO,
    PRISM_DIM_RECOMPUTE, PRISM_DIM_RC_LAYERS,  PRISM_DIM_SCHEDULE,   PRISM_DIM_FOLDING,
    PRISM_DIM_OFFLOAD,   PRISM_DIM_TP_OVERLAP, PRISM_DIM_DP_OVERLAP, PRISM_DIM_PARAM_OVERLAP,
};

const PrismDim prism_dim_json_order[PRISM_DIM_COUNT] = {
    PRISM_DIM_DEVICES, PRISM_DIM_DP,         PRISM_DIM_TP,         PRISM_DIM_PP,
    PRISM_DIM_VPP,     PRISM_DIM_CP,         PRISM_DIM_EP,         PRISM_DIM_ETP,
    PRISM_DIM_SP,      PRISM_DIM_MBS,        PRISM_DIM_M,          PRISM_DIM_ZERO,
    PRISM_DIM_FOLDING, PRISM_DIM_RECOMPUTE,  PRISM_DIM_RC_LAYERS,  PRISM_DIM_SCHEDULE,
    PRISM_DIM_OFFLOAD, PRISM_DIM_TP_OVERLAP, PRISM_DIM_DP_OVERLAP, PRISM_DIM_PARAM_OVERLAP,
};

const PrismDimInfo *prism_dim_info(PrismDim dim)
{
    return (unsigned)dim < PRISM_DIM_COUNT ? &dims[dim] : NULL;
}

const char *prism_dim_name(PrismDim dim)
{
    return (unsigned)dim < PRISM_DIM_COUNT ? dims[dim].name : "?";
}

gboolean prism_dim_lookup(const char *name, PrismDim *out, GError **error)
{
    for (int i = 0; i < PRISM_DIM_COUNT; i++)
        if (g_ascii_strcasecmp(name, dims[i].name) == 0) {
            *out = (PrismDim)i;
            return TRUE;
        }
    for (int i = 0; i < PRISM_DIM_COUNT; i++)
        if (dims[i].alias != NULL && g_ascii_strcasecmp(name, dims[i].alias) == 0) {
            *out = (PrismDim)i;
            return TRUE;
        }
    const char *names[PRISM_DIM_COUNT];
    GString *all = g_string_new(NULL);
    for (int i = 0; i < PRISM_DIM_COUNT; i++) {
        names[i] = dims[i].name;
        g_string_append_printf(all, "%s%s", i ? ", " : "", dims[i].name);
    }
    g_autofree char *close = prism_close_names(name, names, PRISM_DIM_COUNT, 3);
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                "unknown dimension '%s' (closest: %s; allowed: %s)", name, close, all->str);
    g_string_free(all, TRUE);
    return FALSE;
}

char *prism_dim_value_text(PrismDim dim, uint64_t value)
{
    const PrismDimInfo *d = prism_dim_info(dim);
    if (d != NULL && d->codes != NULL)
        return g_strdup(value < d->n_codes ? d->codes[value] : "?");
    return g_strdup_printf("%" G_GUINT64_FORMAT, value);
}

/* The schedules. Their in-flight counts per stage and chunk are formulas of
 * cost/cost_stages.c (schedule_states); the derivations and sources are in cost/README.md
 * ("In-flight micro-batches", "Step"). R8's micro-batch rules: 1F1B, GPipe and seq1F1B run
 * any m (Megatron runs 1F1B with m < pp); Megatron's interleaved order needs whole rounds
 * of pp micro-batches; ZB-H1's bubble (pp-1)(F+B-2W) (Qi et al. 2024) fills the cool-down
 * with the W passes of pp-1 micro-batches (m >= pp); ZB-V and DualPipeV fill their V
 * warm-up with 2(pp-s-1)+s+1 forwards, and DeepSeek's DualPipe / DualPipeV assert
 * num_chunks >= 2 * num_ranks (DualPipe also an even count: half enter from each end). */
static const PrismScheduleInfo schedules[PRISM_SCHEDULE_COUNT] = {
    [PRISM_SCHEDULE_1F1B] = {.name = "1f1b",
                             .single_stage = TRUE,
                             .vpp = PRISM_VPP_ONE,
                             .m = PRISM_M_ANY,
                             .place = PRISM_PLACE_LOOP,
                             .bub_sum = 1.0,
                             .bub_scale = PRISM_BUBBLE_PER_VPP,
                             .m_share = 1.0,
                             .refined = TRUE,
                             .moving = 0,
                             .inflight = "min(p-s, m)",
                             .bubble = "sum_s u_s - max_s u_s, u_s = T_s"},
    [PRISM_SCHEDULE_INTERLEAVED] = {.name = "interleaved",
                                    .vpp = PRISM_VPP_MANY,
                                    .m = PRISM_M_MULTIPLE_PP,
                                    .place = PRISM_PLACE_LOOP,
                                    .regimes = TRUE,
                                    .bub_sum = 1.0,
                                    .bub_scale = PRISM_BUBBLE_PER_VPP,
                                    .m_share = 1.0,
                                    .refined = TRUE,
                                    .moving = 2,
                                    .inflight =
                                        "Megatron's interleaved order, every state after a forward",
                                    .bubble = "(sum_s u_s - max_s u_s) / vpp, u_s = T_s"},
    [PRISM_SCHEDULE_GPIPE] = {.name = "gpipe",
                              .vpp = PRISM_VPP_ONE,
                              .m = PRISM_M_ANY,
                              .place = PRISM_PLACE_LOOP,
                              .holds_m = TRUE,
                              .bub_sum = 1.0,
                              .bub_scale = PRISM_BUBBLE_PER_VPP,
                              .m_share = 1.0,
                              .refined = TRUE,
                              .moving = 1,
                              .inflight = "m",
                              .bubble = "sum_s u_s - max_s u_s, u_s = T_s"},
    [PRISM_SCHEDULE_ZB_H1] = {.name = "zb-h1",
                              .aliases = {"zbh1", "zb_h1"},
                              .vpp = PRISM_VPP_ONE,
                              .m = PRISM_M_AT_LEAST_PP,
                              .place = PRISM_PLACE_LOOP,
                              .bub_sum = 1.0,
                              .bub_w = 2.0,
                              .bub_scale = PRISM_BUBBLE_PER_VPP,
                              .m_share = 1.0,
                              .refined = TRUE,
                              .moving = 4,
                              .inflight = "min(p-s, m)",
                              .bubble = "sum_s u_s - max_s u_s, u_s = T_s - 2 W_s"},
    [PRISM_SCHEDULE_ZB_V] = {.name = "zb-v",
                             .aliases = {"zbv", "zb_v"},
                             .vpp = PRISM_VPP_TWO,
                             .m = PRISM_M_AT_LEAST_2PP,
                             .place = PRISM_PLACE_V,
                             .bub_sum = 1.0,
                             .bub_w = 3.0,
                             .bub_scale = PRISM_BUBBLE_HALF,
                             .m_share = 1.0,
                             .moving = 5,
                             .inflight = "chunks s, 2p-1-s: (2p-1-s, s+1) or (2p-s, s)",
                             .bubble = "max(0, sum_s u_s - max_s u_s) / 2, u_s = T_s - 3 W_s"},
    [PRISM_SCHEDULE_DUALPIPE] = {.name = "dualpipe",
                                 .vpp = PRISM_VPP_ONE,
                                 .pp_even = TRUE,
                                 .m = PRISM_M_EVEN_2PP,
                                 .chunks = 2,
                                 .place = PRISM_PLACE_BIDIR,
                                 .bub_sum = 0.5,
                                 .bub_w = 3.0,
                                 .bub_scale = PRISM_BUBBLE_HALF,
                                 .m_share = 0.5,
                                 .hide = 1.0,
                                 .moving = 7,
                                 .inflight = "stages s, p-1-s of the two directions: (p-s, s+1)",
                                 .bubble =
                                     "max(0, sum_s u_s / 2 - max_s u_s) / 2, u_s = T_s - 3 W_s"},
    [PRISM_SCHEDULE_DUALPIPE_V] = {.name = "dualpipe-v",
                                   .aliases = {"dualpipev", "dualpipe_v"},
                                   .vpp = PRISM_VPP_TWO,
                                   .m = PRISM_M_AT_LEAST_2PP,
                                   .place = PRISM_PLACE_V,
                                   .bub_sum = 1.0,
                                   .bub_w = 3.0,
                                   .bub_scale = PRISM_BUBBLE_HALF,
                                   .m_share = 1.0,
                                   .hide = 1.0,
                                   .moving = 6,
                                   .inflight = "chunks s, 2p-1-s: (2p-s, s+1)",
                                   .bubble =
                                       "max(0, sum_s u_s - max_s u_s) / 2, u_s = T_s - 3 W_s"},
    [PRISM_SCHEDULE_SEQ1F1B] = {.name = "seq1f1b",
                                .aliases = {"seq-1f1b"},
                                .vpp = PRISM_VPP_ONE,
                                .m = PRISM_M_ANY,
                                .place = PRISM_PLACE_LOOP,
                                .bub_sum = 1.0,
                                .bub_scale = PRISM_BUBBLE_PER_SPLIT,
                                .m_share = 1.0,
                                .moving = 3,
                                .inflight = "(p-s+k-1)/k, k = seq1f1b_splits",
                                .bubble = "(sum_s u_s - max_s u_s) / k, u_s = T_s, k = "
                                          "seq1f1b_splits"},
};

const PrismScheduleInfo *prism_schedule_info(uint32_t s)
{
    return s < PRISM_SCHEDULE_COUNT ? &schedules[s] : NULL;
}

const char *prism_schedule_name(PrismSchedule s)
{
    return (unsigned)s < PRISM_SCHEDULE_COUNT ? schedules[s].name : "?";
}

gboolean prism_schedule_parse(const char *text, PrismSchedule *out, GError **error)
{
    for (int i = 0; i < PRISM_SCHEDULE_COUNT; i++)
        if (g_ascii_strcasecmp(text, schedules[i].name) == 0) {
            *out = (PrismSchedule)i;
            return TRUE;
        }
    for (int i = 0; i < PRISM_SCHEDULE_COUNT; i++)
        for (size_t a = 0; a < G_N_ELEMENTS(schedules[i].aliases); a++)
            if (schedules[i].aliases[a] != NULL &&
                g_ascii_strcasecmp(text, schedules[i].aliases[a]) == 0) {
                *out = (PrismSchedule)i;
                return TRUE;
            }
    GString *all = g_string_new(NULL);
    for (int i = 0; i < PRISM_SCHEDULE_COUNT; i++)
        g_string_append_printf(all, "%s%s", i ? ", " : "", schedules[i].name);
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                "unknown schedule '%s' (allowed: %s)", text, all->str);
    g_string_free(all, TRUE);
    return FALSE;
}

gboolean prism_schedule_m_ok(PrismMRule rule, uint64_t m, uint64_t pp)
{
    switch (rule) {
    case PRISM_M_ANY:
        return TRUE;
    case PRISM_M_MULTIPLE_PP:
        return m % pp == 0;
    case PRISM_M_AT_LEAST_PP:
        return m >= pp;
    case PRISM_M_AT_LEAST_2PP:
        return m >= 2 * pp;
    case PRISM_M_EVEN_2PP:
        return m >= 2 * pp && m % 2 == 0;
    }
    return FALSE;
}

const char *prism_recompute_name(PrismRecompute r)
{
    return (unsigned)r < PRISM_RECOMPUTE_COUNT ? recompute_codes[r] : "?";
}
