// SPDX-License-Identifier: MIT
/*
 * app_common.c - the options every subcommand spells the same way, and input loading.
 *
 * prism_app_load_inputs() runs on every rank (each reads the same files) and ends with
 * an agreement, so a rank that cannot read a file fails the whole job cleanly.
 */
#include "app-internal.h"

#include <errno.h>
#include <math.h> /* isfinite */
#include <stdlib.h>
#include <string.h>

#include <json-glib/json-glib.h>

void prism_app_add_common_options(GOptionContext *ctx, PrismCommonOptions *o)
{
    const GOptionEntry model[] = {
        {"model", 'm', 0, G_OPTION_ARG_FILENAME, &o->model,
         "zoo name (Hugging Face spellings too: Llama-3.1-8B, meta-llama/Llama-3.1-8B) or path to "
         "a Hugging Face config.json (default " PRISM_DEFAULT_MODEL ")",
         "NAME|FILE"},
        G_OPTION_ENTRY_NULL};
    const GOptionEntry cluster[] = {
        {"cluster", 'c', 0, G_OPTION_ARG_FILENAME, &o->cluster,
         "cluster preset, a device as nvidia-smi names it (\"NVIDIA H100 80GB HBM3\": H100-SXM) or "
         "a key file (default " PRISM_DEFAULT_CLUSTER ")",
         "NAME|FILE"},
        {"devices", 'n', 0, G_OPTION_ARG_STRING, &o->devices,
         "device count: N, a list N1,N2,... or a range A:B (powers of two) or A:B:STEP "
         "(default 1024)",
         "N"},
        G_OPTION_ENTRY_NULL};
    const GOptionEntry training[] = {
        {"gbs", 0, 0, G_OPTION_ARG_INT64, &o->gbs, "global batch in sequences (default 1536)", "B"},
        {"seq", 0, 0, G_OPTION_ARG_INT64, &o->seq, "sequence length (default 2048)", "S"},
        {"dtype", 0, 0, G_OPTION_ARG_STRING, &o->dtype,
         "training dtype: bf16, fp16, fp8, fp8-cs, mxfp8, nvfp4, mxfp4, fp32 (default bf16)", "T"},
        {"optimizer", 0, 0, G_OPTION_ARG_STRING, &o->optimizer,
         "optimizer: adam or sgd (default adam)", "OPT"},
        {"mem-budget", 0, 0, G_OPTION_ARG_DOUBLE, &o->mem_budget_gib,
         "memory budget per device in GiB (default: device memory)", "GIB"},
        G_OPTION_ENTRY_NULL};
    const GOptionEntry knobs[] = {
        {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->set,
         "override a cost-model knob (repeatable; `prism knobs` lists them)", "NAME=VALUE"},
        {"knobs", 0, 0, G_OPTION_ARG_FILENAME, &o->knobs_file,
         "key file with a [knobs] group of NAME=VALUE", "FILE"},
        G_OPTION_ENTRY_NULL};
    const GOptionEntry json[] = {
        {"json", 0, 0, G_OPTION_ARG_NONE, &o->json, "print JSON instead of text", NULL},
        G_OPTION_ENTRY_NULL};
    const GOptionEntry output[] = {
        {"output", 'o', 0, G_OPTION_ARG_FILENAME, &o->output, "output file", "FILE"},
        {"force", 0, 0, G_OPTION_ARG_NONE, &o->force, "overwrite an existing output file", NULL},
        G_OPTION_ENTRY_NULL};
    const GOptionEntry framework[] = {
        {"framework", 0, 0, G_OPTION_ARG_FILENAME, &o->framework,
         "framework profile (`prism frameworks` lists them) or profile file: its knobs and "
         "memory conventions apply before --knobs/--set",
         "NAME|FILE"},
        G_OPTION_ENTRY_NULL};
    const GOptionEntry isa[] = {
        {"isa", 0, 0, G_OPTION_ARG_STRING, &o->isa,
         "kernel ISA: auto, scalar, avx2, avx512 (default: PRISM_ISA or auto)", "ISA"},
        G_OPTION_ENTRY_NULL};
    if (o->flags & PRISM_OPT_MODEL)
        g_option_context_add_main_entries(ctx, model, NULL);
    if (o->flags & PRISM_OPT_CLUSTER)
        g_option_context_add_main_entries(ctx, cluster, NULL);
    if (o->flags & PRISM_OPT_TRAINING) {
        g_option_context_add_main_entries(ctx, training, NULL);
        o->gbs = o->seq = PRISM_OPT_UNSET_INT;
        o->mem_budget_gib = PRISM_OPT_UNSET_DOUBLE;
        o->unset_markers = TRUE;
    }
    if (o->flags & PRISM_OPT_KNOBS)
        g_option_context_add_main_entries(ctx, knobs, NULL);
    if (o->flags & PRISM_OPT_JSON)
        g_option_context_add_main_entries(ctx, json, NULL);
    if (o->flags & PRISM_OPT_OUTPUT)
        g_option_context_add_main_entries(ctx, output, NULL);
    if (o->flags & PRISM_OPT_ISA)
        g_option_context_add_main_entries(ctx, isa, NULL);
    if (o->flags & PRISM_OPT_FRAMEWORK)
        g_option_context_add_main_entries(ctx, framework, NULL);
}

