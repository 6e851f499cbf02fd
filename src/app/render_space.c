// SPDX-License-Identifier: MIT
/*
 * render_space.c - `prism plan --count`: the size of a strategy space per dimension
 * (distinct values and a compact list), its segments, lane tables and total, as a text
 * table or JSON, from what search/ returns (space.h). The sweep hashes the JSON of each
 * grid point's space (PrismGridJobs.describe). Nothing here is collective.
 */
#include <string.h>

#include <prism/core.h>
#include <prism/space.h>

#include "app-internal.h"

char *prism_app_space_describe(const PrismSpace *sp, gboolean json)
{
    size_t n_segs = 0;
    (void)prism_space_segments(sp, &n_segs);
    if (json) {
        g_autoptr(JsonBuilder) b = json_builder_new();
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "total");
        json_builder_add_int_value(b, (gint64)prism_space_size(sp));
        json_builder_set_member_name(b, "segments");
        json_builder_add_int_value(b, (gint64)n_segs);
        json_builder_set_member_name(b, "lane_tables");
        json_builder_add_int_value(b, (gint64)prism_space_n_tables(sp));
        json_builder_set_member_name(b, "dims");
        json_builder_begin_object(b);
        for (int d = 0; d < PRISM_DIM_COUNT; d++) {
            size_t n = 0;
            g_autofree uint64_t *v = prism_space_dim_values(sp, (PrismDim)d, &n);
            json_builder_set_member_name(b, prism_dim_name((PrismDim)d));
            json_builder_begin_object(b);
            json_builder_set_member_name(b, "count");
            json_builder_add_int_value(b, (gint64)n);
            json_builder_set_member_name(b, "values");
            json_builder_begin_array(b);
            for (size_t i = 0; i < n; i++) {
                if (d == PRISM_DIM_SCHEDULE || d == PRISM_DIM_RECOMPUTE) {
                    g_autofree char *t = prism_dim_value_text((PrismDim)d, v[i]);
                    json_builder_add_string_value(b, t);
                } else {
                    json_builder_add_int_value(b, (gint64)v[i]);
                }
            }
            json_builder_end_array(b);
            json_builder_end_object(b);
        }
        json_builder_end_object(b);
        json_builder_end_object(b);
        g_autoptr(JsonNode) root = json_builder_get_root(b);
        return prism_json_to_string(root, FALSE);
    }
    GString *s = g_string_new(NULL);
    int w = (int)strlen("dimension"); /* the first column fits the longest name */
    for (int d = 0; d < PRISM_DIM_COUNT; d++)
        w = MAX(w, (int)strlen(prism_dim_name((PrismDim)d)));
    g_string_append_printf(s, "%-*s %6s  %s\n", w, "dimension", "values", "domain");
    for (int d = 0; d < PRISM_DIM_COUNT; d++) {
        size_t n = 0;
        g_autofree uint64_t *v = prism_space_dim_values(sp, (PrismDim)d, &n);
        g_autofree char *list = prism_space_values_compact((PrismDim)d, v, n, 60);
        g_string_append_printf(
            s, "%-*s %6zu  %s%s\n", w, prism_dim_name((PrismDim)d), n, list,
            d == PRISM_DIM_DP || d == PRISM_DIM_M || d == PRISM_DIM_FOLDING ? "  (derived)" : "");
    }
    g_string_append_printf(s,
                           "%-*s %6u  (structural keys: devices, pp, vpp, schedule, "
                           "recompute, rc_layers, offload)\n",
                           w, "segments", (unsigned)n_segs);
    g_string_append_printf(s, "%-*s %6u  (per devices, pp and R8 micro-batch rule)\n", w, "lanes",
                           (unsigned)prism_space_n_tables(sp));
    g_string_append_printf(s, "%-*s %" G_GUINT64_FORMAT " strategies\n", w, "total",
                           prism_space_size(sp));
    return g_string_free(s, FALSE);
}
