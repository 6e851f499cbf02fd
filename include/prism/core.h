/*
 * core.h - error domains, logging and small shared utilities of prism.
 *
 * Conventions used across every public header:
 *  - Recoverable runtime errors are reported through a trailing GError **error;
 *    the function returns FALSE/NULL and never prints.
 *  - Bad user input (files, names, values, impossible constraints) is reported with
 *    PRISM_INPUT_ERROR; the application maps it to exit status 2.
 *  - Every doc block states Collective, Ownership and Errors.
 */
#ifndef PRISM_CORE_H
#define PRISM_CORE_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

G_BEGIN_DECLS

/** Error domain for bad user input: files, names, values, conflicting options. */
#define PRISM_INPUT_ERROR (prism_input_error_quark())
GQuark prism_input_error_quark(void);

/** Codes of PRISM_INPUT_ERROR. Append-only: values are pinned. */
typedef enum {
    PRISM_INPUT_ERROR_UNKNOWN_NAME = 0, /**< unknown model/cluster/column/knob name */
    PRISM_INPUT_ERROR_FILE = 1,         /**< missing or unreadable file */
    PRISM_INPUT_ERROR_PARSE = 2,        /**< malformed JSON / key file / value syntax */
    PRISM_INPUT_ERROR_MISSING = 3,      /**< a required field or key is absent */
    PRISM_INPUT_ERROR_VALUE = 4,        /**< a value out of its allowed range */
    PRISM_INPUT_ERROR_CONFLICT = 5,     /**< options that contradict each other */
    PRISM_INPUT_ERROR_UNSUPPORTED = 6,  /**< a valid but unsupported input (e.g. model_type) */
    PRISM_INPUT_ERROR_INFEASIBLE = 7,   /**< nothing fits / impossible constraint */
    PRISM_INPUT_ERROR_SHAPE = 8,        /**< a strategy breaks a shape rule */
    PRISM_INPUT_ERROR_OUTPUT = 9,       /**< output path exists or cannot be written */
} PrismInputError;

/** Error domain for internal runtime failures (MPI, HDF5, I/O, interruption). */
#define PRISM_RUNTIME_ERROR (prism_runtime_error_quark())
GQuark prism_runtime_error_quark(void);

typedef enum {
    PRISM_RUNTIME_ERROR_MPI = 0,
    PRISM_RUNTIME_ERROR_HDF5 = 1,
    PRISM_RUNTIME_ERROR_IO = 2,
    PRISM_RUNTIME_ERROR_PEER_FAILED = 3, /**< another rank failed; its message is on that rank */
    PRISM_RUNTIME_ERROR_INTERRUPTED = 4, /**< SIGINT/SIGTERM: stopped cleanly */
    PRISM_RUNTIME_ERROR_INTERNAL = 5,
    /** Not a failure: --help was asked for; the message is the help text (exit status 0). */
    PRISM_RUNTIME_ERROR_HELP_SHOWN = 6,
} PrismRuntimeError;

/** Log levels for prism_log(); PRISM_LOG=error|warn|info|debug selects the threshold. */
typedef enum {
    PRISM_LOG_ERROR = 0,
    PRISM_LOG_WARN = 1,
    PRISM_LOG_INFO = 2,
    PRISM_LOG_DEBUG = 3,
} PrismLogLevel;

/**
 * Write one diagnostic line to stderr, prefixed with "[rank R]" when @p rank >= 0.
 * Logging never signals failure. Not collective.
 */
void prism_log(PrismLogLevel level, int rank, const char *fmt, ...) G_GNUC_PRINTF(3, 4);

/** Current log threshold (from PRISM_LOG, default warn). Not collective. */
PrismLogLevel prism_log_threshold(void);

/** Monotonic wall clock in seconds. Not collective. */
double prism_now(void);

/**
 * 64-byte aligned allocation for SIMD data; aborts on OOM like g_malloc.
 * Ownership: caller frees with prism_aligned_free().
 */
void *prism_aligned_new(size_t n, size_t size);
void prism_aligned_free(void *p);

/**
 * Names closest to @p name among @p candidates (edit distance), formatted as
 * "a, b, c" (at most @p max names). Used for "did you mean" messages.
 * Ownership: caller frees the string with g_free().
 */
char *prism_close_names(const char *name, const char *const *candidates, size_t n_candidates,
                        size_t max);

/**
 * TRUE when @p a and @p b differ only in ASCII case and in the separators '-', '_' and
 * ' ' ("Llama-3.1-8B" and "llama3.1-8b"; the '.' counts: "gpt3-1.3b" is not "gpt3-13b").
 */
gboolean prism_names_loosely_equal(const char *a, const char *b);

/**
 * Index of @p name among @p names: the first equal ignoring ASCII case, else the first
 * loosely equal (prism_names_loosely_equal); @p n when none is. The zoo and the cluster
 * presets look names up this way (tests check that no two of their names are loosely
 * equal).
 */