void prism_common_options_clear(PrismCommonOptions *o)
{
    g_clear_pointer(&o->model, g_free);
    g_clear_pointer(&o->cluster, g_free);
    g_clear_pointer(&o->devices, g_free);
    g_clear_pointer(&o->dtype, g_free);
    g_clear_pointer(&o->optimizer, g_free);
    g_clear_pointer(&o->set, g_strfreev);
    g_clear_pointer(&o->knobs_file, g_free);
    g_clear_pointer(&o->output, g_free);
    g_clear_pointer(&o->isa, g_free);
    g_clear_pointer(&o->framework, g_free);
}

/* TRUE when every word of @p name ("global-batch") is a word of @p text ("global batch in
 * sequences (default 1536)"), ignoring ASCII case. */
static gboolean words_in(const char *name, const char *text)
{
    g_auto(GStrv) words = g_strsplit_set(name, "-_", -1);
    g_auto(GStrv) have = g_strsplit_set(text, " ,:;()", -1);
    int n = 0;
    for (char **w = words; *w != NULL; w++) {
        if (**w == '\0')
            continue;
        gboolean found = FALSE;
        for (char **h = have; *h != NULL && !found; h++)
            found = g_ascii_strcasecmp(*w, *h) == 0;
        if (!found)
            return FALSE;
        n++;
    }
    return n > 0;
}

/*
 * "; the closest is --NAME" for GOption's "Unknown option --WORDS[=V]": the long option
 * whose help text holds every word of WORDS (--global-batch: --gbs, "global batch in
 * sequences"), else the one nearest in spelling (prism_close_names) when it starts with
 * the same letter or holds the word; NULL for a short option, when the command has no long
 * options or none is close. The options are read from the
 * context's help text, the one list of them GOption gives out.
 */
static char *closest_option(GOptionContext *ctx, const char *message)
{
    const char *arg = strstr(message, "--");
    if (arg == NULL)
        return NULL;
    g_autofree char *name = g_strndup(arg + 2, strcspn(arg + 2, "= "));
    if (*name == '\0')
        return NULL;
    g_autofree char *help = g_option_context_get_help(ctx, FALSE, NULL);
    g_auto(GStrv) lines = g_strsplit(help, "\n", -1);
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    const char *by_words = NULL;
    for (char **l = lines; *l != NULL; l++) {
        const char *t = *l + strspn(*l, " ");
        if (*t != '-')
            continue; /* not an option line */
        const char *o = strstr(t, "--");
        if (o == NULL)
            continue;
        char *opt = g_strndup(o + 2, strcspn(o + 2, "= "));
        g_ptr_array_add(names, opt);
        const char *doc = strstr(o, "  ");
        if (by_words == NULL && doc != NULL && words_in(name, doc))
            by_words = opt;
    }
    if (names->len == 0)
        return NULL;
    g_autofree char *near =
        by_words ? g_strdup(by_words)
                 : prism_close_names(name, (const char *const *)names->pdata, names->len, 1);
    /* nearest in spelling only counts when it starts alike or holds the word (--jsn: --json,
     * --strat: --strategy; --foo has none) */
    if (by_words == NULL && g_ascii_tolower(near[0]) != g_ascii_tolower(name[0]) &&
        strstr(near, name) == NULL)
        return NULL;
    return g_strdup_printf("; the closest is --%s", near);
}

