// SPDX-License-Identifier: MIT
/*
 * io_schema_cost.c - landscape columns derived from the cost model's column table
 * (prism_col_info), so columns appended by the cost model appear without changes here.
 * Nothing here is collective.
 */
#include <prism/io.h>

#include "io-internal.h"

void prism_landscape_schema_add_cost(PrismLandscapeSchema *schema, uint32_t n_levels)
{
    for (unsigned c = 0; c < PRISM_COL_COUNT; c++) {
        /* Bytes per network level: only the levels the cluster has. */
        if (c >= PRISM_COL_BYTES_L0 && c <= PRISM_COL_BYTES_L3 &&
            c - PRISM_COL_BYTES_L0 >= n_levels)
            continue;
        /* Not stored (schema 3): step_time times per-point constants, derived on read
         * (io_read.c, scripts/prism_landscape.py; io/README.md, "Derived columns"). */
        if (c == PRISM_COL_MFU || c == PRISM_COL_TOKENS_PER_S)
            continue;
        /* Not stored (schema 5): float32(flops_time x (1 / step_time)); flops_time, one
         * value per segment, is stored in its place and costs almost nothing. */
        if (c == PRISM_COL_HFU) {
            prism_landscape_schema_add(schema, "flops_time", "s",
                                       "model + recompute FLOPs per step / (devices x peak "
                                       "FLOP/s): the step at peak; hfu = flops_time / step_time",
                                       PRISM_STORE_F64, PRISM_LS_SOURCE_FLOPS_TIME, 0);
            continue;
        }
        const PrismColInfo *info = prism_col_info((PrismCostCol)c);
        prism_landscape_schema_add(schema, info->name, info->unit, info->doc, info->store,
                                   PRISM_LS_SOURCE_COST, c);
        if (c == PRISM_COL_REASON) {
            GString *names = g_string_new(NULL);
            for (int k = 0; k < PRISM_REASON_COUNT; k++)
                g_string_append_printf(names, "%s%s", k ? "," : "",
                                       prism_reason_name((PrismReason)k));
            prism_landscape_schema_set_codes(schema, schema->n - 1, names->str);
            g_string_free(names, TRUE);
        }
    }
}
