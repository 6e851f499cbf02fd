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

void prism_strategy_set_dim(PrismStrategy *s, PrismDim dim, uint32_t v)
{
    switch (dim) {
    case PRISM_DIM_SCHEDULE:
        s->schedule = (uint8_t)v;
        break;
    case PRISM_DIM_RECOMPUTE:
        s->recompute = (uint8_t)v;
        break;
    case PRISM_DIM_RC_LAYERS:
        s->rc_layers = (uint16_t)v;
        break;
    case PRISM_DIM_DEVICES:
        s->devices = v;
        break;
    case PRISM_DIM_PP:
        s->pp = v;
        break;
    case PRISM_DIM_VPP:
        s->vpp = v;
        break;
    case PRISM_DIM_TP:
        s->tp = v;
        break;
    case PRISM_DIM_CP:
        s->cp = v;
        break;
    case PRISM_DIM_DP:
        s->dp = v;
        break;
    case PRISM_DIM_EP:
        s->ep = v;
        break;
    case PRISM_DIM_SP:
        s->sp = (uint8_t)v;
        break;
    case PRISM_DIM_MBS:
        s->mbs = v;
        break;
    case PRISM_DIM_M:
        s->m = v;
        break;
    case PRISM_DIM_ZERO:
        s->zero = (uint8_t)v;
        break;
    case PRISM_DIM_ETP:
        s->etp = v;
        break;
    case PRISM_DIM_OFFLOAD:
        s->offload = (uint8_t)v;
        break;
    case PRISM_DIM_TP_OVERLAP:
    case PRISM_DIM_DP_OVERLAP:
    case PRISM_DIM_PARAM_OVERLAP: {
        const unsigned bit = prism_dim_info(dim)->overlap_bit;
        s->overlap_off = (uint8_t)(v ? s->overlap_off & ~bit : s->overlap_off | bit);
        break;
    }
    default: /* folding: derived */
        break;
    }
}

/* The dim of strategy-text key @p key (registry.h: the rows written in the text). */
static gboolean text_dim(const char *key, PrismDim *out)
{
    for (int d = 0; d < PRISM_DIM_COUNT; d++)
        if (prism_dim_info((PrismDim)d)->in_text && strcmp(key, prism_dim_name((PrismDim)d)) == 0) {
            *out = (PrismDim)d;
            return TRUE;
        }
    return FALSE;
}

/* The value of the recompute key: a mode, or block:K. */
static gboolean parse_recompute(PrismStrategy *s, const char *val, GError **error)
{
    uint32_t v = 0;
    const char *colon = strchr(val, ':');
    g_autofree char *mode = colon ? g_strndup(val, (gsize)(colon - val)) : g_strdup(val);
    int r = -1;
    for (int i = 0; i < PRISM_RECOMPUTE_COUNT; i++)
        if (g_ascii_strcasecmp(mode, prism_recompute_name((PrismRecompute)i)) == 0)
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
    return TRUE;
}

/* prism_strategy_parse, phase 2: the value of one KEY=VALUE item into @p s. */
static gboolean parse_item(PrismStrategy *s, const char *key, const char *val, GivenKeys *given,
                           GError **error)
{
    PrismDim dim;
    if (!text_dim(key, &dim)) {
        GString *all = g_string_new(NULL);
        for (int i = 0; i < PRISM_DIM_COUNT; i++)
            if (prism_dim_info(prism_dim_user_order[i])->in_text)
                g_string_append_printf(all, "%s%s", all->len ? ", " : "",
                                       prism_dim_name(prism_dim_user_order[i]));
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "unknown strategy key '%s' (allowed: %s)", key, all->str);
        g_string_free(all, TRUE);
        return FALSE;
    }
    const PrismDimInfo *info = prism_dim_info(dim);
    uint32_t v = 0;
    if (dim == PRISM_DIM_SCHEDULE) {
        PrismSchedule sch;
        if (!prism_schedule_parse(val, &sch, error))
            return FALSE;
        s->schedule = (uint8_t)sch;
        given->schedule = TRUE;
        return TRUE;
    }
    if (dim == PRISM_DIM_RECOMPUTE)
        return parse_recompute(s, val, error);
    if (dim == PRISM_DIM_SP &&
        (g_ascii_strcasecmp(val, "on") == 0 || g_ascii_strcasecmp(val, "true") == 0))
        v = 1;
    else if (dim == PRISM_DIM_SP &&
             (g_ascii_strcasecmp(val, "off") == 0 || g_ascii_strcasecmp(val, "false") == 0))
        v = 0;
    else if (!parse_u32(key, val, &v, error))
        return FALSE;
    /* a count's zero is left to R1, which names the dims; a bounded domain is checked here */
    if (v > info->hi) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "strategy key '%s': '%s' must be %s", key, val, info->allowed);
        return FALSE;
    }
    prism_strategy_set_dim(s, dim, v);
    given->dp |= dim == PRISM_DIM_DP;
    given->m |= dim == PRISM_DIM_M;
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
    GString *o = g_string_new(NULL);
    for (int i = 0; i < PRISM_DIM_COUNT; i++) {
        const PrismDim d = prism_dim_user_order[i];
        const PrismDimInfo *info = prism_dim_info(d);
        const uint64_t v = prism_strategy_dim(s, d);
        if (!info->in_text || d == PRISM_DIM_DEVICES ||
            (info->quiet == PRISM_TEXT_UNLESS_0 && v == 0) ||
            (info->quiet == PRISM_TEXT_UNLESS_1 && v == 1) ||
            (info->quiet == PRISM_TEXT_UNLESS_TP && v == s->tp))
            continue;
        g_autofree char *text = prism_dim_value_text(d, v);
        g_string_append_printf(o, "%s%s=%s", o->len ? "," : "", info->name, text);
        if (d == PRISM_DIM_RECOMPUTE && s->recompute == PRISM_RECOMPUTE_BLOCK)
            g_string_append_printf(o, ":%u", (unsigned)s->rc_layers);
    }
    return g_string_free(o, FALSE);
}

