// SPDX-License-Identifier: MIT
/*
 * strategy.c - text form and shape rules of one strategy (the rules are listed in
 * strategy.h and are the single definition the search enumerator is tested against).
 * Nothing here is collective.
 */
#include <prism/strategy.h>

#include <errno.h>
#include <string.h>

#include <prism/core.h>

static const char *const schedule_names[PRISM_SCHEDULE_COUNT] = {
    "1f1b", "interleaved", "gpipe", "zb-h1", "zb-v", "dualpipe", "dualpipe-v", "seq1f1b"};
static const char *const recompute_names[PRISM_RECOMPUTE_COUNT] = {"none", "selective", "full",
                                                                   "block"};

const char *prism_schedule_name(PrismSchedule s)
{
    return (unsigned)s < PRISM_SCHEDULE_COUNT ? schedule_names[s] : "?";
}

const char *prism_recompute_name(PrismRecompute r)
{
    return (unsigned)r < PRISM_RECOMPUTE_COUNT ? recompute_names[r] : "?";
}

uint32_t prism_recompute_every_nth(uint32_t per_chunk, uint32_t vpp, uint32_t k)
{
    if (vpp == 0 || k == 0 || k >= per_chunk)
        return 0;
    /* floor(Ls / N) <= k vpp exactly when N >= floor(Ls / (k vpp + 1)) + 1 */
    const uint64_t ls = (uint64_t)per_chunk * vpp, kv = (uint64_t)k * vpp;
    uint64_t n = ls / (kv + 1) + 1;
    if (n < 2)
        n = 2;
    return ls / n == kv && n <= G_MAXUINT32 ? (uint32_t)n : 0;
}

gboolean prism_schedule_parse(const char *text, PrismSchedule *out, GError **error)
{
    for (int i = 0; i < PRISM_SCHEDULE_COUNT; i++)
        if (g_ascii_strcasecmp(text, schedule_names[i]) == 0) {
            *out = (PrismSchedule)i;
            return TRUE;
        }
    static const struct {
        const char *alias;
        PrismSchedule s;
    } aliases[] = {{"zbh1", PRISM_SCHEDULE_ZB_H1},
                   {"zb_h1", PRISM_SCHEDULE_ZB_H1},
                   {"zbv", PRISM_SCHEDULE_ZB_V},
                   {"zb_v", PRISM_SCHEDULE_ZB_V},
                   {"dualpipev", PRISM_SCHEDULE_DUALPIPE_V},
                   {"dualpipe_v", PRISM_SCHEDULE_DUALPIPE_V},
                   {"seq-1f1b", PRISM_SCHEDULE_SEQ1F1B}};
    for (size_t i = 0; i < G_N_ELEMENTS(aliases); i++)
        if (g_ascii_strcasecmp(text, aliases[i].alias) == 0) {
            *out = aliases[i].s;
            return TRUE;
        }
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                "unknown schedule '%s' (allowed: 1f1b, interleaved, gpipe, zb-h1, zb-v, dualpipe, "
                "dualpipe-v, seq1f1b)",
                text);
    return FALSE;
}

gboolean prism_strategy_equal(const PrismStrategy *a, const PrismStrategy *b)
{
    return a->devices == b->devices && a->dp == b->dp && a->tp == b->tp && a->pp == b->pp &&
           a->vpp == b->vpp && a->cp == b->cp && a->ep == b->ep && a->mbs == b->mbs &&
           a->m == b->m && a->sp == b->sp && a->zero == b->zero && a->recompute == b->recompute &&
           a->schedule == b->schedule && a->rc_layers == b->rc_layers &&
           prism_strategy_etp(a) == prism_strategy_etp(b) && a->offload == b->offload &&
           a->overlap_off == b->overlap_off;
}

uint32_t prism_strategy_etp(const PrismStrategy *s)
{
    return s->etp != 0 ? s->etp : s->tp;
}

uint32_t prism_strategy_edp(const PrismStrategy *s)
{
    const uint64_t devs = (uint64_t)s->tp * s->cp * s->dp;
    const uint64_t ex = (uint64_t)prism_strategy_etp(s) * s->ep;
    return ex > 0 && devs % ex == 0 ? (uint32_t)(devs / ex) : 0;
}

uint32_t prism_strategy_folding(const PrismStrategy *s)
{
    const gboolean tied =
        prism_strategy_etp(s) == s->tp && s->ep > 0 && ((uint64_t)s->dp * s->cp) % s->ep == 0;
    return tied ? 0u : 1u;
}

