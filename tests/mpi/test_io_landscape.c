// SPDX-License-Identifier: MIT
/*
 * test_io_landscape.c - the landscape writer and reader at 1-4 ranks, fed with synthetic
 * batches through the PrismRowSink interface (no search driver needed).
 *
 * Oracle: every row is a closed-form function of its global index (make_row); the test
 * converts the expected double to the column's store type itself (a float cast for f32,
 * an integer cast for counts) and compares every value of every column read back. So a
 * pass at every rank count also proves the datasets do not depend on the rank count.
 * Partitions are deliberately uneven (rank r gets a share proportional to r + 1) and
 * chunk (1000), spill record (333) and batch (<= 97) sizes are coprime-ish, so chunk,
 * record, batch and rank boundaries all fall in different places.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include <CUnit/CUnit.h>

#include <prism/core.h>
#include <prism/io.h>

#include "prism_test_util.h"
#include "test_io_synth.h"

static char *test_path(const char *name)
{
    return g_strdup_printf("%s/%s-np%d.h5", prism_test_scratch_dir(), name,
                           prism_test_comm()->size);
}

static void test_opts(PrismLandscapeOptions *o)
{
    prism_landscape_options_default(o);
    o->chunk_rows = 1000;
    o->spill_rows = 333;
    o->fsync = FALSE; /* keep the test fast; fsync is exercised by the CLI tests */
}

static PrismLandscape *new_writer(const char *path, const PrismLandscapeOptions *o,
                                  const char *model)
{
    g_autoptr(PrismLandscapeSchema) schema = synth_schema();
    PrismLandscape *ls = prism_landscape_new(prism_test_comm(), path, schema, o);
    prism_landscape_add_attr(ls, "command_line", "test_io_landscape", FALSE);
    prism_landscape_add_attr(ls, "model", model, TRUE);
    prism_landscape_add_attr(ls, "space", "{\"tp\": [1, 2, 4, 8]}", TRUE);
    return ls;
}

/* Rows that become /pareto and /topk (rank 0's copies are the ones written). */
static const uint64_t pareto_idx[] = {3, 17, 500, 9000, 10006};
static const uint64_t topk_idx[] = {42, 7, 1001};

static gboolean run_session(PrismLandscape *ls, gboolean weighted, uint64_t stop_frac_num,
                            gboolean do_finish, GError **error)
{
    PrismComm *comm = prism_test_comm();
    uint64_t lo, hi;
    if (weighted)
        synth_weighted_block(TOTAL, comm->rank, comm->size, &lo, &hi);
    else
        prism_partition_block(TOTAL, comm->rank, comm->size, &lo, &hi);
    PrismRowSink sink = prism_landscape_sink(ls);
    if (!sink.begin(sink.user, TOTAL, lo, hi, error))
        return FALSE;
    uint64_t stop = lo + (hi - lo) * stop_frac_num / 4; /* feed stop_frac_num quarters */
    GError *local = NULL;
    gboolean fed = synth_feed(&sink, lo, stop, &local);
    gboolean ended = sink.end(sink.user, fed && stop == hi, error);
    if (!fed) {
        g_propagate_error(error, local);
        return FALSE;
    }
    if (!ended || stop != hi || !do_finish)
        return ended;
    PrismLandscapeRow pareto[G_N_ELEMENTS(pareto_idx)], topk[G_N_ELEMENTS(topk_idx)];
    for (size_t i = 0; i < G_N_ELEMENTS(pareto_idx); i++)
        synth_row(pareto_idx[i], &pareto[i]);
    for (size_t i = 0; i < G_N_ELEMENTS(topk_idx); i++)
        synth_row(topk_idx[i], &topk[i]);
    PrismGridPointInfo grid[5];
    for (uint32_t p = 0; p < 5; p++)
        grid[p] = (PrismGridPointInfo){p % 2 ? "llama2-7b" : "gpt3-1.3b",
                                       "A100-80GB",
                                       64u << p,
                                       512,
                                       2048,
                                       (uint64_t)p * JOB,
                                       MIN((uint64_t)(p + 1) * JOB, TOTAL) - (uint64_t)p * JOB};
    prism_landscape_set_grid(ls, grid, 5);
    return prism_landscape_finish(ls, pareto, G_N_ELEMENTS(pareto), topk, G_N_ELEMENTS(topk),
                                  error);
}

