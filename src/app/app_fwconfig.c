// SPDX-License-Identifier: MIT
/*
 * app_fwconfig.c - --emit FRAMEWORK and --from FILE of plan and explain: a strategy as a
 * framework's configuration (fwconfig.h), refused where the target's profile says the
 * framework cannot run it, and a configuration file read into the inputs. Not collective.
 */
#include "app-internal.h"

#include <string.h>

#include <prism/fwconfig.h>

gboolean prism_app_emit(FILE *out, const char *target, const PrismStrategy *s,
                        const PrismInputs *in, GError **error)
{
    PrismFwTarget t;
    if (!prism_fw_target_parse(target, &t, error)) {
        g_prefix_error(error, "--emit: ");
        return FALSE;
    }
    const char *profile = prism_fw_target_profile(t);
    if (profile != NULL) {
        g_autoptr(PrismFramework) fw = prism_app_framework_resolve(profile, error);
        if (fw == NULL)
            return FALSE;
        g_autofree char *why = prism_space_framework_unsupported(fw, in->model, s);
        if (why != NULL) {
            g_autofree char *st = prism_strategy_format(s);
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNSUPPORTED,
                        "--emit %s: %s does not run %s: %s (its profile %s, [planning])",
                        prism_fw_target_name(t), prism_fw_target_name(t), st, why, profile);
            return FALSE;
        }
    }
    g_autofree char *text = prism_fwconfig_emit(t, s, &in->training, in->model, error);
    if (text == NULL)
        return FALSE;
    if (out != NULL)
        fputs(text, out);
    return TRUE;
}

PrismRunConfig *prism_app_from(const char *path, PrismInputs *in, GError **error)
{
    PrismRunConfig *c = prism_fwconfig_read(path, in->devices[0], &in->training, in->model, error);
    if (c == NULL)
        return NULL;
    in->training = c->training;
    /* an overlap switch the --framework profile has no switch for is the profile's
     * business (its knobs say how much it hides): the file's silence about it is no
     * choice (framework.h [planning] overlap) */
    if (in->framework != NULL)
        c->strategy.overlap_off &= (uint8_t)in->framework->overlap;
    if (in->n_devices == 1)
        in->devices[0] = c->strategy.devices;
    return c;
}

char *prism_app_from_note(const char *path, const PrismRunConfig *c)
{
    g_autofree char *st = prism_strategy_format(&c->strategy);
    GString *s = g_string_new(NULL);
    g_string_append_printf(s,
                           "from %s (%s): devices=%u, %s; gbs %" G_GUINT64_FORMAT
                           ", seq %" G_GUINT64_FORMAT ", %s\n",
                           path, prism_fw_target_name(c->target), c->strategy.devices, st,
                           c->training.gbs, c->training.seq, prism_dtype_name(c->training.dtype));
    if (c->ignored->len > 0) {
        g_string_append(s, "ignored (not modeled):");
        for (guint i = 0; i < c->ignored->len; i++)
            g_string_append_printf(s, "%s %s", i ? "," : "", (const char *)c->ignored->pdata[i]);
        g_string_append_c(s, '\n');
    }
    return g_string_free(s, FALSE);
}

/* ------------------------------------------------------------------ plan --baseline */

#define GIB 1073741824.0

/* One change from the baseline, priced alone. */
typedef struct {
    char *key, *from, *to; /* "mbs", "1", "4" ("-": the text form leaves the key out) */
    gboolean valid;
    char *why; /* not valid alone: the violated rule */
    double cols[PRISM_COL_COUNT];
} Change;

struct PrismBaseline {
    char *path;
    PrismFwTarget target;
    GPtrArray *ignored; /* char * */
    PrismStrategy strategy, best;
    uint64_t gbs, seq;
    PrismDtype dtype;
    double cols[PRISM_COL_COUNT], best_cols[PRISM_COL_COUNT];
    GPtrArray *changes; /* Change * */
};

static void change_free(gpointer p)
{
    Change *c = p;
    g_free(c->key);
    g_free(c->from);
    g_free(c->to);
    g_free(c->why);
    g_free(c);
}

void prism_app_baseline_free(PrismBaseline *bl)
{
    if (bl == NULL)
        return;
    g_free(bl->path);
    g_ptr_array_unref(bl->ignored);
    g_ptr_array_unref(bl->changes);
    g_free(bl);
}

/* The key of "key=value" as a new string. */
static char *kv_key(const char *kv)
{
    const char *eq = strchr(kv, '=');
    return eq ? g_strndup(kv, (gsize)(eq - kv)) : g_strdup(kv);
}