static gboolean parse_u32(const char *key, const char *text, uint32_t *out, GError **error)
{
    char *end = NULL;
    errno = 0;
    guint64 v = text[0] >= '0' && text[0] <= '9' ? g_ascii_strtoull(text, &end, 10) : 0;
    if (end == NULL || end == text || *end != '\0' || errno != 0 || v > G_MAXUINT32) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "strategy key '%s': '%s' is not an integer from 0 to 4294967295", key, text);
        return FALSE;
    }
    *out = (uint32_t)v;
    return TRUE;
}

/* Which of the keys with a default or a derived value the text gave. */
typedef struct {
    gboolean dp, m, schedule;
} GivenKeys;

/* prism_strategy_parse, phase 2: the value of one KEY=VALUE item into @p s. */
static gboolean parse_item(PrismStrategy *s, const char *key, const char *val, GivenKeys *given,
                           GError **error)
{
    struct {
        const char *name;
        uint32_t *dst;
    } nums[] = {{"dp", &s->dp},           {"tp", &s->tp},  {"pp", &s->pp},   {"vpp", &s->vpp},
                {"cp", &s->cp},           {"ep", &s->ep},  {"mbs", &s->mbs}, {"m", &s->m},
                {"devices", &s->devices}, {"etp", &s->etp}};
    gboolean done = FALSE;
    for (size_t k = 0; k < G_N_ELEMENTS(nums); k++)
        if (strcmp(key, nums[k].name) == 0) {
            if (!parse_u32(key, val, nums[k].dst, error))
                return FALSE;
            given->dp |= strcmp(key, "dp") == 0;
            given->m |= strcmp(key, "m") == 0;
            done = TRUE;
        }
    if (done)
        return TRUE;
    uint32_t v = 0;
    if (strcmp(key, "sp") == 0) {
        if (g_ascii_strcasecmp(val, "on") == 0 || g_ascii_strcasecmp(val, "true") == 0)
            v = 1;
        else if (g_ascii_strcasecmp(val, "off") != 0 && g_ascii_strcasecmp(val, "false") != 0 &&
                 !parse_u32(key, val, &v, error))
            return FALSE;
        if (v > 1) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                        "strategy key 'sp': '%s' must be 0 or 1", val);
            return FALSE;
        }
        s->sp = (uint8_t)v;
    } else if (strcmp(key, "zero") == 0) {
        if (!parse_u32(key, val, &v, error))
            return FALSE;
        if (v > 3) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                        "strategy key 'zero': '%s' must be 0, 1, 2 or 3", val);
            return FALSE;
        }
        s->zero = (uint8_t)v;
    } else if (strcmp(key, "offload") == 0) {
        if (!parse_u32(key, val, &v, error))
            return FALSE;
        if (v >= PRISM_OFFLOAD_COUNT) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                        "strategy key 'offload': '%s' must be 0 (none), 1 (optimizer), "
                        "2 (activations) or 3 (both)",
                        val);
            return FALSE;
        }
        s->offload = (uint8_t)v;
    } else if (strcmp(key, "tp_overlap") == 0 || strcmp(key, "dp_overlap") == 0 ||
               strcmp(key, "param_overlap") == 0) {
        if (!parse_u32(key, val, &v, error))
            return FALSE;
        if (v > 1) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                        "strategy key '%s': '%s' must be 0 (off) or 1 (on)", key, val);
            return FALSE;
        }
        const unsigned bit = key[0] == 't'   ? PRISM_OVERLAP_TP
                             : key[0] == 'd' ? PRISM_OVERLAP_DP
                                             : PRISM_OVERLAP_PARAM;
        s->overlap_off = (uint8_t)(v ? s->overlap_off & ~bit : s->overlap_off | bit);
    } else if (strcmp(key, "recompute") == 0) {
        const char *colon = strchr(val, ':');
        g_autofree char *mode = colon ? g_strndup(val, (gsize)(colon - val)) : g_strdup(val);
        int r = -1;
        for (int i = 0; i < PRISM_RECOMPUTE_COUNT; i++)
            if (g_ascii_strcasecmp(mode, recompute_names[i]) == 0)
                r = i;
        if (r < 0 || (colon != NULL) != (r == PRISM_RECOMPUTE_BLOCK)) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                        "strategy key 'recompute': '%s' is not none, selective, full or "
                        "block:K",
                        val);
            return FALSE;
        }
        if (colon != NULL) {
            if (!parse_u32("recompute", colon + 1, &v, error))
                return FALSE;
            if (v > G_MAXUINT16) {
                g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                            "strategy key 'recompute': block:%u is too large", v);
                return FALSE;
            }
        }
        s->recompute = (uint8_t)r;
        s->rc_layers = (uint16_t)(colon ? v : 0);
    } else if (strcmp(key, "schedule") == 0) {
        PrismSchedule sch;
        if (!prism_schedule_parse(val, &sch, error))
            return FALSE;
        s->schedule = (uint8_t)sch;
        given->schedule = TRUE;
    } else {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "unknown strategy key '%s' (allowed: dp, tp, pp, vpp, cp, ep, etp, sp, "
                    "mbs, m, zero, recompute, schedule, offload, tp_overlap, dp_overlap, "
                    "param_overlap, devices)",
                    key);
        return FALSE;
    }
    return TRUE;
}