/* One writer session: prepare, feed quarters/4 of each rank's block, optionally finish.
 * Returns the agreed status; *spilled / *skipped get the sums over ranks. */
static gboolean session(const char *path, const PrismLandscapeOptions *o, const char *model,
                        gboolean weighted, uint64_t quarters, gboolean do_finish, uint64_t *spilled,
                        uint64_t *skipped, GError **error)
{
    PrismComm *comm = prism_test_comm();
    PrismLandscape *ls = new_writer(path, o, model);
    gboolean ok =
        prism_landscape_prepare(ls, error) && run_session(ls, weighted, quarters, do_finish, error);
    uint64_t sp = 0, sk = 0;
    prism_comm_allreduce_u64(comm, prism_landscape_rows_spilled(ls), MPI_SUM, &sp, NULL);
    prism_comm_allreduce_u64(comm, prism_landscape_rows_skipped(ls), MPI_SUM, &sk, NULL);
    if (spilled)
        *spilled = sp;
    if (skipped)
        *skipped = sk;
    if (!ok && comm->rank == 0 && getenv("PRISM_TEST_VERBOSE"))
        fprintf(stderr, "session %s: %s\n", path, *error ? (*error)->message : "?");
    prism_landscape_free(ls);
    return prism_test_all(ok);
}

/* Read every column of the file back (each rank a block) and compare with the oracle. */
static gboolean verify_file(const char *path, gboolean with_landscape)
{
    PrismComm *comm = prism_test_comm();
    GError *error = NULL;
    PrismLandscapeFile *f = prism_landscape_file_open(comm, path, &error);
    if (f == NULL) {
        if (comm->rank == 0)
            fprintf(stderr, "verify: %s\n", error->message);
        g_clear_error(&error);
        return FALSE;
    }
    gboolean ok = TRUE;
    g_autoptr(PrismLandscapeSchema) schema = synth_schema();
    const char *status = prism_landscape_file_attr(f, "status");
    ok &= status != NULL && strcmp(status, "complete") == 0;
    const char *model = prism_landscape_file_attr(f, "model");
    ok &= model != NULL && strcmp(model, "gpt3-1.3b") == 0;
    const char *rows_attr = prism_landscape_file_attr(f, "rows");
    ok &= rows_attr != NULL && g_ascii_strtoull(rows_attr, NULL, 10) == TOTAL;
    /* feasible = g % 3 != 0 over [0, 10007): 10007 - ceil(10007 / 3) = 10007 - 3336 */
    const char *feas_attr = prism_landscape_file_attr(f, "feasible_rows");
    ok &= feas_attr != NULL && g_ascii_strtoull(feas_attr, NULL, 10) == 6671;
    ok &= prism_landscape_file_has_landscape(f) == with_landscape;
    if (with_landscape) {
        const PrismLandscapeSchema *fs = prism_landscape_file_schema(f);
        ok &= prism_landscape_file_rows(f) == TOTAL && fs->n == schema->n;
        for (size_t c = 0; ok && c < schema->n; c++)
            ok &= strcmp(fs->cols[c].name, schema->cols[c].name) == 0 &&
                  fs->cols[c].store == schema->cols[c].store;
        uint64_t lo, hi;
        prism_partition_block(TOTAL, comm->rank, comm->size, &lo, &hi);
        double *v = g_new(double, MAX(hi - lo, 1));
        for (size_t c = 0; c < schema->n; c++) {
            gboolean read = prism_landscape_file_read(f, "landscape", schema->cols[c].name, lo,
                                                      hi - lo, v, &error);
            g_clear_error(&error);
            ok &= read;
            for (uint64_t g = lo; read && g < hi; g++)
                if (v[g - lo] != synth_expected(&schema->cols[c], g)) {
                    if (ok)
                        fprintf(stderr, "[rank %d] %s row %" G_GUINT64_FORMAT ": %.17g != %.17g\n",
                                comm->rank, schema->cols[c].name, g, v[g - lo],
                                synth_expected(&schema->cols[c], g));
                    ok = FALSE;
                }
        }
        g_free(v);
    }
    /* /pareto and /topk: indices and one float column, read by every rank. */
    ok &= prism_landscape_file_group_rows(f, "pareto") == G_N_ELEMENTS(pareto_idx);
    ok &= prism_landscape_file_group_rows(f, "topk") == G_N_ELEMENTS(topk_idx);
    double idx[8], val[8], rk[8];
    int ci = prism_landscape_schema_find(schema, "peak_mem");
    gboolean r1 =
        prism_landscape_file_read(f, "pareto", "index", 0, G_N_ELEMENTS(pareto_idx), idx, &error);
    g_clear_error(&error);
    gboolean r2 = prism_landscape_file_read(f, "pareto", "peak_mem", 0, G_N_ELEMENTS(pareto_idx),
                                            val, &error);
    g_clear_error(&error);
    ok &= r1 && r2;
    for (size_t i = 0; r1 && r2 && i < G_N_ELEMENTS(pareto_idx); i++)
        ok &= idx[i] == (double)pareto_idx[i] &&
              val[i] == synth_expected(&schema->cols[ci], pareto_idx[i]);
    r1 = prism_landscape_file_read(f, "topk", "rank", 0, 3, rk, &error);
    g_clear_error(&error);
    r2 = prism_landscape_file_read(f, "topk", "index", 0, 3, idx, &error);
    g_clear_error(&error);
    ok &= r1 && r2 && rk[0] == 1 && rk[2] == 3 && idx[0] == 42 && idx[1] == 7 && idx[2] == 1001;
    /* /grid: row ranges and feasible counts per point. Point 4 holds rows 10000..10006;
     * of those, g % 3 == 0 for 10002 and 10005, so 5 are feasible. Point 0 holds
     * 0..2499: 834 multiples of 3, 1666 feasible. */
    double feas[5], first[5];
    r1 = prism_landscape_file_read(f, "grid", "feasible_rows", 0, 5, feas, &error);
    g_clear_error(&error);
    r2 = prism_landscape_file_read(f, "grid", "first_row", 0, 5, first, &error);
    g_clear_error(&error);
    ok &= r1 && r2 && feas[4] == 5 && feas[0] == 1666 && first[3] == 7500;
    /* A missing column is an input error naming the close names. */
    double dummy;
    gboolean bad = prism_landscape_file_read(f, "landscape", "step_tme", 0, 0, &dummy, &error);
    if (with_landscape)
        ok &= !bad && error != NULL && strstr(error->message, "step_time") != NULL;
    g_clear_error(&error);
    prism_landscape_file_close(f);
    return prism_test_all(ok);
}

