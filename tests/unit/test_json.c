// SPDX-License-Identifier: MIT
/*
 * test_json.c - prism_json_to_string() repairs json-glib 1.6's number output: exponent
 * forms gain a bogus ".0" ("3e-09.0") and non-finite values print as "inf.0"/"nan.0".
 * The result must parse back with json-glib and keep every finite value exactly.
 */
#include <math.h>
#include <string.h>

#include <CUnit/CUnit.h>
#include <json-glib/json-glib.h>

#include <prism/core.h>

#include "prism_test_util.h"

static void test_numbers_repaired(void)
{
    const double values[] = {3e-09, 1e300, -2.5e-310, 0.1, 42.0, -7.0, 123456789.0};
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "values");
    json_builder_begin_array(b);
    for (size_t i = 0; i < G_N_ELEMENTS(values); i++)
        json_builder_add_double_value(b, values[i]);
    json_builder_add_double_value(b, INFINITY);
    json_builder_add_double_value(b, -INFINITY);
    json_builder_add_double_value(b, NAN);
    json_builder_end_array(b);
    json_builder_set_member_name(b, "text"); /* strings are never touched */
    json_builder_add_string_value(b, "3e-09.0 inf.0 \"quoted\" nan");
    json_builder_set_member_name(b, "flag");
    json_builder_add_boolean_value(b, TRUE);
    json_builder_set_member_name(b, "none");
    json_builder_add_null_value(b);
    json_builder_end_object(b);
    g_autoptr(JsonNode) root = json_builder_get_root(b);
    for (int pretty = 0; pretty < 2; pretty++) {
        g_autofree char *text = prism_json_to_string(root, pretty);
        g_autoptr(JsonParser) p = json_parser_new();
        GError *error = NULL;
        gboolean ok = json_parser_load_from_data(p, text, -1, &error);
        if (!ok)
            fprintf(stderr, "unparsable: %s\n%s\n", error->message, text);
        CU_ASSERT_TRUE(ok);
        g_clear_error(&error);
        if (!ok)
            continue;
        JsonObject *o = json_node_get_object(json_parser_get_root(p));
        JsonArray *a = json_object_get_array_member(o, "values");
        CU_ASSERT_EQUAL(json_array_get_length(a), G_N_ELEMENTS(values) + 3);
        for (size_t i = 0; i < G_N_ELEMENTS(values); i++)
            CU_ASSERT_EQUAL(json_array_get_double_element(a, (guint)i), values[i]);
        for (guint i = G_N_ELEMENTS(values); i < json_array_get_length(a); i++)
            CU_ASSERT_TRUE(json_array_get_null_element(a, i));
        CU_ASSERT_STRING_EQUAL(json_object_get_string_member(o, "text"),
                               "3e-09.0 inf.0 \"quoted\" nan");
        CU_ASSERT_TRUE(json_object_get_boolean_member(o, "flag"));
        CU_ASSERT_TRUE(json_object_get_null_member(o, "none"));
    }
}

/* Non-integer numbers print in their shortest round-trip form; integers keep every digit. */
static void test_shortest_numbers(void)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_array(b);
    json_builder_add_double_value(b, 0.6);
    json_builder_add_double_value(b, 0.1 + 0.2); /* needs 17 digits: 0.30000000000000004 */
    json_builder_add_double_value(b, 42.0);
    json_builder_add_int_value(b, G_GINT64_CONSTANT(9007199254740993)); /* 2^53 + 1 */
    json_builder_add_double_value(b, 3e-09);
    json_builder_end_array(b);
    g_autoptr(JsonNode) root = json_builder_get_root(b);
    g_autofree char *text = prism_json_to_string(root, FALSE);
    CU_ASSERT_STRING_EQUAL(text, "[0.6,0.30000000000000004,42.0,9007199254740993,3e-09]");
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    prism_format_double(buf, sizeof buf, 0.6);
    CU_ASSERT_STRING_EQUAL(buf, "0.6");
    prism_format_double(buf, sizeof buf, 1.0 / 3.0);
    CU_ASSERT_STRING_EQUAL(buf, "0.3333333333333333");
}

static CU_TestInfo json_tests[] = {
    {"numbers repaired, strings untouched", test_numbers_repaired},
    {"shortest round-trip numbers", test_shortest_numbers},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"json", NULL, NULL, NULL, NULL, json_tests},
    CU_SUITE_INFO_NULL,
};
