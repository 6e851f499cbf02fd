// SPDX-License-Identifier: MIT
/* cmd_explain.c - `prism explain` (not implemented yet). */
#include "app-internal.h"

gboolean prism_cmd_explain(PrismComm *comm, int argc, char **argv, GError **error)
{
    (void)comm;
    (void)argc;
    (void)argv;
    g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERNAL,
                "prism explain is not implemented yet");
    return FALSE;
}
