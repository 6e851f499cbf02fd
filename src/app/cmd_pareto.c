// SPDX-License-Identifier: MIT
/* cmd_pareto.c - `prism pareto` (not implemented yet). */
#include "app-internal.h"

gboolean prism_cmd_pareto(PrismComm *comm, int argc, char **argv, GError **error)
{
    (void)comm;
    (void)argc;
    (void)argv;
    g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERNAL,
                "prism pareto is not implemented yet");
    return FALSE;
}
