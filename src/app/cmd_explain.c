// SPDX-License-Identifier: MIT
/*
 * cmd_explain.c - `prism explain`: every cost term of one strategy, with formula and
 * value, per layer kind and per stage (text or --json). Collective like every command;
 * rank 0 prints.
 */
#include "app-internal.h"

#include <prism/cost.h>
#include <prism/fwconfig.h>
#include <prism/ranges.h>

/* The peak stage's memory as frameworks log it (allocated, reserved, device: the figures
 * `prism validate` compares with a run's log, prism_cost_memory_kinds), bytes, from the
 * modelled allocated peak @p peak of strategy @p s, of which @p persistent bytes are
 * persistent state; @p fw (NULL: none) says which one its log counts. */
typedef struct {
    double v[PRISM_MEM_COUNTS_COUNT];
    const char *fw;        /* the framework's name, NULL without --framework */
    PrismMemCounts counts; /* what its log counts */
} Counted;

static Counted counted_memory(const PrismCostModel *cm, const PrismStrategy *s,
                              const PrismFramework *fw, double peak, double persistent)
{
    PrismMemKinds mk;
    prism_cost_memory_kinds(cm, s, peak, persistent, &mk);
    Counted c = {.fw = fw != NULL ? fw->name : NULL,
                 .counts = fw != NULL ? fw->counts : PRISM_MEM_ALLOCATED};
    c.v[PRISM_MEM_ALLOCATED] = mk.allocated;
    c.v[PRISM_MEM_RESERVED] = mk.reserved;
    c.v[PRISM_MEM_DEVICE] = mk.device;
    return c;
}

static void counted_text(FILE *f, const Counted *c)
{
    if (c->fw != NULL)
        fprintf(f,
                "\nmemory as logged: %s logs %s, %.2f GiB on the peak stage (what prism "
                "validate compares)\n",
                c->fw, prism_mem_counts_name(c->counts), c->v[c->counts] / 1073741824.0);
    else
        fprintf(f, "\nmemory as logged: --framework says which of allocated, reserved and "
                   "device a run's log shows\n");
}

static void counted_json(JsonObject *root, const Counted *c)
{
    JsonObject *o = json_object_new();
    for (int k = 0; k < PRISM_MEM_COUNTS_COUNT; k++)
        json_object_set_double_member(o, prism_mem_counts_name((PrismMemCounts)k), c->v[k]);
    if (c->fw != NULL)
        json_object_set_string_member(o, "framework_counts", prism_mem_counts_name(c->counts));
    else
        json_object_set_null_member(o, "framework_counts");
    json_object_set_object_member(root, "memory_logged", o);
}

/* The strategy's interval (ranges.h) as `prism plan` forms it: both corners, widened by
 * the track record, and its memory class against the usable memory. */
typedef struct {
    PrismInterval iv;
    double usable, widen_step, widen_mem;
    PrismMemClass mc;
} Spread;

static gboolean spread_of(const PrismCostModel *cm, const PrismTrackRecord *track,
                          const PrismStrategy *s, const double col[PRISM_COL_COUNT], Spread *out,
                          GError **error)
{
    g_autoptr(PrismCorners) c = prism_app_corners_new(cm, track, error);
    if (c == NULL || !prism_corners_eval(c, s, col, &out->iv, error))
        return FALSE;
    out->usable = prism_cost_model_usable(cm);
    out->widen_step = c->widen_step;
    out->widen_mem = c->widen_mem;
    out->mc = prism_mem_class(&out->iv, out->usable);
    return TRUE;
}

static void spread_text(FILE *f, const Spread *sp)
{
    const double gib = 1073741824.0;
    fprintf(f,
            "\ninterval: step %.4g s, %.4g-%.4g s with every ranged knob at its optimistic and "
            "its pessimistic published end (%zu ranges, prism knobs --sources)",
            sp->iv.step, sp->iv.step_lo, sp->iv.step_hi, prism_knob_range_count());
    if (sp->widen_step > 0 || sp->widen_mem > 0)
        fprintf(f,
                ", widened by the track record's mean step error %.1f %% and memory error "
                "%.1f %%",
                100 * sp->widen_step, 100 * sp->widen_mem);
    fprintf(f, "; memory %.2f GiB on the device, %.2f GiB pessimistic, of %.2f GiB usable: %s\n",
            sp->iv.mem / gib, sp->iv.mem_hi / gib, sp->usable / gib, prism_mem_class_name(sp->mc));
}

