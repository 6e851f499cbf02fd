/*
 * test_io_synth.h - synthetic landscape rows for the io tests: every row is a closed-form
 * function of its global index, fed to a PrismRowSink in batches that respect segment
 * and job boundaries.
 */
#ifndef PRISM_TEST_IO_SYNTH_H
#define PRISM_TEST_IO_SYNTH_H

#include <stdint.h>

#include <glib.h>

#include <prism/io.h>

#define TOTAL 10007u
#define SEG 1000u /* rows per segment: batches never straddle one */
#define JOB 2500u /* rows per job (grid point) */

/** Row g: strategy dims, point = g / JOB, cost columns from sin(), feasible = g % 3 != 0. */
void synth_row(uint64_t g, PrismLandscapeRow *row);
/** point + dims + time_step f64, mem_peak f32, mfu f32, bytes_l0 f64, peak_stage u16,
 * feasible u8, reason u8. Ownership: prism_landscape_schema_free(). */
PrismLandscapeSchema *synth_schema(void);
/** The stored value of @p col for row g, cast to the column's type independently of io/. */
double synth_expected(const PrismLandscapeColumn *col, uint64_t g);
/** Uneven partition: rank r's share is proportional to r + 1. */
void synth_weighted_block(uint64_t n, int rank, int size, uint64_t *lo, uint64_t *hi);
/** Feed rows [lo, hi) to @p sink->rows in batches of <= 97 (segment/job aligned). */
gboolean synth_feed(PrismRowSink *sink, uint64_t lo, uint64_t hi, GError **error);

/** Write TOTAL synthetic rows to @p path (--force, weighted partition). Collective. */
gboolean synth_write_file(PrismComm *comm, const char *path, GError **error);

#endif /* PRISM_TEST_IO_SYNTH_H */
