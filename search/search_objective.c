// SPDX-License-Identifier: MIT
/*
 * search_objective.c - objectives and ranking columns: "[min:|max:]NAME" where NAME is
 * a cost column, a strategy dimension or a friendly alias. Nothing here is collective.
 */
#include <prism/search.h>

#include <string.h>

#include <prism/core.h>

/* Friendly names accepted on the command line, mapped to cost column names. */
static const struct {
    const char *alias, *column;
} friendly[] = {
    {"step", "step_time"},     {"time", "step_time"},          {"memory", "peak_mem"},
    {"mem", "peak_mem"},       {"throughput", "tokens_per_s"}, {"tokens", "tokens_per_s"},
    {"bubble", "bubble_time"},
};

static gboolean unknown_name(const char *name, GError **error)
{
    GPtrArray *cands = g_ptr_array_new();
    for (int c = 0; c < PRISM_COL_COUNT; c++)
        g_ptr_array_add(cands, (gpointer)prism_col_info((PrismCostCol)c)->name);
    for (int d = 0; d < PRISM_DIM_COUNT; d++)
        g_ptr_array_add(cands, (gpointer)prism_dim_name((PrismDim)d));
    for (size_t i = 0; i < G_N_ELEMENTS(friendly); i++)
        g_ptr_array_add(cands, (gpointer)friendly[i].alias);
    g_autofree char *close =
        prism_close_names(name, (const char *const *)cands->pdata, cands->len, 4);
    g_ptr_array_unref(cands);
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                "unknown objective column '%s' (closest: %s; any cost column of `prism "
                "explain --json`, a strategy dimension such as devices or tp, optionally "
                "prefixed with max: or min:)",
                name, close);
    return FALSE;
}

gboolean prism_objective_parse(const char *text, PrismObjective *out, GError **error)
{
    g_autofree char *copy = g_strstrip(g_strdup(text));
    const char *name = copy;
    gboolean maximize = FALSE;
    if (g_ascii_strncasecmp(name, "max:", 4) == 0) {
        maximize = TRUE;
        name += 4;
    } else if (g_ascii_strncasecmp(name, "min:", 4) == 0) {
        name += 4;
    }
    if (*name == '\0') {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "objective '%s': no column name", text);
        return FALSE;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(friendly); i++)
        if (g_ascii_strcasecmp(name, friendly[i].alias) == 0)
            name = friendly[i].column;
    PrismCostCol col;
    PrismDim dim;
    if (prism_col_lookup(name, &col, NULL)) {
        *out = (PrismObjective){.kind = PRISM_COLUMN_COST, .id = (int)col, .maximize = maximize};
        return TRUE;
    }
    if (prism_dim_lookup(name, &dim, NULL)) {
        *out = (PrismObjective){.kind = PRISM_COLUMN_DIM, .id = (int)dim, .maximize = maximize};
        return TRUE;
    }
    return unknown_name(name, error);
}

gboolean prism_objectives_parse(const char *text, PrismObjective *out, size_t *n, GError **error)
{
    g_auto(GStrv) items = g_strsplit(text, ",", -1);
    size_t count = 0;
    for (char **it = items; *it != NULL; it++) {
        if (count == PRISM_FRONT_MAX_OBJECTIVES) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                        "--objectives '%s': at most %d objectives", text,
                        PRISM_FRONT_MAX_OBJECTIVES);
            return FALSE;
        }
        if (!prism_objective_parse(*it, &out[count], error)) {
            g_prefix_error(error, "--objectives: ");
            return FALSE;
        }
        for (size_t j = 0; j < count; j++)
            if (out[j].kind == out[count].kind && out[j].id == out[count].id) {
                g_autofree char *nm = prism_objective_name(&out[j]);
                g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT,
                            "--objectives '%s': column %s appears twice", text, nm);
                return FALSE;
            }
        count++;
    }
    if (count == 0) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "--objectives: empty list (example: step_time,peak_mem)");
        return FALSE;
    }
    *n = count;
    return TRUE;
}

char *prism_objective_name(const PrismObjective *o)
{
    const char *name = o->kind == PRISM_COLUMN_COST ? prism_col_info((PrismCostCol)o->id)->name
                                                    : prism_dim_name((PrismDim)o->id);
    return g_strdup_printf("%s%s", o->maximize ? "max:" : "", name);
}

double prism_objective_value(const PrismObjective *o, const PrismStrategy *s,
                             const double cols[PRISM_COL_COUNT])
{
    if (o->kind == PRISM_COLUMN_COST)
        return cols[o->id];
    return (double)prism_strategy_dim(s, (PrismDim)o->id);
}