static void spread_json(JsonObject *root, const Spread *sp)
{
    JsonObject *o = json_object_new();
    json_object_set_double_member(o, "step", sp->iv.step);
    json_object_set_double_member(o, "step_lo", sp->iv.step_lo);
    json_object_set_double_member(o, "step_hi", sp->iv.step_hi);
    json_object_set_double_member(o, "mem", sp->iv.mem);
    json_object_set_double_member(o, "mem_hi", sp->iv.mem_hi);
    json_object_set_double_member(o, "usable", sp->usable);
    json_object_set_string_member(o, "mem_class", prism_mem_class_name(sp->mc));
    json_object_set_double_member(o, "widen_step", sp->widen_step);
    json_object_set_double_member(o, "widen_mem", sp->widen_mem);
    json_object_set_object_member(root, "interval", o);
}

/* Why @p fw does not run strategy @p s, as a sentence naming both, NULL when it does or
 * there is no profile: explain prices any strategy, and says so. */
static char *framework_note(const PrismFramework *fw, const PrismModel *m, const PrismStrategy *s)
{
    g_autofree char *why = prism_space_framework_unsupported(fw, m, s);
    if (why == NULL)
        return NULL;
    g_autofree char *st = prism_strategy_format(s);
    return g_strdup_printf("%s does not run %s: %s; prism plan --framework %s never proposes it",
                           fw->name, st, why, fw->name);
}