size_t prism_name_lookup(const char *name, const char *const *names, size_t n);

/** Length of the UTF-8 byte order mark that starts @p data (@p len bytes, need not be
 *  NUL-terminated): 3, or 0 without one. Some editors and spreadsheets write one before a
 *  text file; the key-file and CSV readers skip it. */
size_t prism_utf8_bom_len(const char *data, size_t len);

/**
 * Load a GLib key file, refusing what GKeyFile silently merges: a key given twice in one
 * group, or a group given twice (the last value would win unnoticed). @p label starts
 * every message ("knobs file x.ini", "grid g.ini"). Not collective.
 * Errors: PRISM_INPUT_ERROR_FILE (unreadable), PRISM_INPUT_ERROR_PARSE (malformed or
 * repeated, naming the group, key and both line numbers).
 * Ownership: caller frees with g_key_file_free() (GKeyFile is a GLib type; the void *
 * return keeps this header minimal — cast to GKeyFile *).
 */
void *prism_keyfile_load(const char *path, const char *label, GError **error);
/** The same for text already in memory (@p len bytes, need not be NUL-terminated). Both
 *  skip a leading UTF-8 byte order mark. */
void *prism_keyfile_from_data(const char *data, size_t len, const char *label, GError **error);

/*
 * Citations. Every shipped default says where it comes from, as the text "KIND: WHERE":
 * KIND is one of published (a public figure: document and table/section, or repo
 * path@version), count (a physical count: bytes of an fp32 value), code (a framework's
 * code at a named version: repo path@version), derived (computed from other cited values,
 * named in WHERE) or convention (a documented modelling convention with no measured value,
 * e.g. a switch's default). C tables hold the text in a `source` field; key files in a
 * comment line `# source: KIND: WHERE` of the comment block directly above the key.
 */
typedef enum {
    PRISM_SOURCE_NONE = 0, /**< no citation, or a malformed one */
    PRISM_SOURCE_PUBLISHED,
    PRISM_SOURCE_COUNT,
    PRISM_SOURCE_CODE,
    PRISM_SOURCE_DERIVED,
    PRISM_SOURCE_CONVENTION,
    PRISM_SOURCE_KIND_COUNT
} PrismSourceKind;

/** "none", "published", "count", "code", "derived", "convention". Static string. */
const char *prism_source_kind_name(PrismSourceKind kind);

/**
 * Parse a citation "KIND: WHERE" (@p text NULL: none). TRUE with @p kind and @p where
 * (the stripped text after the first ':', non-empty; NULL allowed: not wanted) when KIND
 * is known; else FALSE, @p kind PRISM_SOURCE_NONE and @p problem (NULL allowed) saying what
 * is wrong ("no citation", "unknown kind 'x' (allowed: ...)", "no WHERE after 'code:'").
 * Not collective. Ownership: g_free() @p where and @p problem.
 */
gboolean prism_source_parse(const char *text, PrismSourceKind *kind, char **where, char **problem);

/** One key of a key file with its citation (prism_keyfile_citations()). */
typedef struct PrismCitedKey {
    char *group, *key, *value; /**< value: the key file's text, stripped */
    PrismSourceKind kind;      /**< PRISM_SOURCE_NONE when @p problem is set */
    char *where;               /**< NULL when @p problem is set */
    char *problem;             /**< NULL = cited; else what is missing or malformed */
} PrismCitedKey;

/**
 * Every key of the key file @p path, in file order, with the citation of its `source:`
 * comment line (the comment block directly above the key, as g_key_file_get_comment
 * returns it). A key without one, with two, or with an unknown kind carries a @p problem;
 * the file is still read. Not collective. Errors: as prism_keyfile_load().
 * Ownership: g_ptr_array_unref() (frees the entries).
 */
GPtrArray *prism_keyfile_citations(const char *path, GError **error);

/**
 * Write @p v into @p buf as the shortest of %.15g, %.16g and %.17g that parses back to the
 * same double (0.6, not 0.59999999999999998). @p len >= G_ASCII_DTOSTR_BUF_SIZE.
 * Locale-independent. Not collective.
 */
void prism_format_double(char *buf, size_t len, double v);

/**
 * Serialise a JSON tree to text, working around json-glib 1.6's number output: it writes a
 * double such as 3e-09 as "3e-09.0" (invalid JSON) and non-finite values as "inf.0"/"nan.0".
 * Exponents are repaired, non-finite numbers become null, and every non-integer number is
 * printed in its shortest round-trip form (prism_format_double). @p root is a JsonNode *
 * (void * keeps this header free of json-glib). Not collective.
 * Ownership: caller frees with g_free().
 */
char *prism_json_to_string(void *root, gboolean pretty);

G_END_DECLS

#endif /* PRISM_CORE_H */
