/*
 * track-cache.h - the track record kept between runs (track_cache.c), for validate_track.c.
 * Not a public header; nothing here is collective.
 */
#ifndef PRISM_TRACK_CACHE_H
#define PRISM_TRACK_CACHE_H

#include <glib.h>

#include <prism/knobs.h>

G_BEGIN_DECLS

/* The layout of a kept record, in GVariant's type language: family, framework?, data[],
 * sources[], unavailable?, rows, speed and memory (n, mean signed, mean abs, worst, sd), order
 * (groups, pairs, ties, same, fastest groups, fastest agree), strategy pairs (n, rms, worst),
 * knobs?, OOM rows and flagged.
 * Part of the file name's checksum, so another layout is another file. */
#define PRISM_TRACK_CACHE_TYPE "(smsasasmsi(idddd)(idddd)(iiidii)(idd)msii)"

/* The file that holds the record of @p family, @p framework (NULL: any) and @p knobs priced on
 * @p csvs, or NULL when the cache is off or the binary cannot be named. */
char *prism_track_cache_path_internal(const char *family, const char *framework,
                                      const PrismKnobOverrides *knobs, char *const *csvs,
                                      size_t n_csvs);
/* Write @p bytes to @p path (a temporary file renamed over it); failures are logged at
 * debug. */
void prism_track_cache_write_internal(const char *path, GBytes *bytes);

G_END_DECLS

#endif /* PRISM_TRACK_CACHE_H */
