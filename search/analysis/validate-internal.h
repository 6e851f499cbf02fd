/*
 * validate-internal.h - what validate.c and validate_input.c share: the CSV
 * row, the sources.ini entries. Not a public header; nothing here is collective.
 */
#ifndef PRISM_VALIDATE_INTERNAL_H
#define PRISM_VALIDATE_INTERNAL_H

#include <glib.h>

#include <prism/knobs.h>

G_BEGIN_DECLS

/* What sources.ini says about one source beyond its framework. */
typedef struct SourceInfo {
    char *framework;
    double mem_unit; /* bytes per published "GB" */
    int counts;      /* PrismMemCounts, -1 = the profile's */
    gboolean hfu;
    char *vocab, *dtype;
    double gbs, seq;    /* global_batch and seq_len for rows that leave them empty; 0 = none */
    char *fp8;          /* the recipe a row's "fp8" stands for (fp8, fp8-cs, mxfp8), NULL = fp8 */
    char *cluster;      /* the preset of the part the source states (a power limit), or NULL */
    char *cluster_file; /* the source's own cluster key file (sources.ini `cluster_file`,
                           found in the validation folders), or NULL */
    char **set;         /* knob assignments "name=value" the source states beyond its profile */
    char **set_if;      /* per-row settings "COLUMN=VALUE: name=value[,...]" (sources.ini
                           `set_if`, clauses split at ';'): applied after `set` to the rows
                           whose COLUMN cell is VALUE */
    int tied;           /* -1 = the profile's */
    gboolean equal_chunks; /* the source's runs used equal model chunks (pp*vpp divides the
                              layers) whatever its profile allows: planned vpp keeps to them */
} SourceInfo;

/* One CSV row: header -> value (borrowed from fields), and its line. */
typedef struct Row {
    GHashTable *kv;
    GPtrArray *fields;
    int line;
    const char *dir; /* the CSV's folder: a relative config.json path in model_name is its */
} Row;

/* sources.ini (the first found in the frameworks folders): source id -> SourceInfo.
 * Errors: PRISM_INPUT_ERROR_* naming the file, group, key and value. */
GHashTable *prism_validate_load_sources(GError **error);
void prism_validate_source_free(gpointer p);
/* One CSV record at *p (RFC 4180 quoting); advances *p. Ownership: g_ptr_array_free. */
GPtrArray *prism_validate_csv_record(const char **p);
/* The knob assignments of @p src's `set_if` clauses whose condition row @p r meets, in
 * order, applied to @p knobs (checked at load). */
void prism_validate_source_set_if(const SourceInfo *src, const Row *r, PrismKnobs *knobs);
/* A cell ("" when the column is absent). */
const char *prism_validate_col(const Row *r, const char *name);
/* A stated number (cells checked by prism_validate_check_cells); FALSE when empty. */
gboolean prism_validate_num(const Row *r, const char *name, double *out);
/* The row's knobs column ("name=value;..."), applied to @p knobs; FALSE with the knob's
 * error at the first bad assignment (prism_validate_check_cells refuses such rows). */
gboolean prism_validate_row_knobs(const Row *r, PrismKnobs *knobs, GError **error);
/* What a row's memory figure counts (mem_kind: allocated, reserved, device; -1 = not
 * stated) and which global rank it was measured on (mem_rank: -1 = not stated, -2 = max,
 * else the rank), as check_cells accepted them. */
int prism_validate_mem_kind(const Row *r);
long prism_validate_mem_rank(const Row *r);
/* Every stated numeric cell is a finite number in its column's range, and the knobs
 * column holds valid assignments, else PRISM_INPUT_ERROR_* naming the file, line, column
 * and value; likewise the tied_embeddings (0|1), activation (gelu|swiglu), mem_kind and
 * mem_rank cells. */
gboolean prism_validate_check_cells(const Row *r, const char *path, GError **error);

G_END_DECLS

#endif /* PRISM_VALIDATE_INTERNAL_H */
