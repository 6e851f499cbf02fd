// SPDX-License-Identifier: MIT
/*
 * cmd_validate.c - `prism validate [CSV]`: predicted versus measured memory, step time,
 * TFLOP/s and MFU for published runs (default: benchmarks/measured.csv of the source
 * tree, a copy of shared/validation/measured.csv). Collective like every command; rank 0
 * prints.
 */
#include "app-internal.h"

#include <prism/cost.h>

#ifndef PRISM_SOURCE_DIR
#define PRISM_SOURCE_DIR "."
#endif

gboolean prism_cmd_validate(PrismComm *comm, int argc, char **argv, GError **error)
{
    PrismCommonOptions o = {.flags = PRISM_OPT_KNOBS};
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("[CSV] - compare predictions with published measurements");
    g_option_context_set_description(
        ctx, "CSV defaults to benchmarks/measured.csv (of the current folder, else of the source "
             "tree). Rows that do not state what the model "
             "needs are skipped with the reason.\nKnobs set with --set/--knobs override each "
             "source's stated setup.");
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
    report = prism_validate_report(path, &k, error);
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
