// SPDX-License-Identifier: MIT
/*
 * app_fwconfig.c - --emit FRAMEWORK and --from FILE of plan and explain: a strategy as a
 * framework's configuration (fwconfig.h), refused where the target's profile says the
 * framework cannot run it, and a configuration file read into the inputs. Not collective.
 */
#include "app-internal.h"

#include <prism/fwconfig.h>

gboolean prism_app_emit(FILE *out, const char *target, const PrismStrategy *s,
                        const PrismInputs *in, GError **error)
{
    PrismFwTarget t;
    if (!prism_fw_target_parse(target, &t, error)) {
        g_prefix_error(error, "--emit: ");
        return FALSE;
    }
    const char *profile = prism_fw_target_profile(t);
    if (profile != NULL) {
        g_autoptr(PrismFramework) fw = prism_app_framework_resolve(profile, error);
        if (fw == NULL)
            return FALSE;
        g_autofree char *why = prism_space_framework_unsupported(fw, in->model, s);
        if (why != NULL) {
            g_autofree char *st = prism_strategy_format(s);
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNSUPPORTED,
                        "--emit %s: %s does not run %s: %s (its profile %s, [planning] only)",
                        prism_fw_target_name(t), prism_fw_target_name(t), st, why, profile);
            return FALSE;
        }
    }
    g_autofree char *text = prism_fwconfig_emit(t, s, &in->training, in->model, error);
    if (text == NULL)
        return FALSE;
    if (out != NULL)
        fputs(text, out);
    return TRUE;
}

PrismRunConfig *prism_app_from(const char *path, PrismInputs *in, GError **error)
{
    PrismRunConfig *c = prism_fwconfig_read(path, in->devices[0], &in->training, in->model, error);
    if (c == NULL)
        return NULL;
    in->training = c->training;
    /* an overlap switch the --framework profile has no switch for is the profile's
     * business (its knobs say how much it hides): the file's silence about it is no
     * choice (framework.h [planning] overlap) */
    if (in->framework != NULL)
        c->strategy.overlap_off &= (uint8_t)in->framework->overlap;
    if (in->n_devices == 1)
        in->devices[0] = c->strategy.devices;
    return c;
}

char *prism_app_from_note(const char *path, const PrismRunConfig *c)
{
    g_autofree char *st = prism_strategy_format(&c->strategy);
    GString *s = g_string_new(NULL);
    g_string_append_printf(s,
                           "from %s (%s): devices=%u, %s; gbs %" G_GUINT64_FORMAT
                           ", seq %" G_GUINT64_FORMAT ", %s\n",
                           path, prism_fw_target_name(c->target), c->strategy.devices, st,
                           c->training.gbs, c->training.seq, prism_dtype_name(c->training.dtype));
    if (c->ignored->len > 0) {
        g_string_append(s, "ignored (not modeled):");
        for (guint i = 0; i < c->ignored->len; i++)
            g_string_append_printf(s, "%s %s", i ? "," : "", (const char *)c->ignored->pdata[i]);
        g_string_append_c(s, '\n');
    }
    return g_string_free(s, FALSE);
}