/* The value of @p key among "key=value" items, "-" when absent. */
static const char *kv_value(char **items, const char *key)
{
    size_t n = strlen(key);
    for (int i = 0; items[i]; i++)
        if (strncmp(items[i], key, n) == 0 && items[i][n] == '=')
            return items[i] + n + 1;
    return "-";
}

/* vpp and schedule move together: a schedule needs its chunk count. */
static gboolean moves_with(const char *item_key, const char *key)
{
    gboolean pair = strcmp(key, "vpp") == 0 || strcmp(key, "schedule") == 0;
    return strcmp(item_key, key) == 0 ||
           (pair && (strcmp(item_key, "vpp") == 0 || strcmp(item_key, "schedule") == 0));
}

/* The baseline with @p key (and its partner) set to the recommendation's value; dp and m
 * are left out so they follow from the devices and the batch. */
static void price_change(Change *c, const PrismCostModel *cm, const PrismInputs *in, char **base,
                         char **best)
{
    GString *t = g_string_new(NULL);
    for (int pass = 0; pass < 2; pass++) {
        char **items = pass ? best : base;
        for (int i = 0; items[i]; i++) {
            g_autofree char *k = kv_key(items[i]);
            if (strcmp(k, "dp") == 0 || strcmp(k, "m") == 0)
                continue;
            if (moves_with(k, c->key) == (pass == 1))
                g_string_append_printf(t, "%s%s", t->len ? "," : "", items[i]);
        }
    }
    PrismStrategy s;
    GError *e = NULL;
    c->valid = prism_strategy_parse(t->str, in->devices[0], &in->training, &s, &e) &&
               prism_strategy_check(&s, in->model, &in->training, &e) &&
               prism_cost_eval_one(cm, &s, c->cols, &e);
    if (!c->valid)
        c->why = g_strdup(e ? e->message : "?");
    g_clear_error(&e);
    g_string_free(t, TRUE);
}

PrismBaseline *prism_app_baseline_new(const PrismCostModel *cm, const PrismInputs *in,
                                      const char *path, const PrismRunConfig *cfg,
                                      const PrismStrategy *best,
                                      const double best_cols[PRISM_COL_COUNT], GError **error)
{
    PrismBaseline *bl = g_new0(PrismBaseline, 1);
    bl->path = g_strdup(path);
    bl->target = cfg->target;
    bl->ignored = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < cfg->ignored->len; i++)
        g_ptr_array_add(bl->ignored, g_strdup(cfg->ignored->pdata[i]));
    bl->strategy = cfg->strategy;
    bl->best = *best;
    bl->gbs = cfg->training.gbs;
    bl->seq = cfg->training.seq;
    bl->dtype = cfg->training.dtype;
    memcpy(bl->best_cols, best_cols, sizeof bl->best_cols);
    bl->changes = g_ptr_array_new_with_free_func(change_free);
    if (!prism_cost_eval_one(cm, &cfg->strategy, bl->cols, error)) {
        prism_app_baseline_free(bl);
        return NULL;
    }
    g_autofree char *a = prism_strategy_format(&cfg->strategy);
    g_autofree char *b = prism_strategy_format(best);
    g_auto(GStrv) base = g_strsplit(a, ",", -1);
    g_auto(GStrv) rec = g_strsplit(b, ",", -1);
    /* the keys whose values differ, in the text form's order (schedule rides with vpp) */
    for (int pass = 0; pass < 2; pass++) {
        char **x = pass ? base : rec;
        for (int i = 0; x[i]; i++) {
            g_autofree char *k = kv_key(x[i]);
            if (strcmp(k, "dp") == 0 || strcmp(k, "m") == 0 ||
                strcmp(kv_value(base, k), kv_value(rec, k)) == 0)
                continue;
            if (strcmp(k, "schedule") == 0 && strcmp(kv_value(base, "vpp"), kv_value(rec, "vpp")))
                continue;
            gboolean dup = FALSE;
            for (guint j = 0; j < bl->changes->len && !dup; j++)
                dup = strcmp(((Change *)bl->changes->pdata[j])->key, k) == 0;
            if (dup)
                continue;
            Change *c = g_new0(Change, 1);
            c->key = g_strdup(k);
            c->from = g_strdup(kv_value(base, k));
            c->to = g_strdup(kv_value(rec, k));
            price_change(c, cm, in, base, rec);
            g_ptr_array_add(bl->changes, c);
        }
    }
    return bl;
}