static gboolean exists_all(const char *path)
{
    return prism_test_all(g_file_test(path, G_FILE_TEST_EXISTS));
}

static void remove_outputs(const char *path)
{
    if (prism_test_comm()->rank == 0 && g_getenv("PRISM_TEST_KEEP") == NULL) {
        g_autofree char *partial = g_strconcat(path, ".partial", NULL);
        g_autofree char *spill = g_strconcat(path, ".partial.spill", NULL);
        g_unlink(path);
        g_unlink(partial);
        GDir *d = g_dir_open(spill, 0, NULL);
        const char *n;
        while (d != NULL && (n = g_dir_read_name(d)) != NULL) {
            g_autofree char *p = g_build_filename(spill, n, NULL);
            g_unlink(p);
        }
        if (d)
            g_dir_close(d);
        g_rmdir(spill);
    }
    prism_test_all(TRUE);
}

static void test_write_read_roundtrip(void)
{
    g_autofree char *path = test_path("roundtrip");
    PrismLandscapeOptions o;
    test_opts(&o);
    GError *error = NULL;
    uint64_t spilled = 0;
    CU_ASSERT_TRUE(session(path, &o, "gpt3-1.3b", TRUE, 4, TRUE, &spilled, NULL, &error));
    g_clear_error(&error);
    CU_ASSERT_EQUAL(spilled, TOTAL); /* every row spilled once, nothing skipped */
    CU_ASSERT_TRUE(verify_file(path, TRUE));
    g_autofree char *partial = g_strconcat(path, ".partial", NULL);
    g_autofree char *spill = g_strconcat(path, ".partial.spill", NULL);
    CU_ASSERT_FALSE(prism_test_all(g_file_test(partial, G_FILE_TEST_EXISTS) ||
                                   g_file_test(spill, G_FILE_TEST_EXISTS)));
    /* The output exists now: a second run without --force is refused on every rank. */
    PrismLandscape *ls = new_writer(path, &o, "gpt3-1.3b");
    CU_ASSERT_FALSE(prism_landscape_prepare(ls, &error));
    CU_ASSERT_TRUE(
        prism_test_all(g_error_matches(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_OUTPUT) &&
                       strstr(error->message, "--force") != NULL));
    g_clear_error(&error);
    prism_landscape_free(ls);
    /* With --force it is rewritten (same content, even partition). */
    o.force = TRUE;
    CU_ASSERT_TRUE(session(path, &o, "gpt3-1.3b", FALSE, 4, TRUE, NULL, NULL, &error));
    g_clear_error(&error);
    CU_ASSERT_TRUE(verify_file(path, TRUE));
    remove_outputs(path);
}

