/*
 * fwconfig-internal.h - the readers behind prism_fwconfig_read(): every format becomes one
 * flat list of "dotted.key" = value entries (a TOML [section] or a YAML/JSON object adds
 * its name and a dot; an array becomes its items joined by commas; a command-line flag
 * has a NULL value), which the target's mapping (fwconfig.c) consumes.
 */
#ifndef PRISM_FWCONFIG_INTERNAL_H
#define PRISM_FWCONFIG_INTERNAL_H

#include <glib.h>

typedef struct FwEntry {
    char *key;
    char *value; /* NULL: a flag without a value */
    unsigned line;
    gboolean used;
} FwEntry;

/* Each appends FwEntry * (free with fw_entry_free) to @p out; errors are
 * PRISM_INPUT_ERROR_PARSE naming @p path, the line and what was expected. */
gboolean fw_read_toml(const char *text, const char *path, GPtrArray *out, GError **error);
gboolean fw_read_yaml(const char *text, size_t len, const char *path, GPtrArray *out,
                      GError **error);
gboolean fw_read_json(const char *text, size_t len, const char *path, const char *prefix,
                      GPtrArray *out, GError **error);
/* A command line (or a script of them): "--name value", "--name=value", bare "--flag",
 * and "a.b=value" overrides; backslash-newline, quotes and # comments as the shell reads
 * them. A token holding '$' is refused (a shell variable: expand it first). */
gboolean fw_read_args(const char *text, const char *path, GPtrArray *out, GError **error);
/* The same where the names in @p flags (NULL-terminated) never take a value. */
gboolean fw_read_args_flags(const char *text, const char *path, const char *const *flags,
                            GPtrArray *out, GError **error);
void fw_entry_free(gpointer p);

#endif