static double pct(double x, double x0)
{
    return x0 > 0 ? 100 * (x - x0) / x0 : 0.0;
}

void prism_app_baseline_text(FILE *out, const PrismBaseline *bl)
{
    g_autofree char *st = prism_strategy_format(&bl->strategy);
    double st0 = bl->cols[PRISM_COL_TIME_STEP], st1 = bl->best_cols[PRISM_COL_TIME_STEP];
    fprintf(out,
            "\nBaseline from %s (%s): devices=%u, %s; gbs %" G_GUINT64_FORMAT
            ", seq %" G_GUINT64_FORMAT ", %s\n",
            bl->path, prism_fw_target_name(bl->target), bl->strategy.devices, st, bl->gbs, bl->seq,
            prism_dtype_name(bl->dtype));
    if (bl->ignored->len > 0) {
        fprintf(out, "ignored (not modeled):");
        for (guint i = 0; i < bl->ignored->len; i++)
            fprintf(out, "%s %s", i ? "," : "", (const char *)bl->ignored->pdata[i]);
        fputc('\n', out);
    }
    fprintf(out, "  baseline:       step %.4f s, MFU %.1f%%, peak %.1f GiB%s\n", st0,
            100 * bl->cols[PRISM_COL_MFU], bl->cols[PRISM_COL_MEM_PEAK] / GIB,
            bl->cols[PRISM_COL_FEASIBLE] > 0 ? "" : " (does not fit)");
    fprintf(out, "  recommendation: step %.4f s, MFU %.1f%%, peak %.1f GiB (%+.1f%% step time)\n",
            st1, 100 * bl->best_cols[PRISM_COL_MFU], bl->best_cols[PRISM_COL_MEM_PEAK] / GIB,
            pct(st1, st0));
    if (bl->changes->len == 0) {
        fprintf(out, "  the baseline is the recommendation\n");
        return;
    }
    fprintf(out, "  changes from the baseline to the recommendation, each alone:\n");
    for (guint i = 0; i < bl->changes->len; i++) {
        const Change *c = bl->changes->pdata[i];
        g_autofree char *label = g_strdup_printf("%s %s->%s", c->key, c->from, c->to);
        if (c->valid)
            fprintf(out, "  %-24s step %.4f s (%+.1f%%), peak %.1f GiB%s\n", label,
                    c->cols[PRISM_COL_TIME_STEP], pct(c->cols[PRISM_COL_TIME_STEP], st0),
                    c->cols[PRISM_COL_MEM_PEAK] / GIB,
                    c->cols[PRISM_COL_FEASIBLE] > 0 ? "" : ", does not fit");
        else
            fprintf(out, "  %-24s not valid alone: %s\n", label, c->why);
    }
}