/* prism_strategy_parse, phase 3: the schedule's default and the derived keys (dp, m) the
 * text left out. */
static gboolean derive_keys(PrismStrategy *s, const GivenKeys *given, const PrismTraining *training,
                            GError **error)
{
    if (!given->schedule)
        s->schedule = s->vpp > 1 ? PRISM_SCHEDULE_INTERLEAVED : PRISM_SCHEDULE_1F1B;
    /* The derived keys: a left-out dp or m that does not come out whole is named here,
     * not later as "dp=0" by the shape rules. */
    uint64_t inner = (uint64_t)s->tp * s->pp * s->cp;
    if (!given->dp && inner > 0) {
        if (s->devices % inner != 0) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_SHAPE,
                        "dp is left out, and devices=%u is not a multiple of tp*pp*cp = "
                        "%u*%u*%u = %" G_GUINT64_FORMAT
                        " (R1: dp*tp*pp*cp = devices); give tp, pp and cp whose product "
                        "divides %u",
                        s->devices, s->tp, s->pp, s->cp, inner, s->devices);
            return FALSE;
        }
        s->dp = (uint32_t)(s->devices / inner);
    }
    uint64_t per_step = (uint64_t)s->dp * s->mbs;
    gboolean r1_holds = (uint64_t)s->dp * inner == s->devices; /* else R1 is the message */
    if (!given->m && per_step > 0 && (r1_holds || training->gbs % per_step == 0)) {
        if (training->gbs % per_step != 0) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_SHAPE,
                        "m is left out, and gbs=%" G_GUINT64_FORMAT
                        " is not a multiple of dp*mbs = %u*%u = %" G_GUINT64_FORMAT
                        " (R8: dp*mbs*m = gbs); change --gbs, dp or mbs",
                        training->gbs, s->dp, s->mbs, per_step);
            return FALSE;
        }
        s->m = (uint32_t)(training->gbs / per_step);
    }
    return TRUE;
}

/* Phase 1: the items, each KEY=VALUE and each key once; phase 2 (parse_item) reads each
 * value, phase 3 (derive_keys) fills in what the text left out. */
gboolean prism_strategy_parse(const char *text, uint32_t devices, const PrismTraining *training,
                              PrismStrategy *out, GError **error)
{
    PrismStrategy s = {.devices = devices, .tp = 1, .pp = 1, .vpp = 1, .cp = 1, .ep = 1, .mbs = 1};
    GivenKeys given = {FALSE, FALSE, FALSE};
    g_auto(GStrv) items = g_strsplit(text, ",", -1);
    g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
    for (char **it = items; *it != NULL; it++) {
        char *item = g_strstrip(*it);
        if (*item == '\0')
            continue;
        char *eq = strchr(item, '=');
        if (eq == NULL) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                        "strategy item '%s' is not KEY=VALUE", item);
            return FALSE;
        }
        *eq = '\0';
        const char *key = g_strstrip(item), *val = g_strstrip(eq + 1);
        if (!g_hash_table_add(seen, (gpointer)key)) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT,
                        "strategy key '%s' is given twice", key);
            return FALSE;
        }
        if (!parse_item(&s, key, val, &given, error))
            return FALSE;
    }
    if (!derive_keys(&s, &given, training, error))
        return FALSE;
    *out = s;
    return TRUE;
}

