// SPDX-License-Identifier: MIT
/* cmd_clusters.c - `prism clusters` (not implemented yet). */
#include "app-internal.h"

gboolean prism_cmd_clusters(PrismComm *comm, int argc, char **argv, GError **error)
{
    (void)comm;
    (void)argc;
    (void)argv;
    g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERNAL,
                "prism clusters is not implemented yet");
    return FALSE;
}