static void test_resume_after_stop(void)
{
    PrismComm *comm = prism_test_comm();
    g_autofree char *path = test_path("resume");
    g_autofree char *partial = g_strconcat(path, ".partial", NULL);
    PrismLandscapeOptions o;
    test_opts(&o);
    GError *error = NULL;
    /* Session 1: weighted partition, every rank stops after half its block. */
    uint64_t first_session = 0, skipped = 0, spilled = 0;
    CU_ASSERT_TRUE(session(path, &o, "gpt3-1.3b", TRUE, 2, FALSE, &first_session, NULL, &error));
    g_clear_error(&error);
    CU_ASSERT_FALSE(exists_all(path));
    CU_ASSERT_TRUE(exists_all(partial));
    /* `prism info` can open the partial file: it says incomplete. */
    PrismLandscapeFile *pf = prism_landscape_file_open(comm, partial, &error);
    g_clear_error(&error);
    const char *st = pf ? prism_landscape_file_attr(pf, "status") : NULL;
    CU_ASSERT_TRUE(prism_test_all(st != NULL && strcmp(st, "incomplete") == 0));
    prism_landscape_file_close(pf);
    /* Without --resume the partial run is refused. */
    CU_ASSERT_FALSE(session(path, &o, "gpt3-1.3b", FALSE, 4, TRUE, NULL, NULL, &error));
    CU_ASSERT_TRUE(prism_test_all(error != NULL && strstr(error->message, "--resume") != NULL));
    g_clear_error(&error);
    /* --resume with another model is refused, naming the attribute. */
    o.resume = TRUE;
    CU_ASSERT_FALSE(session(path, &o, "llama2-7b", FALSE, 4, TRUE, NULL, NULL, &error));
    CU_ASSERT_TRUE(prism_test_all(error != NULL && strstr(error->message, "model") != NULL &&
                                  strstr(error->message, "llama2-7b") != NULL));
    g_clear_error(&error);
    /* A manifest from another schema, or recording another number of input attributes
     * (a partial of another prism version): refused, saying which. Rank 0 edits the
     * manifest and puts it back; the allreduces in prism_test_all order the edits. */
    g_autofree char *manifest = g_strconcat(path, ".partial.spill/manifest.ini", NULL);
    g_autofree char *original = NULL;
    gsize original_len = 0;
    CU_ASSERT_TRUE(prism_test_all(g_file_get_contents(manifest, &original, &original_len, NULL)));
    static const struct {
        const char *group, *key, *value, *needle;
    } edits[] = {
        {"prism-spill", "schema", "step_time:f8",
         "it was written with other landscape "
         "columns (step_time:f8); use --force"},
        {"identity", "extra_input", "1", "input attributes, this run has"},
    };
    for (size_t e = 0; e < G_N_ELEMENTS(edits); e++) {
        if (comm->rank == 0) {
            g_autoptr(GKeyFile) kf = g_key_file_new();
            gboolean ok = g_key_file_load_from_data(kf, original, original_len,
                                                    G_KEY_FILE_KEEP_COMMENTS, NULL);
            g_key_file_set_string(kf, edits[e].group, edits[e].key, edits[e].value);
            CU_ASSERT_TRUE(ok && g_key_file_save_to_file(kf, manifest, NULL));
        }
        CU_ASSERT_TRUE(prism_test_all(TRUE));
        CU_ASSERT_FALSE(session(path, &o, "gpt3-1.3b", FALSE, 4, TRUE, NULL, NULL, &error));
        const gboolean said = error != NULL && strstr(error->message, "cannot resume") &&
                              strstr(error->message, edits[e].needle) != NULL;
        if (!said)
            printf("\n  manifest edit %zu: %s\n", e, error ? error->message : "(accepted)");
        CU_ASSERT_TRUE(prism_test_all(said));
        g_clear_error(&error);
        if (comm->rank == 0)
            CU_ASSERT_TRUE(g_file_set_contents(manifest, original, (gssize)original_len, NULL));
        CU_ASSERT_TRUE(prism_test_all(TRUE));
    }
    /* Two long attributes that differ only after 300 equal characters: the message shows
     * both around the difference (a 200-character prefix showed two equal excerpts). */
    g_autofree char *pad = g_strnfill(300, 'x');
    g_autofree char *long1 = g_strconcat(pad, "-one", NULL);
    g_autofree char *long2 = g_strconcat(pad, "-two", NULL);
    g_autofree char *lpath = test_path("identity");
    o.resume = FALSE;
    CU_ASSERT_TRUE(session(lpath, &o, long1, FALSE, 2, FALSE, NULL, NULL, &error));
    g_clear_error(&error);
    o.resume = TRUE;
    CU_ASSERT_FALSE(session(lpath, &o, long2, FALSE, 4, TRUE, NULL, NULL, &error));
    CU_ASSERT_TRUE(prism_test_all(error != NULL && strstr(error->message, "xx-one") != NULL &&
                                  strstr(error->message, "xx-two") != NULL));
    g_clear_error(&error);
    remove_outputs(lpath);
    /* Session 2: an even partition (as with another rank count) and every row. */
    CU_ASSERT_TRUE(session(path, &o, "gpt3-1.3b", FALSE, 4, TRUE, &spilled, &skipped, &error));
    g_clear_error(&error);
    CU_ASSERT_EQUAL(skipped, first_session);
    CU_ASSERT_EQUAL(skipped + spilled, TOTAL);
    CU_ASSERT_TRUE(first_session > 0 && first_session < TOTAL);
    CU_ASSERT_TRUE(verify_file(path, TRUE));
    remove_outputs(path);
}