uint64_t prism_strategy_dim(const PrismStrategy *s, PrismDim dim)
{
    switch (dim) {
    case PRISM_DIM_DEVICES:
        return s->devices;
    case PRISM_DIM_PP:
        return s->pp;
    case PRISM_DIM_VPP:
        return s->vpp;
    case PRISM_DIM_SCHEDULE:
        return s->schedule;
    case PRISM_DIM_RECOMPUTE:
        return s->recompute;
    case PRISM_DIM_RC_LAYERS:
        return s->rc_layers;
    case PRISM_DIM_TP:
        return s->tp;
    case PRISM_DIM_CP:
        return s->cp;
    case PRISM_DIM_DP:
        return s->dp;
    case PRISM_DIM_EP:
        return s->ep;
    case PRISM_DIM_SP:
        return s->sp;
    case PRISM_DIM_MBS:
        return s->mbs;
    case PRISM_DIM_M:
        return s->m;
    case PRISM_DIM_ZERO:
        return s->zero;
    case PRISM_DIM_ETP:
        return prism_strategy_etp(s);
    case PRISM_DIM_FOLDING:
        return prism_strategy_folding(s);
    case PRISM_DIM_OFFLOAD:
        return s->offload;
    case PRISM_DIM_TP_OVERLAP:
    case PRISM_DIM_DP_OVERLAP:
    case PRISM_DIM_PARAM_OVERLAP:
        return (s->overlap_off & prism_dim_info(dim)->overlap_bit) ? 0 : 1;
    case PRISM_DIM_COUNT:
        break;
    }
    return 0;
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

/* The domains are the registry's (sp 0..1, zero 0..3), so the enumerator, which loops over
 * them, and the parser cannot disagree with this check. */
gboolean prism_strategy_sp_ok(uint32_t sp, uint32_t tp, uint32_t cp, uint64_t seq, GError **error)
{
    const PrismDimInfo *d = prism_dim_info(PRISM_DIM_SP);
    if (sp < d->lo || sp > d->hi)
        SHAPE_FAIL("R4: sp=%u must be %" G_GUINT64_FORMAT " or %" G_GUINT64_FORMAT, sp, d->lo,
                   d->hi);
    if (sp == 1 && tp == 1)
        SHAPE_FAIL("R4: sp=1 needs tp > 1");
    if (sp == 1 && (seq / cp) % tp != 0)
        SHAPE_FAIL("R4: sp=1 needs seq/cp=%" G_GUINT64_FORMAT " divisible by tp=%u", seq / cp, tp);
    return TRUE;
}

gboolean prism_strategy_zero_ok(uint32_t zero, uint64_t group, GError **error)
{
    const PrismDimInfo *d = prism_dim_info(PRISM_DIM_ZERO);
    if (zero < d->lo || zero > d->hi)
        SHAPE_FAIL("R9: zero=%u must be %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT, zero, d->lo,
                   d->hi);
    if (zero > 0 && group == 1)
        SHAPE_FAIL("R9: zero=%u needs a sharding group dp*cp > 1", zero);
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
    if (!prism_strategy_sp_ok(s->sp, s->tp, s->cp, t->seq, error))
        return FALSE;
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

/* The names of the schedules whose vpp rule is @p vpp (or any, -1) and whose m rule is @p m
 * (or any, -1), as "a, b and c" with @p last before the last one. Ownership: g_free(). */
static char *schedule_names(int vpp, int m, const char *last)
{
    const char *pick[PRISM_SCHEDULE_COUNT];
    int n = 0;
    for (uint32_t i = 0; i < PRISM_SCHEDULE_COUNT; i++) {
        const PrismScheduleInfo *si = prism_schedule_info(i);
        if ((vpp < 0 || (int)si->vpp == vpp) && (m < 0 || (int)si->m == m))
            pick[n++] = si->name;
    }
    GString *o = g_string_new(NULL);
    for (int i = 0; i < n; i++)
        g_string_append_printf(o, "%s%s", i == 0 ? "" : i == n - 1 ? last : ", ", pick[i]);
    return g_string_free(o, FALSE);
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
    const PrismScheduleInfo *si = prism_schedule_info(s->schedule);
    if (si == NULL)
        SHAPE_FAIL("R7: unknown schedule code %u", (unsigned)s->schedule);
    const char *name = si->name;
    if (s->pp == 1 && !si->single_stage)
        SHAPE_FAIL("R7: pp=1 has no pipeline schedule (use schedule=1f1b), got %s", name);
    if (si->vpp == PRISM_VPP_MANY && s->vpp < 2)
        SHAPE_FAIL("R7: schedule=%s needs vpp > 1, got vpp=%u", name, s->vpp);
    if (si->vpp == PRISM_VPP_TWO && s->vpp != 2)
        SHAPE_FAIL("R7: schedule=%s runs two model chunks per device in a V: vpp must be 2, "
                   "got vpp=%u",
                   name, s->vpp);
    if (si->vpp == PRISM_VPP_ONE && s->vpp != 1) {
        g_autofree char *many = schedule_names(PRISM_VPP_MANY, -1, ", ");
        g_autofree char *two = schedule_names(PRISM_VPP_TWO, -1, " or ");
        SHAPE_FAIL("R7: schedule=%s with vpp=%u (vpp > 1 needs %s, or vpp = 2 with %s)", name,
                   s->vpp, many, two);
    }
    if (si->pp_even && s->pp % 2 != 0)
        SHAPE_FAIL("R7: schedule=%s needs an even pp (device s holds stages s and pp-1-s), got "
                   "pp=%u",
                   name, s->pp);
    /* R8 (the reasons of each rule: registry.c, above the schedules) */
    if ((uint64_t)s->dp * s->mbs * s->m != t->gbs)
        SHAPE_FAIL("R8: dp*mbs*m = %u*%u*%u must equal gbs=%" G_GUINT64_FORMAT, s->dp, s->mbs, s->m,
                   t->gbs);
    if (!prism_schedule_m_ok(si->m, s->m, s->pp)) {
        g_autofree char *any = schedule_names(-1, PRISM_M_ANY, " and ");
        switch (si->m) {
        case PRISM_M_MULTIPLE_PP:
            SHAPE_FAIL("R8: %s schedule needs m=%u to be a multiple of pp=%u (so m >= pp); %s "
                       "accept any m",
                       name, s->m, s->pp, any);
        case PRISM_M_AT_LEAST_PP:
            SHAPE_FAIL("R8: %s needs m=%u micro-batches >= pp=%u (its bubble formula fills the "
                       "cool-down with pp-1 W passes); %s accept any m",
                       name, s->m, s->pp, any);
        case PRISM_M_EVEN_2PP:
            if ((uint64_t)s->m >= 2ull * s->pp)
                SHAPE_FAIL("R8: %s needs an even m (half the micro-batches enter from each end), "
                           "got m=%u",
                           name, s->m);
            G_GNUC_FALLTHROUGH;
        default:
            SHAPE_FAIL("R8: %s needs m=%u micro-batches >= 2*pp=%u; %s accept any m", name, s->m,
                       2 * s->pp, any);
        }
    }
    return TRUE;
}

/* Phase 3 (R9-R12): the memory and overlap options: ZeRO, recompute, offload, overlap. */
static gboolean check_options(const PrismStrategy *s, uint32_t L, GError **error)
{
    if (!prism_strategy_zero_ok(s->zero, (uint64_t)s->dp * s->cp, error))
        return FALSE;
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
