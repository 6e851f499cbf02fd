// SPDX-License-Identifier: MIT
/*
 * test_sources.c - every shipped default carries a machine-readable citation (core.h,
 * "KIND: WHERE"): each knob's default, each attribute of each cluster preset, each key of
 * each shipped framework profile (outside [profile], its description) and of sources.ini.
 * A value without one, with two, or with an unknown kind fails. Negative controls: the
 * parser's refusals by hand, and copies of a shipped profile with one `source:` line
 * removed, doubled or of an unknown kind, each flagged on exactly that key.
 */
#include <string.h>

#include <CUnit/CUnit.h>
#include <glib/gstdio.h>

#include <prism/cluster.h>
#include <prism/core.h>
#include <prism/framework.h>
#include <prism/knobs.h>
#include <prism/ranges.h>

#include "prism_test_util.h"

/* TRUE when @p text is a well-formed citation; prints what is wrong otherwise. */
static gboolean cited(const char *what, const char *text)
{
    PrismSourceKind kind;
    g_autofree char *where = NULL, *problem = NULL;
    const gboolean ok = prism_source_parse(text, &kind, &where, &problem);
    if (!ok)
        fprintf(stderr, "\n  %s: %s", what, problem);
    return ok && kind != PRISM_SOURCE_NONE && where != NULL && *where != '\0';
}

static void test_parse(void)
{
    PrismSourceKind kind;
    char *where = NULL, *problem = NULL;
    /* every kind by name, WHERE stripped, split at the first ':' only */
    const char *const kinds[] = {"published", "count", "code", "derived", "convention"};
    for (int i = 0; i < 5; i++) {
        g_autofree char *text = g_strdup_printf(" %s :  a/b.py@v1: x ", kinds[i]);
        CU_ASSERT_TRUE(prism_source_parse(text, &kind, &where, &problem));
        CU_ASSERT_EQUAL(kind, (PrismSourceKind)(i + 1));
        CU_ASSERT_STRING_EQUAL(prism_source_kind_name(kind), kinds[i]);
        CU_ASSERT_STRING_EQUAL(where, "a/b.py@v1: x");
        CU_ASSERT_PTR_NULL(problem);
        g_free(where);
    }
    /* refusals: no citation, an unknown kind, no colon, no WHERE */
    const char *const bad[] = {
        "guessed: from the rows", "published the datasheet", "code:", "code:   ", ": x", ""};
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        CU_ASSERT_FALSE(prism_source_parse(bad[i], &kind, &where, &problem));
        CU_ASSERT_EQUAL(kind, PRISM_SOURCE_NONE);
        CU_ASSERT_PTR_NULL(where);
        CU_ASSERT_PTR_NOT_NULL(problem);
        g_free(problem);
    }
    CU_ASSERT_FALSE(prism_source_parse(NULL, &kind, NULL, &problem));
    CU_ASSERT_STRING_EQUAL(problem, "no citation");
    g_free(problem);
    CU_ASSERT_FALSE(prism_source_parse("guessed: x", &kind, NULL, &problem));
    CU_ASSERT_PTR_NOT_NULL(strstr(problem, "unknown kind 'guessed'"));
    g_free(problem);
}

static void test_knobs(void)
{
    for (int i = 0; i < PRISM_KNOB_COUNT; i++) {
        const PrismKnobInfo *ki = prism_knob_info((PrismKnobId)i);
        CU_ASSERT_TRUE(cited(ki->name, ki->source));
    }
}

/* every range of ranges.h cites its ends, names a knob or the clock, and lo <= hi */
static void test_ranges(void)
{
    CU_ASSERT_TRUE(prism_knob_range_count() >= 5);
    for (size_t i = 0; i < prism_knob_range_count(); i++) {
        const PrismKnobRange *r = prism_knob_range(i);
        PrismKnobId id;
        CU_ASSERT_TRUE(cited(r->name, r->source));
        CU_ASSERT_TRUE(r->lo <= r->hi);
        CU_ASSERT_TRUE(prism_knob_lookup(r->name, &id, NULL) || r->kind == PRISM_RANGE_CLOCK);
        CU_ASSERT_PTR_EQUAL(prism_knob_range_find(r->name), r);
    }
    CU_ASSERT_PTR_NULL(prism_knob_range_find("tp_overlap"));
    CU_ASSERT_PTR_NULL(prism_knob_range(prism_knob_range_count()));
}

static void test_presets(void)
{
    const char *const *keys = prism_cluster_source_keys();
    /* 25 device keys and 5 of the two levels (a level's name is a label) */
    CU_ASSERT_EQUAL(g_strv_length((char **)keys), 30);
    CU_ASSERT_TRUE(prism_cluster_preset_count() >= 15);
    for (size_t p = 0; p < prism_cluster_preset_count(); p++) {
        const char *name = prism_cluster_preset_name(p);
        for (const char *const *k = keys; *k != NULL; k++) {
            g_autofree char *what = g_strdup_printf("preset %s %s", name, *k);
            CU_ASSERT_TRUE(cited(what, prism_cluster_preset_source(name, *k)));
        }
    }
    CU_ASSERT_PTR_NULL(prism_cluster_preset_source("H100-SXM", "no_such_key"));
    CU_ASSERT_PTR_NULL(prism_cluster_preset_source("no-such-preset", "memory_gib"));
    CU_ASSERT_PTR_NOT_NULL(prism_cluster_preset_source("h100-sxm", "memory_gib"));
}