/* A record cut short (a SIGKILL mid-append) and trailing garbage are ignored on resume. */
static void test_resume_torn_records(void)
{
    PrismComm *comm = prism_test_comm();
    g_autofree char *path = test_path("torn");
    g_autofree char *spill = g_strconcat(path, ".partial.spill", NULL);
    PrismLandscapeOptions o;
    test_opts(&o);
    GError *error = NULL;
    gboolean ok = session(path, &o, "gpt3-1.3b", TRUE, 4, FALSE, NULL, NULL, &error);
    g_clear_error(&error);
    CU_ASSERT_TRUE(ok);
    /* Rank 0 tears the last record of the last rank's file (cut 10 bytes off its end)
     * and appends garbage to the first file. */
    if (comm->rank == 0) {
        g_autofree char *last = g_strdup_printf("%s/s0001-r%05d.spill", spill, comm->size - 1);
        g_autofree char *firstf = g_strdup_printf("%s/s0001-r00000.spill", spill);
        GStatBuf st;
        ok = g_stat(last, &st) == 0 && truncate(last, st.st_size - 10) == 0;
        FILE *fp = fopen(firstf, "ab");
        ok &= fp != NULL && fwrite("garbage-garbage-garbage-garbage-garbage", 1, 39, fp) == 39;
        if (fp)
            fclose(fp);
    }
    CU_ASSERT_TRUE(prism_test_all(ok));
    o.resume = TRUE;
    uint64_t spilled = 0;
    CU_ASSERT_TRUE(session(path, &o, "gpt3-1.3b", FALSE, 4, TRUE, &spilled, NULL, &error));
    g_clear_error(&error);
    /* Only the torn record's rows are written again: the last rank's block ends at TOTAL
     * and its records are 333 rows long, restarting at its start lo and at every chunk
     * boundary (multiples of 1000), so the torn one has (TOTAL - s) % 333 rows, or 333
     * when that is 0, with s the later of lo and the last chunk start. */
    uint64_t lo, hi;
    synth_weighted_block(TOTAL, comm->size - 1, comm->size, &lo, &hi);
    uint64_t s = MAX(lo, (hi - 1) / 1000 * 1000);
    uint64_t torn = (hi - s) % 333 ? (hi - s) % 333 : 333;
    CU_ASSERT_EQUAL(spilled, torn);
    CU_ASSERT_TRUE(verify_file(path, TRUE));
    remove_outputs(path);
}