char *prism_strategy_format(const PrismStrategy *s)
{
    g_autofree char *rc = s->recompute == PRISM_RECOMPUTE_BLOCK
                              ? g_strdup_printf("block:%u", (unsigned)s->rc_layers)
                              : g_strdup(prism_recompute_name((PrismRecompute)s->recompute));
    const uint32_t etp = prism_strategy_etp(s);
    g_autofree char *etp_text = etp != s->tp ? g_strdup_printf(",etp=%u", etp) : g_strdup("");
    g_autofree char *off_text =
        s->offload != 0 ? g_strdup_printf(",offload=%u", (unsigned)s->offload) : g_strdup("");
    const unsigned ov = s->overlap_off;
    g_autofree char *ov_text =
        g_strdup_printf("%s%s%s", ov & PRISM_OVERLAP_TP ? ",tp_overlap=0" : "",
                        ov & PRISM_OVERLAP_DP ? ",dp_overlap=0" : "",
                        ov & PRISM_OVERLAP_PARAM ? ",param_overlap=0" : "");
    return g_strdup_printf("dp=%u,tp=%u,pp=%u,vpp=%u,cp=%u,ep=%u%s,sp=%u,mbs=%u,m=%u,zero=%u,"
                           "recompute=%s,schedule=%s%s%s",
                           s->dp, s->tp, s->pp, s->vpp, s->cp, s->ep, etp_text, (unsigned)s->sp,
                           s->mbs, s->m, (unsigned)s->zero, rc,
                           prism_schedule_name((PrismSchedule)s->schedule), off_text, ov_text);
}

uint32_t prism_model_split_layers(const PrismModel *model)
{
    return prism_model_n_blocks(model) + prism_model_n_mtp(model);
}

#define SHAPE_FAIL(...)                                                                            \
    do {                                                                                           \
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_SHAPE, __VA_ARGS__);               \
        return FALSE;                                                                              \
    } while (0)

gboolean prism_strategy_ssm_ok(const PrismBlockSpec *sp, uint32_t tp, uint32_t cp, GError **error)
{
    const PrismSsmSpec *m = &sp->ssm;
    if (sp->mixer == PRISM_MIXER_MAMBA2) {
        /* Megatron-Core MambaMixer: heads and groups split over tp; MambaContextParallel:
         * each cp rank takes heads/(tp cp) heads and groups/tp/cp groups (or, when fewer
         * groups than cp ranks, cp a multiple of groups/tp and the groups repeated) */
        if (m->n_heads % tp != 0 || m->n_groups % tp != 0)
            SHAPE_FAIL("R2: tp=%u must divide the Mamba-2 heads=%u and groups=%u", tp, m->n_heads,
                       m->n_groups);
        const uint32_t gl = m->n_groups / tp;
        if ((m->n_heads / tp) % cp != 0 || (gl % cp != 0 && cp % gl != 0))
            SHAPE_FAIL("R3: cp=%u with tp=%u: Mamba-2's all-to-all context parallelism needs "
                       "heads/tp=%u divisible by cp and groups/tp=%u and cp dividing one another",
                       cp, tp, m->n_heads / tp, gl);
    } else if (sp->mixer == PRISM_MIXER_GDN) {
        if (m->n_heads % tp != 0 || m->n_groups % tp != 0)
            SHAPE_FAIL("R2: tp=%u must divide the gated-DeltaNet key heads=%u and value heads=%u",
                       tp, m->n_groups, m->n_heads);
        if (cp > 1)
            SHAPE_FAIL("R3: cp=%u: no framework runs context parallelism over gated-DeltaNet "
                       "layers (Megatron-Core's GatedDeltaNet has none); use cp=1",
                       cp);
    }
    return TRUE;
}

/* prism_strategy_check, phase 1 (R1-R5): how the devices split, and the tensor and
 * expert shapes each split must divide. */