/* Keys of @p path outside [profile] that carry a problem; *n_keys counts those checked. */
static int problems(const char *path, int *n_keys, const char **first_key)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) c = prism_keyfile_citations(path, &error);
    if (c == NULL) {
        fprintf(stderr, "\n  %s: %s", path, error->message);
        return -1;
    }
    int bad = 0;
    *n_keys = 0;
    for (guint i = 0; i < c->len; i++) {
        const PrismCitedKey *k = g_ptr_array_index(c, i);
        if (strcmp(k->group, "profile") == 0)
            continue;
        ++*n_keys;
        if (k->problem != NULL) {
            if (bad++ == 0 && first_key != NULL)
                *first_key = g_intern_string(k->key);
            fprintf(stderr, "\n  %s [%s] %s: %s", path, k->group, k->key, k->problem);
        } else {
            CU_ASSERT_PTR_NOT_NULL(k->where);
            CU_ASSERT_NOT_EQUAL(k->kind, PRISM_SOURCE_NONE);
        }
    }
    return bad;
}

static void test_shipped_files(void)
{
    g_auto(GStrv) names = prism_framework_names();
    CU_ASSERT_TRUE(g_strv_length(names) >= 6);
    int total = 0;
    for (char **n = names; *n != NULL; n++) {
        g_autoptr(GError) error = NULL;
        g_autoptr(PrismFramework) fw = prism_framework_resolve(*n, &error);
        CU_ASSERT_PTR_NOT_NULL_FATAL(fw);
        int keys = 0;
        CU_ASSERT_EQUAL(problems(fw->path, &keys, NULL), 0);
        /* every profile sets knobs, memory, defaults, planning and model keys */
        CU_ASSERT_TRUE(keys >= 15);
        total += keys;
    }
    g_autofree char *si = prism_framework_data_file("sources.ini", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(si);
    int keys = 0;
    CU_ASSERT_EQUAL(problems(si, &keys, NULL), 0);
    CU_ASSERT_TRUE(keys >= 11); /* the [sources] mapping alone has 11 */
    CU_ASSERT_TRUE(total > 100);
}

/* A copy of megatron-core.ini with the `source:` line above `pp_overlap` replaced by
 * @p line (NULL: removed). */
static char *copy_with(const char *dir, const char *tag, const char *line)
{
    g_autoptr(PrismFramework) fw = prism_framework_resolve("megatron-core", NULL);
    g_autofree char *text = NULL;
    if (fw == NULL || !g_file_get_contents(fw->path, &text, NULL, NULL))
        return NULL;
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    GString *out = g_string_new(NULL);
    for (char **l = lines; *l != NULL; l++) {
        const gboolean above = g_str_has_prefix(*l, "# source:") && l[1] != NULL &&
                               g_str_has_prefix(l[1], "pp_overlap");
        if (!above)
            g_string_append_printf(out, "%s%s", *l, l[1] != NULL ? "\n" : "");
        else if (line != NULL)
            g_string_append_printf(out, "%s\n", line);
    }
    char *path = g_strdup_printf("%s/%s.ini", dir, tag);
    g_file_set_contents(path, out->str, -1, NULL);
    g_string_free(out, TRUE);
    return path;
}

static void test_flagged(void)
{
    g_autofree char *dir = g_dir_make_tmp("prism-src-XXXXXX", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    const struct {
        const char *tag, *line, *needle;
    } cases[] = {
        {"removed", NULL, "no '# source: KIND: WHERE' line"},
        {"unknown", "# source: guessed: the rows liked it", "unknown kind 'guessed'"},
        {"twice", "# source: code: a\n# source: code: b", "2 source: lines"},
        {"empty", "# source: code:", "no WHERE"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *path = copy_with(dir, cases[i].tag, cases[i].line);
        CU_ASSERT_PTR_NOT_NULL_FATAL(path);
        /* the copy is still a valid profile: the citation check, not the loader, flags it */
        g_autoptr(PrismFramework) fw = prism_framework_load(path, NULL);
        CU_ASSERT_PTR_NOT_NULL(fw);
        int keys = 0;
        const char *key = NULL;
        CU_ASSERT_EQUAL(problems(path, &keys, &key), 1);
        CU_ASSERT_PTR_NOT_NULL(key);
        if (key != NULL)
            CU_ASSERT_STRING_EQUAL(key, "pp_overlap");
        g_autoptr(GPtrArray) c = prism_keyfile_citations(path, NULL);
        for (guint k = 0; c != NULL && k < c->len; k++) {
            const PrismCitedKey *ck = g_ptr_array_index(c, k);
            if (strcmp(ck->key, "pp_overlap") == 0)
                CU_ASSERT_PTR_NOT_NULL(strstr(ck->problem, cases[i].needle));
        }
        g_remove(path);
    }
    /* an unreadable file is an error, not an empty list */
    g_autofree char *missing = g_build_filename(dir, "missing.ini", NULL);
    g_autoptr(GError) error = NULL;
    CU_ASSERT_PTR_NULL(prism_keyfile_citations(missing, &error));
    CU_ASSERT_TRUE(g_error_matches(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_FILE));
    g_rmdir(dir);
}

static CU_TestInfo sources_tests[] = {
    {"citation text: kinds, WHERE, refusals", test_parse},
    {"every knob default is cited", test_knobs},
    {"every knob range is cited", test_ranges},
    {"every attribute of every preset is cited", test_presets},
    {"every key of every shipped profile and sources.ini is cited", test_shipped_files},
    {"a profile copy with a missing or bad source line is flagged", test_flagged},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"sources", NULL, NULL, NULL, NULL, sources_tests},
    CU_SUITE_INFO_NULL,
};