gboolean prism_app_parse(GOptionContext *ctx, int *argc, char ***argv, GError **error)
{
    /* GOption's own --help prints on every rank and calls exit(), which skips
     * MPI_Finalize; instead the help text travels as PRISM_RUNTIME_ERROR_HELP_SHOWN and
     * prism_app_main() prints it once (rank 0) and exits 0. */
    g_option_context_set_help_enabled(ctx, FALSE);
    if (*argc > 0)
        g_set_prgname((*argv)[0]); /* "prism COMMAND" in the usage line */
    for (int i = 1; i < *argc; i++) {
        const char *a = (*argv)[i];
        if (strcmp(a, "--") == 0)
            break;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0 || strcmp(a, "-?") == 0) {
            g_autofree char *help = g_option_context_get_help(ctx, TRUE, NULL);
            g_set_error_literal(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_HELP_SHOWN, help);
            return FALSE;
        }
    }
    GError *local = NULL;
    if (!g_option_context_parse(ctx, argc, argv, &local)) {
        g_autofree char *hint = NULL;
        if (g_error_matches(local, G_OPTION_ERROR, G_OPTION_ERROR_UNKNOWN_OPTION))
            hint = closest_option(ctx, local->message);
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE, "%s%s (see --help)",
                    local->message, hint ? hint : "");
        g_error_free(local);
        return FALSE;
    }
    return TRUE;
}

void prism_app_print_json(FILE *out, void *json_builder)
{
    g_autoptr(JsonNode) root = json_builder_get_root(JSON_BUILDER(json_builder));
    g_autofree char *text = prism_json_to_string(root, TRUE);
    fprintf(out, "%s\n", text);
}

void prism_app_json_string(JsonBuilder *b, const char *name, const char *v)
{
    json_builder_set_member_name(b, name);
    if (v == NULL)
        json_builder_add_null_value(b);
    else
        json_builder_add_string_value(b, v);
}

void prism_app_json_strings(JsonBuilder *b, const char *name, const GPtrArray *v)
{
    json_builder_set_member_name(b, name);
    json_builder_begin_array(b);
    for (guint i = 0; i < v->len; i++)
        json_builder_add_string_value(b, g_ptr_array_index(v, i));
    json_builder_end_array(b);
}

FILE *prism_app_out(const PrismComm *comm)
{
    return comm->rank == 0 ? stdout : NULL;
}

/* Strict unsigned parse: digits only, 1 <= v <= 2^31. */
static gboolean parse_count(const char *text, const char *what, uint64_t *out, GError **error)
{
    char *end = NULL;
    errno = 0;
    if (text[0] < '0' || text[0] > '9') {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "%s: '%s' is not a positive integer", what, text);
        return FALSE;
    }
    guint64 v = g_ascii_strtoull(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v == 0 || v > (1u << 31)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "%s: '%s' must be an integer between 1 and 2147483648", what, text);
        return FALSE;
    }
    *out = v;
    return TRUE;
}

static gint compare_u32(gconstpointer a, gconstpointer b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

gboolean prism_app_parse_devices(const char *text, uint32_t **out, size_t *n_out, GError **error)
{
    static const char *what = "--devices";
    g_autoptr(GArray) list = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_auto(GStrv) items = g_strsplit(text, ",", -1);
    if (items[0] == NULL) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "%s: empty value (forms: N, N1,N2,..., A:B, A:B:STEP)", what);
        return FALSE;
    }
    for (char **it = items; *it != NULL; it++) {
        g_auto(GStrv) parts = g_strsplit(g_strstrip(*it), ":", -1);
        guint np = g_strv_length(parts);
        uint64_t a = 0, b = 0, step = 0;
        if (np == 0 || np > 3) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                        "%s: '%s' is not N, A:B or A:B:STEP", what, *it);
            return FALSE;
        }
        if (!parse_count(parts[0], what, &a, error))
            return FALSE;
        b = a;
        if (np >= 2 && !parse_count(parts[1], what, &b, error))
            return FALSE;
        if (np == 3 && !parse_count(parts[2], what, &step, error))
            return FALSE;
        if (b < a) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                        "%s: range '%s' ends before it starts", what, *it);
            return FALSE;
        }
        for (uint64_t v = a; v <= b;) {
            uint32_t v32 = (uint32_t)v;
            g_array_append_val(list, v32);
            if (list->len > 4096) {
                g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                            "%s: '%s' gives more than 4096 device counts", what, text);
                return FALSE;
            }
            if (np == 1)
                break;
            v = np == 3 ? v + step : v * 2; /* A:B walks powers of two times A */
        }
    }
    g_array_sort(list, compare_u32);
    size_t n = 0;
    uint32_t *v = (uint32_t *)(void *)list->data;
    for (size_t i = 0; i < list->len; i++)
        if (n == 0 || v[n - 1] != v[i])
            v[n++] = v[i];
    *out = g_memdup2(v, n * sizeof(uint32_t));
    *n_out = n;
    return TRUE;
}