static gboolean check_split(const PrismStrategy *s, const PrismModel *model, const PrismTraining *t,
                            GError **error)
{
    /* R1 */
    if (s->devices == 0 || s->dp == 0 || s->tp == 0 || s->pp == 0 || s->vpp == 0 || s->cp == 0 ||
        s->ep == 0 || s->mbs == 0 || s->m == 0)
        SHAPE_FAIL("R1: every dimension must be >= 1 (devices=%u dp=%u tp=%u pp=%u vpp=%u "
                   "cp=%u ep=%u mbs=%u m=%u)",
                   s->devices, s->dp, s->tp, s->pp, s->vpp, s->cp, s->ep, s->mbs, s->m);
    if ((uint64_t)s->dp * s->tp * s->pp * s->cp != s->devices)
        SHAPE_FAIL("R1: dp*tp*pp*cp = %u*%u*%u*%u must equal devices=%u", s->dp, s->tp, s->pp,
                   s->cp, s->devices);
    /* R2 */
    const uint32_t etp = prism_strategy_etp(s);
    for (uint32_t i = 0; i < model->n_specs; i++) {
        const PrismAttnSpec *a = &model->specs[i].attn;
        const PrismMlpSpec *p = &model->specs[i].mlp;
        if (a->n_heads % s->tp != 0)
            SHAPE_FAIL("R2: tp=%u does not divide heads=%u", s->tp, a->n_heads);
        if (a->kind == PRISM_ATTN_STANDARD && a->n_kv_heads % s->tp != 0 &&
            s->tp % a->n_kv_heads != 0)
            SHAPE_FAIL("R2: tp=%u and kv_heads=%u: one must divide the other", s->tp,
                       a->n_kv_heads);
        if (p->n_experts == 0 && p->ffn_hidden % s->tp != 0)
            SHAPE_FAIL("R2: tp=%u does not divide ffn_hidden=%" G_GUINT64_FORMAT, s->tp,
                       p->ffn_hidden);
        if (p->n_experts > 0 && p->expert_hidden % etp != 0)
            SHAPE_FAIL("R2: etp=%u does not divide expert_hidden=%" G_GUINT64_FORMAT, etp,
                       p->expert_hidden);
        if (p->n_experts > 0 && p->n_shared > 0 && p->shared_hidden % s->tp != 0)
            SHAPE_FAIL("R2: tp=%u does not divide shared_hidden=%" G_GUINT64_FORMAT, s->tp,
                       p->shared_hidden);
        if (!prism_strategy_ssm_ok(&model->specs[i], s->tp, s->cp, error))
            return FALSE;
    }
    /* R3 */
    if (s->cp > 1 && t->seq % (2u * s->cp) != 0)
        SHAPE_FAIL("R3: cp=%u needs seq=%" G_GUINT64_FORMAT " divisible by 2*cp", s->cp, t->seq);
    /* R4 */
    if (s->sp > 1)
        SHAPE_FAIL("R4: sp=%u must be 0 or 1", (unsigned)s->sp);
    if (s->sp == 1 && s->tp == 1)
        SHAPE_FAIL("R4: sp=1 needs tp > 1");
    if (s->sp == 1 && (t->seq / s->cp) % s->tp != 0)
        SHAPE_FAIL("R4: sp=1 needs seq/cp=%" G_GUINT64_FORMAT " divisible by tp=%u", t->seq / s->cp,
                   s->tp);
    /* R5 */
    if (!prism_model_is_moe(model) && s->ep != 1)
        SHAPE_FAIL("R5: ep=%u but the model has no experts (ep must be 1)", s->ep);
    if (!prism_model_is_moe(model) && etp != s->tp)
        SHAPE_FAIL("R5: etp=%u but the model has no experts (etp must equal tp=%u)", etp, s->tp);
    for (uint32_t i = 0; i < model->n_specs; i++) {
        uint32_t e = model->specs[i].mlp.n_experts;
        if (e > 0 && e % s->ep != 0)
            SHAPE_FAIL("R5: ep=%u does not divide experts=%u", s->ep, e);
    }
    if (((uint64_t)s->tp * s->cp * s->dp) % ((uint64_t)etp * s->ep) != 0)
        SHAPE_FAIL("R5: etp*ep = %u*%u does not divide tp*cp*dp = %u*%u*%u (the expert part "
                   "folds into the attention part's devices)",
                   etp, s->ep, s->tp, s->cp, s->dp);
    return TRUE;
}

/* Phase 2 (R6-R8): the pipeline: layers per stage and chunk, the schedule, the
 * micro-batches it needs. @p L: the model's layers (prism_model_split_layers). */