gboolean prism_cmd_explain(PrismComm *comm, int argc, char **argv, GError **error)
{
    PrismCommonOptions o = {.flags = PRISM_OPT_MODEL | PRISM_OPT_CLUSTER | PRISM_OPT_TRAINING |
                                     PRISM_OPT_KNOBS | PRISM_OPT_FRAMEWORK | PRISM_OPT_JSON};
    char *strategy = NULL, *emit = NULL, *from = NULL;
    const GOptionEntry entries[] = {
        {"emit", 0, 0, G_OPTION_ARG_STRING, &emit,
         "print the strategy, batch, sequence and precision as FRAMEWORK's own configuration "
         "(megatron, nemo, torchtitan, deepspeed, nanotron) instead of the explanation",
         "FRAMEWORK"},
        {"from", 0, 0, G_OPTION_ARG_FILENAME, &from,
         "read the strategy, batch, sequence and precision from a framework configuration: "
         "Megatron-LM arguments or launch script, Megatron-Bridge overrides, torchtitan TOML, "
         "DeepSpeed ds_config.json or launch script, nanotron YAML",
         "FILE"},
        {"strategy", 's', 0, G_OPTION_ARG_STRING, &strategy,
         "the strategy, e.g. \"dp=8,tp=8,pp=16,sp=1,mbs=1,zero=1,recompute=selective,"
         "schedule=1f1b\" (left-out keys take defaults: tp=pp=vpp=cp=ep=mbs=1, sp=0, zero=0, "
         "recompute=none, dp=N/(tp*pp*cp), m=gbs/(dp*mbs))",
         "DIMS"},
        G_OPTION_ENTRY_NULL};
    g_autoptr(GOptionContext) ctx = g_option_context_new("- explain one strategy's costs");
    g_option_context_set_summary(
        ctx, "Every cost term of the strategy with its formula and value. With --framework it\n"
             "notes a strategy that framework does not run (it is priced anyway). The answer ends\n"
             "with the track record of the device family and framework (as prism plan).");
    g_option_context_add_main_entries(ctx, entries, NULL);
    prism_app_add_common_options(ctx, &o);
    PrismInputs in = {0};
    gboolean ok = FALSE;
    g_autofree char *text = NULL;
    g_autoptr(PrismCostModel) cm = NULL;
    g_autoptr(PrismTrackRecord) track = NULL;
    g_autofree char *unsupported = NULL; /* the framework does not run the strategy: why */
    g_autoptr(PrismRunConfig) cfg = NULL;
    g_autoptr(PrismLayout) layout = NULL; /* the file's split when not the default one */
    g_autofree char *from_note = NULL;
    g_autofree char *filled = NULL;        /* the framework defaults added to --strategy */
    g_autofree char *defaults_note = NULL; /* ... as a sentence */
    if (!prism_app_parse(ctx, &argc, &argv, error))
        goto out;
    if (argc > 1) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "unexpected argument '%s' (see --help)", argv[1]);
        goto out;
    }
    if (strategy == NULL && from == NULL) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_MISSING,
                    "--strategy or --from is required, e.g. --strategy \"tp=8,pp=16,sp=1\"");
        goto out;
    }
    if (strategy != NULL && from != NULL) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT,
                    "--strategy and --from both give the strategy (allowed: one of them)");
        goto out;
    }
    if (!prism_app_load_inputs(comm, &o, &in, error))
        goto out;
    if (in.n_devices != 1) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "--devices: explain takes one device count, got %zu", in.n_devices);
        goto out;
    }
    PrismStrategy s;
    if (from != NULL) {
        cfg = prism_app_from(from, &in, error);
        if (cfg == NULL)
            goto out;
        s = cfg->strategy;
        layout = prism_app_from_layout(cfg, in.model);
        from_note = prism_app_from_note(from, cfg);
    } else {
        /* the dims left out: the framework's defaults (--framework, else the --emit
         * target's profile), as the user runs it */
        g_autoptr(PrismFramework) target = NULL;
        PrismFwTarget t;
        if (in.framework == NULL && emit != NULL && prism_fw_target_parse(emit, &t, NULL) &&
            prism_fw_target_profile(t) != NULL &&
            (target = prism_app_framework_resolve(prism_fw_target_profile(t), error)) == NULL)
            goto out;
        const PrismFramework *dfw = in.framework ? in.framework : target;
        if (!prism_app_strategy_parse(strategy, dfw, in.devices[0], &in.training, &s, &filled,
                                      error)) {
            g_prefix_error(error, "--strategy: ");
            goto out;
        }
        if (filled != NULL)
            defaults_note = g_strdup_printf("the dims --strategy leaves out take %s's defaults: %s",
                                            dfw->name, filled);
    }
    if (emit != NULL) {
        GError *shape = NULL;
        if (!prism_strategy_check(&s, in.model, &in.training, &shape)) {
            g_propagate_prefixed_error(error, shape, "--strategy: ");
            goto out;
        }
        ok = prism_app_emit(prism_app_out(comm), emit, &s, layout, &in, error);
        goto out;
    }
    cm = prism_cost_model_new(in.model, in.cluster, &in.training, &in.knobs, error);
    if (cm == NULL)
        goto out;
    /* a file's own split of the layers (uneven first/last stages) is priced as stated */
    text = prism_app_explain(cm, &s, layout, o.json, error);
    if (text == NULL)
        goto out;
    double col[PRISM_COL_COUNT];
    if (!(layout ? prism_cost_eval_layout(cm, &s, layout, col, error)
                 : prism_cost_eval_one(cm, &s, col, error)))
        goto out;
    const Counted logged =
        counted_memory(cm, &s, in.framework, col[PRISM_COL_MEM_PEAK], prism_cost_persistent(col));
    unsupported = framework_note(in.framework, in.model, &s); /* after the shape rules: pp >= 1 */
    /* how the model did on comparable published runs (collective: every rank) */
    track = prism_track_record_run(comm, in.cluster->family,
                                   in.framework ? in.framework->name : NULL, &in.user_knobs);
    FILE *f = prism_app_out(comm);
    Spread spread;
    if (f != NULL && !spread_of(cm, track, &s, col, &spread, error))
        goto out;
    if (f != NULL && o.json) {
        /* the explanation's object with the "track_record" member added */
        g_autoptr(JsonParser) parser = json_parser_new();
        if (!json_parser_load_from_data(parser, text, -1, error))
            goto out;
        g_autoptr(JsonBuilder) b = json_builder_new();
        prism_app_track_json_object(b, track);
        JsonObject *root = json_node_get_object(json_parser_get_root(parser));
        json_object_set_member(root, "track_record", json_builder_get_root(b));
        counted_json(root, &logged);
        spread_json(root, &spread);
        if (cfg != NULL) {
            /* where the strategy came from: the file, its framework, the keys not modeled */
            JsonObject *fo = json_object_new();
            json_object_set_string_member(fo, "file", from);
            json_object_set_string_member(fo, "framework", prism_fw_target_name(cfg->target));
            JsonArray *ig = json_array_new();
            for (guint i = 0; i < cfg->ignored->len; i++)
                json_array_add_string_element(ig, cfg->ignored->pdata[i]);
            json_object_set_array_member(fo, "ignored", ig);
            json_object_set_object_member(root, "from", fo);
        }
        if (filled != NULL)
            json_object_set_string_member(root, "framework_defaults", filled);
        else
            json_object_set_null_member(root, "framework_defaults");
        if (unsupported != NULL)
            json_object_set_string_member(root, "framework_unsupported", unsupported);
        else
            json_object_set_null_member(root, "framework_unsupported");
        g_autofree char *out_text = prism_json_to_string(json_parser_get_root(parser), TRUE);
        fprintf(f, "%s\n", out_text);
    } else if (f != NULL) {
        g_autofree char *tr = prism_app_track_text(track, "the step time above");
        if (from_note != NULL)
            fputs(from_note, f);
        fputs(text, f);
        if (defaults_note != NULL)
            fprintf(f, "\nnote: %s\n", defaults_note);
        counted_text(f, &logged);
        spread_text(f, &spread);
        if (unsupported != NULL)
            fprintf(f, "\nnote: %s\n", unsupported);
        fputs(tr, f);
    }
    ok = TRUE;
out:
    g_free(strategy);
    g_free(emit);
    g_free(from);
    prism_inputs_clear(&in);
    prism_common_options_clear(&o);
    return ok;
}