static gboolean load_local(const PrismCommonOptions *o, PrismInputs *in, GError **error)
{
    in->defaults_used = o->model == NULL && o->cluster == NULL && o->devices == NULL;
    in->model = prism_model_resolve(o->model ? o->model : PRISM_DEFAULT_MODEL, error);
    if (in->model == NULL)
        return FALSE;
    in->cluster = prism_cluster_resolve(o->cluster ? o->cluster : PRISM_DEFAULT_CLUSTER, error);
    if (in->cluster == NULL)
        return FALSE;
    if (o->devices != NULL) {
        if (!prism_app_parse_devices(o->devices, &in->devices, &in->n_devices, error))
            return FALSE;
    } else {
        in->devices = g_new(uint32_t, 1);
        in->devices[0] =
            in->cluster->file_devices > 0 ? in->cluster->file_devices : PRISM_DEFAULT_DEVICES;
        in->n_devices = 1;
    }
    /* a cluster file that counts its devices (devices, or nodes x devices_per_node) takes
     * no other count */
    for (size_t i = 0; in->cluster->file_devices > 0 && i < in->n_devices; i++)
        if (in->devices[i] != in->cluster->file_devices) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT,
                        "--devices %u: the cluster file %s describes %u devices ([cluster] "
                        "devices, or nodes x devices_per_node; allowed: --devices %u, or "
                        "leave --devices out)",
                        in->devices[i], o->cluster, in->cluster->file_devices,
                        in->cluster->file_devices);
            return FALSE;
        }
    prism_training_default(&in->training);
    /* Unset options keep the defaults; a given value must be positive. */
    gint64 unset_int = o->unset_markers ? PRISM_OPT_UNSET_INT : 0;
    const struct {
        const char *name;
        gint64 value;
        uint64_t *dest;
    } sizes[] = {{"gbs", o->gbs, &in->training.gbs}, {"seq", o->seq, &in->training.seq}};
    for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++) {
        if (sizes[i].value == unset_int)
            continue;
        if (sizes[i].value <= 0) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                        "--%s %" G_GINT64_FORMAT ": must be a positive integer", sizes[i].name,
                        sizes[i].value);
            return FALSE;
        }
        *sizes[i].dest = (uint64_t)sizes[i].value;
    }
    if (o->dtype != NULL && !prism_dtype_parse(o->dtype, &in->training.dtype, error)) {
        g_prefix_error(error, "--dtype: ");
        return FALSE;
    }
    if (o->optimizer != NULL &&
        !prism_optimizer_parse(o->optimizer, &in->training.optimizer, error)) {
        g_prefix_error(error, "--optimizer: ");
        return FALSE;
    }
    double unset_mem = o->unset_markers ? PRISM_OPT_UNSET_DOUBLE : 0.0;
    if (o->mem_budget_gib != unset_mem) {
        if (!(o->mem_budget_gib > 0) || !isfinite(o->mem_budget_gib)) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                        "--mem-budget %g: must be a positive number of GiB", o->mem_budget_gib);
            return FALSE;
        }
        in->training.mem_budget_bytes = o->mem_budget_gib * 1073741824.0;
    }
    if (in->training.mem_budget_bytes > in->cluster->mem_bytes) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT,
                    "--mem-budget %g GiB exceeds the device memory of cluster '%s' (%g GiB)",
                    o->mem_budget_gib, in->cluster->name, in->cluster->mem_bytes / 1073741824.0);
        return FALSE;
    }
    if (in->cluster->peak_flops[in->training.dtype] <= 0) {
        g_autoptr(GString) has = g_string_new(NULL);
        for (int d = 0; d < PRISM_DTYPE_COUNT; d++)
            if (in->cluster->peak_flops[d] > 0)
                g_string_append_printf(has, "%s%s", has->len ? ", " : "",
                                       prism_dtype_name((PrismDtype)d));
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT,
                    "--dtype %s: cluster '%s' has no %s peak (peak_tflops_%s = 0); allowed on "
                    "it: %s",
                    prism_dtype_name(in->training.dtype), in->cluster->name,
                    prism_dtype_name(in->training.dtype), prism_dtype_name(in->training.dtype),
                    has->str);
        return FALSE;
    }
    if (!prism_training_validate(&in->training, error))
        return FALSE;
    prism_knobs_default(&in->knobs);
    if (o->framework != NULL) {
        in->framework = prism_app_framework_resolve(o->framework, error);
        if (in->framework == NULL) {
            g_prefix_error(error, "--framework: ");
            return FALSE;
        }
        /* the profile's knobs, and its optimizer unless --optimizer was given */
        const PrismOptimizer opt = in->training.optimizer;
        prism_framework_apply(in->framework, in->cluster->family, &in->knobs, &in->training);
        if (o->optimizer != NULL)
            in->training.optimizer = opt;
    }
    if (!prism_app_knob_overrides(o, &in->user_knobs, error))
        return FALSE;
    prism_knob_overrides_apply(&in->user_knobs, &in->knobs);
    return prism_app_check_budget(&in->training, in->cluster, &in->knobs, error);
}

