// SPDX-License-Identifier: MIT
/* cmd_plan.c - `prism plan` (not implemented yet). */
#include "app-internal.h"

gboolean prism_cmd_plan(PrismComm *comm, int argc, char **argv, GError **error)
{
    (void)comm;
    (void)argc;
    (void)argv;
    g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERNAL,
                "prism plan is not implemented yet");
    return FALSE;
}
