// SPDX-License-Identifier: MIT
/* cmd_models.c - `prism models` (not implemented yet). */
#include "app-internal.h"

gboolean prism_cmd_models(PrismComm *comm, int argc, char **argv, GError **error)
{
    (void)comm;
    (void)argc;
    (void)argv;
    g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERNAL,
                "prism models is not implemented yet");
    return FALSE;
}