gboolean prism_app_knob_overrides(const PrismCommonOptions *o, PrismKnobOverrides *out,
                                  GError **error)
{
    prism_knob_overrides_init(out);
    if (o->knobs_file != NULL && !prism_knob_overrides_load_file(out, o->knobs_file, error))
        return FALSE;
    for (char **s = o->set; s != NULL && *s != NULL; s++)
        if (!prism_knob_overrides_set(out, *s, error)) {
            g_prefix_error(error, "--set: ");
            return FALSE;
        }
    return TRUE;
}

gboolean prism_app_check_budget(const PrismTraining *t, const PrismCluster *c, const PrismKnobs *k,
                                GError **error)
{
    const double gib = 1073741824.0;
    double margin = k->v[PRISM_KNOB_MEM_MARGIN];
    double budget = t->mem_budget_bytes > 0 ? t->mem_budget_bytes : c->mem_bytes;
    if (budget > margin)
        return TRUE;
    if (t->mem_budget_bytes > 0)
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT,
                    "--mem-budget %g GiB leaves no memory: the knob mem_margin keeps %g GiB "
                    "free on each device; give a larger budget or lower mem_margin (--set "
                    "mem_margin=BYTES)",
                    budget / gib, margin / gib);
    else
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT,
                    "cluster '%s': %g GiB per device leaves no memory after the %g GiB the "
                    "knob mem_margin keeps free; lower mem_margin (--set mem_margin=BYTES)",
                    c->name, budget / gib, margin / gib);
    return FALSE;
}

gboolean prism_app_load_inputs(PrismComm *comm, const PrismCommonOptions *o, PrismInputs *in,
                               GError **error)
{
    memset(in, 0, sizeof *in);
    /* Test hook: PRISM_TEST_FAIL_RANK=R makes rank R fail here, as a rank that cannot read
     * a file would; the agreement below must bring every rank down with exit status 2. */
    const char *fail = g_getenv("PRISM_TEST_FAIL_RANK");
    if (fail != NULL && fail[0] != '\0' && atoi(fail) == comm->rank)
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_FILE,
                    "rank %d: injected input failure (PRISM_TEST_FAIL_RANK=%s)", comm->rank, fail);
    else
        (void)load_local(o, in, error);
    gboolean ok = prism_comm_agree_error(comm, error);
    /* a cluster file without a base: the attributes it leaves to generic defaults, once */
    if (ok && comm->rank == 0 && in->cluster->generic[0] != '\0')
        fprintf(stderr,
                "prism: warning: cluster file %s leaves these attributes at generic defaults "
                "(no tile/wave quantisation, GEMM efficiency 0.8, HBM 2000 GB/s, no offloading "
                "where missing): %s; `base = PRESET` inherits a preset's cited values\n",
                o->cluster, in->cluster->generic);
    if (!ok)
        prism_inputs_clear(in);
    /* a sequence past the model's positions: priced as given, but said (rank 0 once) */
    if (ok && comm->rank == 0 && (o->flags & PRISM_OPT_TRAINING) && in->model != NULL &&
        in->model->max_positions > 0 && in->training.seq > in->model->max_positions)
        fprintf(stderr,
                "prism: warning: --seq %" G_GUINT64_FORMAT " is longer than the %" G_GUINT64_FORMAT
                " positions of %s (max_position_embeddings); the model needs %s to train at "
                "that length, and prism prices the sequence as given\n",
                in->training.seq, in->model->max_positions, in->model->name,
                in->model->pos == PRISM_POS_LEARNED ? "a longer learned position table"
                                                    : "its RoPE scaled or extended");
    return ok;
}

void prism_inputs_clear(PrismInputs *in)
{
    g_clear_pointer(&in->model, prism_model_free);
    g_clear_pointer(&in->cluster, prism_cluster_free);
    g_clear_pointer(&in->devices, g_free);
    g_clear_pointer(&in->framework, prism_framework_free);
    in->n_devices = 0;
}