void prism_app_baseline_json(JsonBuilder *b, const PrismBaseline *bl)
{
    g_autofree char *st = prism_strategy_format(&bl->strategy);
    json_builder_set_member_name(b, "baseline");
    json_builder_begin_object(b);
    prism_app_json_string(b, "file", bl->path);
    prism_app_json_string(b, "framework", prism_fw_target_name(bl->target));
    prism_app_json_strings(b, "ignored", bl->ignored);
    prism_app_json_string(b, "strategy", st);
    json_builder_set_member_name(b, "devices");
    json_builder_add_int_value(b, bl->strategy.devices);
    json_builder_set_member_name(b, "step_s");
    json_builder_add_double_value(b, bl->cols[PRISM_COL_TIME_STEP]);
    json_builder_set_member_name(b, "mfu");
    json_builder_add_double_value(b, bl->cols[PRISM_COL_MFU]);
    json_builder_set_member_name(b, "peak_bytes");
    json_builder_add_double_value(b, bl->cols[PRISM_COL_MEM_PEAK]);
    json_builder_set_member_name(b, "feasible");
    json_builder_add_boolean_value(b, bl->cols[PRISM_COL_FEASIBLE] > 0);
    json_builder_set_member_name(b, "recommendation_step_s");
    json_builder_add_double_value(b, bl->best_cols[PRISM_COL_TIME_STEP]);
    json_builder_set_member_name(b, "changes");
    json_builder_begin_array(b);
    for (guint i = 0; i < bl->changes->len; i++) {
        const Change *c = bl->changes->pdata[i];
        json_builder_begin_object(b);
        prism_app_json_string(b, "dim", c->key);
        prism_app_json_string(b, "from", c->from);
        prism_app_json_string(b, "to", c->to);
        json_builder_set_member_name(b, "step_s");
        if (c->valid)
            json_builder_add_double_value(b, c->cols[PRISM_COL_TIME_STEP]);
        else
            json_builder_add_null_value(b);
        json_builder_set_member_name(b, "peak_bytes");
        if (c->valid)
            json_builder_add_double_value(b, c->cols[PRISM_COL_MEM_PEAK]);
        else
            json_builder_add_null_value(b);
        json_builder_set_member_name(b, "feasible");
        json_builder_add_boolean_value(b, c->valid && c->cols[PRISM_COL_FEASIBLE] > 0);
        prism_app_json_string(b, "invalid_alone", c->valid ? NULL : c->why);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
}

/* TRUE when the strategy text @p text states key @p key. */
static gboolean states(char **items, const char *key)
{
    const size_t n = strlen(key);
    for (char **i = items; *i != NULL; i++) {
        const char *t = *i;
        while (*t == ' ')
            t++;
        if (strncmp(t, key, n) == 0 && (t[n] == '=' || t[n] == ' ' || t[n] == '\0'))
            return TRUE;
    }
    return FALSE;
}

static void add_default(GString *text, GString *filled, const char *item)
{
    g_string_append_printf(text, "%s%s", text->len ? "," : "", item);
    g_string_append_printf(filled, "%s%s", filled->len ? ", " : "", item);
}

gboolean prism_app_strategy_parse(const char *text, const PrismFramework *fw, uint32_t devices,
                                  const PrismTraining *tr, PrismStrategy *out, char **filled,
                                  GError **error)
{
    if (filled != NULL)
        *filled = NULL;
    PrismStrategy s0;
    if (!prism_strategy_parse(text, devices, tr, &s0, error))
        return FALSE;
    *out = s0;
    if (fw == NULL)
        return TRUE;
    g_auto(GStrv) items = g_strsplit(text, ",", -1);
    g_autoptr(GString) full = g_string_new(text);
    g_autoptr(GString) got = g_string_new(NULL);
    char buf[64];
    const int z = fw->def[PRISM_FW_ZERO];
    if (!states(items, "zero") && z > 0 && s0.dp * s0.cp > 1) { /* R9: nothing to shard else */
        g_snprintf(buf, sizeof buf, "zero=%d", z);
        add_default(full, got, buf);
    }
    if (!states(items, "sp") && (fw->def[PRISM_FW_SP] == 1 || fw->sp_always) && s0.tp > 1)
        add_default(full, got, "sp=1"); /* R4: sp needs tp > 1 */
    const int rc = fw->def[PRISM_FW_RECOMPUTE];
    if (!states(items, "recompute") && rc > PRISM_RECOMPUTE_NONE && rc < PRISM_RECOMPUTE_BLOCK) {
        g_snprintf(buf, sizeof buf, "recompute=%s", prism_recompute_name((PrismRecompute)rc));
        add_default(full, got, buf);
    }
    const int sch = fw->def[PRISM_FW_SCHEDULE];
    if (!states(items, "schedule") && sch >= 0 && s0.pp > 1 &&
        (s0.vpp > 1) == (sch == PRISM_SCHEDULE_INTERLEAVED) && sch != s0.schedule) {
        g_snprintf(buf, sizeof buf, "schedule=%s", prism_schedule_name((PrismSchedule)sch));
        add_default(full, got, buf);
    }
    if (!states(items, "mbs") && !states(items, "m")) {
        const int mb = fw->def[PRISM_FW_MICRO_BATCH];
        const gboolean stages = fw->pp_microbatches_stages && s0.pp > 1; /* m = pp */
        const uint64_t per = (uint64_t)s0.dp * (stages ? s0.pp : 1);
        uint64_t v = 0;
        if (mb > 0)
            v = (uint64_t)mb;
        else if ((mb == PRISM_FW_MBS_LOCAL || stages) && per > 0 && tr->gbs % per == 0)
            v = tr->gbs / per;
        if (v > 1) {
            g_snprintf(buf, sizeof buf, "mbs=%" G_GUINT64_FORMAT, v);
            add_default(full, got, buf);
        }
    }
    if (got->len == 0)
        return TRUE;
    if (!prism_strategy_parse(full->str, devices, tr, out, error)) {
        g_prefix_error(error, "with %s's defaults for the dims left out (%s): ", fw->name,
                       got->str);
        return FALSE;
    }
    if (filled != NULL)
        *filled = g_string_free(g_steal_pointer(&got), FALSE);
    return TRUE;
}
