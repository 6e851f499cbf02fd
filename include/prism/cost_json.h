/*
 * cost_json.h - the JSON members of one evaluated strategy: its dims and its metrics,
 * with the keys of `prism explain --json` (cost/README.md). `prism explain` builds its
 * JSON in cost (cost_explain.c, from the kernel's term table) and the CLI renderers
 * (src/app/app_render.c: plan's top, front and closest entries, --refine) add the same
 * members, so the keys cannot drift apart.
 *
 * A header of its own so that only JSON writers see json-glib: cost.h does not include
 * it. Serialise with prism_json_to_string() (core.h), never json_generator_to_data
 * alone (json-glib 1.6 writes 3e-09 as the invalid "3e-09.0"). Nothing here is
 * collective.
 */
#ifndef PRISM_COST_JSON_H
#define PRISM_COST_JSON_H

#include <glib.h>
#include <json-glib/json-glib.h>

#include <prism/cost.h>
#include <prism/strategy.h>

G_BEGIN_DECLS

/**
 * Add the metric members of `prism explain --json` (memory{...}: the parts, the
 * allocated peak and its reserved and device figures, prism_cost_memory_kinds; time{...},
 * flops_per_device, bytes_per_level, mfu, hfu, tokens_per_s, feasible, reason) for one
 * row of columns to an open JSON object.
 */
void prism_cost_metrics_to_json(const PrismCostModel *cm, const PrismStrategy *s,
                                const double cols[PRISM_COL_COUNT], JsonBuilder *b);

/** Add every dim of @p s (devices, dp, tp, ..., recompute, schedule) as members of an
 *  open JSON object; recompute and schedule as names. */
void prism_cost_strategy_to_json(const PrismStrategy *s, JsonBuilder *b);

G_END_DECLS

#endif /* PRISM_COST_JSON_H */