/* A damaged record body fails the checksum while finishing: clear error on every rank,
 * no final file, the partial state kept. */
static void test_corrupt_record_fails(void)
{
    PrismComm *comm = prism_test_comm();
    g_autofree char *path = test_path("corrupt");
    g_autofree char *spill = g_strconcat(path, ".partial.spill", NULL);
    g_autofree char *partial = g_strconcat(path, ".partial", NULL);
    PrismLandscapeOptions o;
    test_opts(&o);
    GError *error = NULL;
    gboolean ok = session(path, &o, "gpt3-1.3b", TRUE, 4, FALSE, NULL, NULL, &error);
    g_clear_error(&error);
    if (comm->rank == 0) {
        /* Flip a byte in the middle of the first record's payload of the last rank (it has
         * the largest block, so several records; the first is not the last one). The
         * header (io-internal.h) is 32 fixed bytes (n_cols at 20, payload bytes at 24),
         * then 8 bytes per column and its CRC: the payload starts after 32 + 8 n + 4. */
        g_autofree char *f = g_strdup_printf("%s/s0001-r%05d.spill", spill, comm->size - 1);
        FILE *fp = fopen(f, "r+b");
        uint32_t n_cols = 0;
        uint64_t payload = 0;
        ok &= fp != NULL && fseek(fp, 20, SEEK_SET) == 0 && fread(&n_cols, 4, 1, fp) == 1 &&
              fread(&payload, 8, 1, fp) == 1 && payload > 0;
        long at = (long)(32 + 8 * (uint64_t)n_cols + 4 + payload / 2);
        ok &= fp != NULL && fseek(fp, at, SEEK_SET) == 0;
        int ch = fp ? fgetc(fp) : 0;
        ok &= fp != NULL && fseek(fp, at, SEEK_SET) == 0 && fputc(ch ^ 0x5a, fp) != EOF;
        if (fp)
            fclose(fp);
    }
    CU_ASSERT_TRUE(prism_test_all(ok));
    o.resume = TRUE;
    CU_ASSERT_FALSE(session(path, &o, "gpt3-1.3b", FALSE, 4, TRUE, NULL, NULL, &error));
    CU_ASSERT_TRUE(prism_test_all(error != NULL && strstr(error->message, "checksum") != NULL));
    g_clear_error(&error);
    CU_ASSERT_FALSE(exists_all(path));
    CU_ASSERT_TRUE(exists_all(partial));
    remove_outputs(path);
}

static void test_no_landscape_and_bad_paths(void)
{
    g_autofree char *path = test_path("nolandscape");
    PrismLandscapeOptions o;
    test_opts(&o);
    o.no_landscape = TRUE;
    GError *error = NULL;
    CU_ASSERT_TRUE(session(path, &o, "gpt3-1.3b", TRUE, 4, TRUE, NULL, NULL, &error));
    g_clear_error(&error);
    CU_ASSERT_TRUE(verify_file(path, FALSE));
    remove_outputs(path);
    /* A folder that does not exist: input error naming it, on every rank. */
    g_autofree char *bad = g_strdup_printf("%s/no-such-dir/x.h5", prism_test_scratch_dir());
    PrismLandscape *ls = new_writer(bad, &o, "gpt3-1.3b");
    CU_ASSERT_FALSE(prism_landscape_prepare(ls, &error));
    CU_ASSERT_TRUE(
        prism_test_all(g_error_matches(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_OUTPUT) &&
                       strstr(error->message, "no-such-dir") != NULL));
    g_clear_error(&error);
    prism_landscape_free(ls);
    /* Reading something that is not a landscape. */
    PrismLandscapeFile *f = prism_landscape_file_open(prism_test_comm(), "/etc/hostname", &error);
    CU_ASSERT_TRUE(prism_test_all(
        f == NULL && g_error_matches(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_FILE)));
    g_clear_error(&error);
}

static CU_TestInfo tests[] = {
    {"write, read back, refuse, force", test_write_read_roundtrip},
    {"resume after a stop, other partition", test_resume_after_stop},
    {"resume ignores torn records", test_resume_torn_records},
    {"damaged record fails cleanly", test_corrupt_record_fails},
    {"no landscape, bad paths", test_no_landscape_and_bad_paths},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"io_landscape", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
