// SPDX-License-Identifier: MIT
/*
 * test_cli_options.c - the shared CLI options (src/app/app_common.c): --devices forms,
 * --help handling without exit(), option errors as bad input, and the unset markers that
 * let an explicit 0 be rejected.
 */
#include <string.h>

#include <CUnit/CUnit.h>

#include "../../src/app/app-internal.h"
#include "prism_test_util.h"

static gboolean devices_equal(const char *text, const uint32_t *want, size_t n_want)
{
    uint32_t *got = NULL;
    size_t n = 0;
    GError *error = NULL;
    gboolean ok = prism_app_parse_devices(text, &got, &n, &error);
    if (!ok)
        fprintf(stderr, "%s: %s\n", text, error->message);
    ok = ok && n == n_want && memcmp(got, want, n * sizeof *got) == 0;
    g_free(got);
    g_clear_error(&error);
    return ok;
}

static void test_devices_forms(void)
{
    /* N; a list (sorted, duplicates dropped); A:B walks A, 2A, 4A, ... <= B; A:B:STEP. */
    CU_ASSERT_TRUE(devices_equal("1024", (const uint32_t[]){1024}, 1));
    CU_ASSERT_TRUE(devices_equal("256,64,128,64", (const uint32_t[]){64, 128, 256}, 3));
    CU_ASSERT_TRUE(devices_equal("64:1024", (const uint32_t[]){64, 128, 256, 512, 1024}, 5));
    CU_ASSERT_TRUE(devices_equal("24:100", (const uint32_t[]){24, 48, 96}, 3));
    CU_ASSERT_TRUE(devices_equal("8:32:8", (const uint32_t[]){8, 16, 24, 32}, 4));
    CU_ASSERT_TRUE(devices_equal("8:8,2", (const uint32_t[]){2, 8}, 2));
}

static void test_devices_errors(void)
{
    static const char *bad[] = {"",        "0",   "-8",    "abc",        "8:4",
                                "1:2:3:4", "12x", "8,,16", "1:100000:1", "99999999999"};
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        uint32_t *got = NULL;
        size_t n = 0;
        GError *error = NULL;
        gboolean ok = prism_app_parse_devices(bad[i], &got, &n, &error);
        if (ok)
            fprintf(stderr, "'%s' was accepted\n", bad[i]);
        CU_ASSERT_FALSE(ok);
        CU_ASSERT_TRUE(error != NULL && error->domain == PRISM_INPUT_ERROR &&
                       strstr(error->message, "--devices") != NULL);
        g_free(got);
        g_clear_error(&error);
    }
}

/* Parse ARGS with the shared options of FLAGS. */
static gboolean parse(unsigned flags, const char *const *args, PrismCommonOptions *o,
                      GError **error)
{
    memset(o, 0, sizeof *o);
    o->flags = flags;
    GOptionContext *ctx = g_option_context_new(NULL);
    prism_app_add_common_options(ctx, o);
    int argc = (int)g_strv_length((char **)args);
    char **argv = g_strdupv((char **)args);
    char **keep = g_memdup2(argv, sizeof(char *) * ((size_t)argc + 1));
    gboolean ok = prism_app_parse(ctx, &argc, &argv, error);
    g_free(argv);
    g_strfreev(keep);
    g_option_context_free(ctx);
    return ok;
}

static void test_help_and_errors(void)
{
    PrismCommonOptions o;
    GError *error = NULL;
    /* --help: FALSE with HELP_SHOWN carrying the help text (no exit()). */
    CU_ASSERT_FALSE(
        parse(PRISM_OPT_ALL_INPUTS, (const char *const[]){"prism x", "--help", NULL}, &o, &error));
    CU_ASSERT_TRUE(g_error_matches(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_HELP_SHOWN));
    CU_ASSERT_PTR_NOT_NULL(error ? strstr(error->message, "--model") : NULL);
    CU_ASSERT_PTR_NOT_NULL(error ? strstr(error->message, "--mem-budget") : NULL);
    g_clear_error(&error);
    prism_common_options_clear(&o);
    /* after "--", --help is an argument */
    CU_ASSERT_TRUE(
        parse(PRISM_OPT_JSON, (const char *const[]){"prism x", "--", "--help", NULL}, &o, &error));
    prism_common_options_clear(&o);
    /* unknown option and bad integer: bad input (exit status 2) */
    CU_ASSERT_FALSE(
        parse(PRISM_OPT_ALL_INPUTS, (const char *const[]){"prism x", "--modle", NULL}, &o, &error));
    CU_ASSERT_TRUE(g_error_matches(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE));
    g_clear_error(&error);
    prism_common_options_clear(&o);
    CU_ASSERT_FALSE(parse(PRISM_OPT_ALL_INPUTS,
                          (const char *const[]){"prism x", "--gbs", "1e3", NULL}, &o, &error));
    CU_ASSERT_TRUE(g_error_matches(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE));
    g_clear_error(&error);
    prism_common_options_clear(&o);
}

static void test_unset_markers(void)
{
    PrismCommonOptions o;
    CU_ASSERT_TRUE(parse(PRISM_OPT_ALL_INPUTS, (const char *const[]){"prism x", NULL}, &o, NULL));
    CU_ASSERT_TRUE(o.unset_markers);
    CU_ASSERT_EQUAL(o.gbs, PRISM_OPT_UNSET_INT);
    CU_ASSERT_EQUAL(o.mem_budget_gib, PRISM_OPT_UNSET_DOUBLE);
    prism_common_options_clear(&o);
    CU_ASSERT_TRUE(parse(PRISM_OPT_ALL_INPUTS,
                         (const char *const[]){"prism x", "--gbs", "0", "-m", "llama2-7b", NULL},
                         &o, NULL));
    CU_ASSERT_EQUAL(o.gbs, 0); /* explicit 0 stays visible: load_inputs rejects it */
    CU_ASSERT_STRING_EQUAL(o.model, "llama2-7b");
    prism_common_options_clear(&o);
}

static CU_TestInfo cli_tests[] = {
    {"--devices forms", test_devices_forms},
    {"--devices errors", test_devices_errors},
    {"--help and option errors", test_help_and_errors},
    {"unset markers", test_unset_markers},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"cli_options", NULL, NULL, NULL, NULL, cli_tests},
    CU_SUITE_INFO_NULL,
};