static gboolean check_pipeline(const PrismStrategy *s, uint32_t L, const PrismTraining *t,
                               GError **error)
{
    /* R6 */
    if (s->pp > L)
        SHAPE_FAIL("R6: pp=%u exceeds the %u layers", s->pp, L);
    if ((uint64_t)s->pp * s->vpp > L)
        SHAPE_FAIL("R6: pp*vpp=%u*%u exceeds the %u layers", s->pp, s->vpp, L);
    if (s->vpp > 1 && s->pp == 1)
        SHAPE_FAIL("R6: vpp=%u needs pp > 1", s->vpp);
    if (s->vpp > PRISM_VPP_MAX)
        SHAPE_FAIL("R6: vpp=%u exceeds the %u model chunks per stage prism prices", s->vpp,
                   PRISM_VPP_MAX);
    /* R7 */
    if (s->schedule >= PRISM_SCHEDULE_COUNT)
        SHAPE_FAIL("R7: unknown schedule code %u", (unsigned)s->schedule);
    if (s->pp == 1 && s->schedule != PRISM_SCHEDULE_1F1B)
        SHAPE_FAIL("R7: pp=1 has no pipeline schedule (use schedule=1f1b), got %s",
                   prism_schedule_name((PrismSchedule)s->schedule));
    {
        const PrismSchedule sch = (PrismSchedule)s->schedule;
        const gboolean v_shape = sch == PRISM_SCHEDULE_ZB_V || sch == PRISM_SCHEDULE_DUALPIPE_V;
        if (sch == PRISM_SCHEDULE_INTERLEAVED && s->vpp < 2)
            SHAPE_FAIL("R7: schedule=interleaved needs vpp > 1, got vpp=%u", s->vpp);
        if (v_shape && s->vpp != 2)
            SHAPE_FAIL("R7: schedule=%s runs two model chunks per device in a V: vpp must be 2, "
                       "got vpp=%u",
                       prism_schedule_name(sch), s->vpp);
        if (sch != PRISM_SCHEDULE_INTERLEAVED && !v_shape && s->vpp != 1)
            SHAPE_FAIL("R7: schedule=%s with vpp=%u (vpp > 1 needs interleaved, or vpp = 2 with "
                       "zb-v or dualpipe-v)",
                       prism_schedule_name(sch), s->vpp);
        if (sch == PRISM_SCHEDULE_DUALPIPE && s->pp % 2 != 0)
            SHAPE_FAIL("R7: schedule=dualpipe needs an even pp (device s holds stages s and "
                       "pp-1-s), got pp=%u",
                       s->pp);
    }
    /* R8 */
    if ((uint64_t)s->dp * s->mbs * s->m != t->gbs)
        SHAPE_FAIL("R8: dp*mbs*m = %u*%u*%u must equal gbs=%" G_GUINT64_FORMAT, s->dp, s->mbs, s->m,
                   t->gbs);
    /* 1F1B and GPipe run any m >= 1 (Megatron runs 1F1B with m < pp: the warm-up is
     * min(pp - s - 1, m) forwards, and stage s holds min(pp - s, m) micro-batches).
     * Megatron's interleaved order needs whole rounds of pp micro-batches (m % pp == 0,
     * hence m >= pp). ZB-H1's bubble, (pp-1)(F+B-2W) (Qi et al. 2024), fills the
     * cool-down with the W passes of pp-1 micro-batches, so it keeps m >= pp. */
    if (s->schedule == PRISM_SCHEDULE_INTERLEAVED && s->m % s->pp != 0)
        SHAPE_FAIL("R8: interleaved schedule needs m=%u to be a multiple of pp=%u (so m >= pp); "
                   "1f1b and gpipe accept any m",
                   s->m, s->pp);
    if (s->schedule == PRISM_SCHEDULE_ZB_H1 && s->m < s->pp)
        SHAPE_FAIL("R8: zb-h1 needs m=%u micro-batches >= pp=%u (its bubble formula fills the "
                   "cool-down with pp-1 W passes); 1f1b and gpipe accept any m",
                   s->m, s->pp);
    /* ZB-V and DualPipeV fill their V warm-up with 2(pp - s - 1) + s + 1 forwards of the
     * two chunks, and DeepSeek's DualPipe / DualPipeV assert num_chunks >= 2 * num_ranks
     * (DualPipe also an even count: half the micro-batches enter from each end). */
    if ((s->schedule == PRISM_SCHEDULE_ZB_V || s->schedule == PRISM_SCHEDULE_DUALPIPE_V ||
         s->schedule == PRISM_SCHEDULE_DUALPIPE) &&
        (uint64_t)s->m < 2ull * s->pp)
        SHAPE_FAIL("R8: %s needs m=%u micro-batches >= 2*pp=%u; 1f1b, gpipe and seq1f1b accept "
                   "any m",
                   prism_schedule_name((PrismSchedule)s->schedule), s->m, 2 * s->pp);
    if (s->schedule == PRISM_SCHEDULE_DUALPIPE && s->m % 2 != 0)
        SHAPE_FAIL("R8: dualpipe needs an even m (half the micro-batches enter from each end), "
                   "got m=%u",
                   s->m);
    return TRUE;
}

