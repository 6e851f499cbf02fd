// SPDX-License-Identifier: MIT
/*
 * cmd_validate.c - `prism validate [CSV]`: predicted versus measured memory, step time,
 * TFLOP/s and MFU for published runs (default: benchmarks/measured.csv of the source
 * tree, a copy of shared/validation/measured.csv). Rows whose source leaves strategy dims
 * unstated are PLANNED: prism_app_validate_plan() runs the search (search.h) with the
 * stated dims fixed and reports the best strategy's throughput in a separate table.
 * Collective like every command (the planner's search runs on every rank); rank 0 prints.
 */
#include "app-internal.h"

#include <prism/cost.h>
#include <prism/search.h>
#include <prism/space.h>

#ifndef PRISM_SOURCE_DIR
#define PRISM_SOURCE_DIR "."
#endif

gboolean prism_app_validate_plan(const PrismValidatePlan *req, void *user,
                                 PrismValidatePlanResult *out, GError **error)
{
    PrismComm *comm = user;
    g_autoptr(PrismSpaceFilter) f = prism_space_filter_new();
    if (!prism_space_filter_fix(f, req->fix, error) ||
        (req->only != NULL && !prism_space_filter_only(f, req->only, error)))
        return FALSE;
    const uint32_t devices = req->devices;
    g_autoptr(PrismSpace) space = prism_space_new(prism_cost_model_model(req->cm),
                                                  prism_cost_model_training(req->cm), &devices, 1,
                                                  f, error);
    if (space == NULL)
        return FALSE;
    const PrismSearchJob job = {.cm = req->cm, .space = space, .row_weight = 0};
    PrismSearchOptions opt;
    prism_search_options_init(&opt);
    opt.top_k = 1; /* by step_time: at fixed gbs and devices the best MFU and TFLOP/s */
    opt.label = "validate";
    g_autoptr(PrismSearchResult) r = prism_search_run(comm, &job, 1, &opt, NULL, error);
    if (r == NULL)
        return FALSE;
    memset(out, 0, sizeof *out);
    out->searched = prism_search_result_total(r);
    out->feasible = prism_search_result_feasible(r);
    const PrismTopK *top = prism_search_result_top(r, 0);
    if (prism_topk_size(top) == 0)
        return TRUE;
    size_t j;
    return prism_search_row(&job, 1, prism_topk_index(top, 0), &j, &out->best, out->cols,
                            error);
}

gboolean prism_cmd_validate(PrismComm *comm, int argc, char **argv, GError **error)
{
    PrismCommonOptions o = {.flags = PRISM_OPT_KNOBS};
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("[CSV] - compare predictions with published measurements");
    g_option_context_set_description(
        ctx, "CSV defaults to benchmarks/measured.csv (of the current folder, else of the source "
             "tree). Rows that do not state what the model "
             "needs are skipped with the reason, or PLANNED when their source has a planned "
             "setup:\nthe dims the row states are fixed, the search picks the rest within what "
             "the source's framework supported,\nand the best strategy's throughput is compared "
             "in a separate table (achievable, not directly predicted).\nKnobs set with "
             "--set/--knobs override each source's stated setup.");
    prism_app_add_common_options(ctx, &o);
    gboolean ok = FALSE;
    g_autofree char *path = NULL;
    g_autofree char *report = NULL;
    PrismKnobs k;
    if (!prism_app_parse(ctx, &argc, &argv, error))
        goto out;
    if (argc > 2) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "one CSV at most, got '%s' and '%s'", argv[1], argv[2]);
        goto out;
    }
    if (argc == 2)
        path = g_strdup(argv[1]);
    else if (g_file_test("benchmarks/measured.csv", G_FILE_TEST_IS_REGULAR))
        path = g_strdup("benchmarks/measured.csv");
    else
        path = g_build_filename(PRISM_SOURCE_DIR, "benchmarks", "measured.csv", NULL);
    prism_knobs_default(&k);
    if (o.knobs_file != NULL && !prism_knobs_load_file(&k, o.knobs_file, error))
        goto out;
    for (char **s = o.set; s != NULL && *s != NULL; s++)
        if (!prism_knobs_set(&k, *s, error)) {
            g_prefix_error(error, "--set: ");
            goto out;
        }
    report = prism_validate_report_planned(path, &k, prism_app_validate_plan, comm, error);
    if (report == NULL)
        goto out;
    FILE *f = prism_app_out(comm);
    if (f != NULL)
        fputs(report, f);
    ok = TRUE;
out:
    prism_common_options_clear(&o);
    return ok;
}