/* Phase 3 (R9-R12): the memory and overlap options: ZeRO, recompute, offload, overlap. */
static gboolean check_options(const PrismStrategy *s, uint32_t L, GError **error)
{
    /* R9 */
    if (s->zero > 3)
        SHAPE_FAIL("R9: zero=%u must be 0..3", (unsigned)s->zero);
    if (s->zero > 0 && (uint64_t)s->dp * s->cp == 1)
        SHAPE_FAIL("R9: zero=%u needs a sharding group dp*cp > 1", (unsigned)s->zero);
    /* R10 */
    if (s->recompute >= PRISM_RECOMPUTE_COUNT)
        SHAPE_FAIL("R10: unknown recompute code %u", (unsigned)s->recompute);
    uint32_t chunks = s->pp * s->vpp, per_chunk = (L + chunks - 1) / chunks;
    if (s->recompute == PRISM_RECOMPUTE_BLOCK && (s->rc_layers < 1 || s->rc_layers >= per_chunk))
        SHAPE_FAIL("R10: recompute=block:%u needs 1 <= k < %u (layers per chunk; use full)",
                   (unsigned)s->rc_layers, per_chunk);
    if (s->recompute != PRISM_RECOMPUTE_BLOCK && s->rc_layers != 0)
        SHAPE_FAIL("R10: rc_layers=%u is only meaningful with recompute=block",
                   (unsigned)s->rc_layers);
    /* R11 */
    if (s->offload >= PRISM_OFFLOAD_COUNT)
        SHAPE_FAIL("R11: offload=%u must be 0..3 (1 optimizer, 2 activations, 3 both)",
                   (unsigned)s->offload);
    /* R12 */
    if (s->overlap_off > PRISM_OVERLAP_ALL)
        SHAPE_FAIL("R12: unknown overlap bits %u", (unsigned)s->overlap_off);
    if ((s->overlap_off & PRISM_OVERLAP_TP) && !prism_strategy_overlap_applies(s, PRISM_OVERLAP_TP))
        SHAPE_FAIL("R12: tp_overlap=0 needs tp > 1 and sp=1 (tp=%u, sp=%u: nothing to overlap)",
                   s->tp, (unsigned)s->sp);
    if ((s->overlap_off & PRISM_OVERLAP_DP) && !prism_strategy_overlap_applies(s, PRISM_OVERLAP_DP))
        SHAPE_FAIL("R12: dp_overlap=0 needs dp*cp > 1 and zero < 3 (dp=%u, cp=%u, zero=%u)", s->dp,
                   s->cp, (unsigned)s->zero);
    if ((s->overlap_off & PRISM_OVERLAP_PARAM) &&
        !prism_strategy_overlap_applies(s, PRISM_OVERLAP_PARAM))
        SHAPE_FAIL("R12: param_overlap=0 needs dp*cp > 1 and zero 1 or 2 (dp=%u, cp=%u, zero=%u)",
                   s->dp, s->cp, (unsigned)s->zero);
    return TRUE;
}

gboolean prism_strategy_check(const PrismStrategy *s, const PrismModel *model,
                              const PrismTraining *t, GError **error)
{
    const uint32_t L = prism_model_split_layers(model);
    return check_split(s, model, t, error) && check_pipeline(s, L, t, error) &&
           check_options(s, L, error);
}

gboolean prism_strategy_overlap_applies(const PrismStrategy *s, PrismOverlap bit)
{
    const gboolean data = (uint64_t)s->dp * s->cp > 1;
    switch (bit) {
    case PRISM_OVERLAP_TP:
        return s->tp > 1 && s->sp == 1;
    case PRISM_OVERLAP_DP:
        return data && s->zero < 3;
    case PRISM_OVERLAP_PARAM:
        return data && (s->zero == 1 || s->zero == 2);
    default:
        return FALSE;
    }
}
