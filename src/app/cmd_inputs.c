// SPDX-License-Identifier: MIT
/*
 * cmd_inputs.c - `prism inputs [OPTIONS]`: load and check the inputs exactly as plan and
 * sweep do (prism_app_load_inputs: model, cluster, devices, training setup, knobs, on
 * every rank, with agreement), then print what would be used. A cheap way to validate a
 * config.json, a cluster file or a knob file before a long sweep. Collective.
 */
#include "app-internal.h"

#include <json-glib/json-glib.h>

gboolean prism_cmd_inputs(PrismComm *comm, int argc, char **argv, GError **error)
{
    PrismCommonOptions o = {.flags = PRISM_OPT_MODEL | PRISM_OPT_CLUSTER | PRISM_OPT_TRAINING |
                                     PRISM_OPT_KNOBS | PRISM_OPT_JSON};
    g_autoptr(GOptionContext) ctx = g_option_context_new(NULL);
    g_option_context_set_summary(
        ctx, "Load and check the inputs as `prism plan` and `prism sweep` do, and print them.\n"
             "With no options: the default example (GPT-3 175B on 1024 A100-80GB, global "
             "batch 1536, sequence 2048, bf16, Adam).");
    prism_app_add_common_options(ctx, &o);
    PrismInputs in = {0};
    gboolean ok = prism_app_parse(ctx, &argc, &argv, error);
    if (ok && argc > 1) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT,
                    "prism inputs takes no positional arguments, got '%s' (use --model, "
                    "--cluster, ...)",
                    argv[1]);
        ok = FALSE;
    }
    /* Collective: every rank loads, whatever happened to its argument parsing (which is
     * identical on every rank anyway), so no rank is left waiting in the agreement. */
    if (ok)
        ok = prism_app_load_inputs(comm, &o, &in, error);
    FILE *out = prism_app_out(comm);
    if (ok && out != NULL) {
        PrismParamCount c;
        prism_model_params(in.model, &c);
        g_autofree char *knobs = prism_knobs_to_json(&in.knobs);
        g_autoptr(GString) devices = g_string_new(NULL);
        for (size_t i = 0; i < in.n_devices; i++)
            g_string_append_printf(devices, "%s%u", i ? "," : "", in.devices[i]);
        double budget =
            in.training.mem_budget_bytes > 0 ? in.training.mem_budget_bytes : in.cluster->mem_bytes;
        if (o.json) {
            g_autoptr(JsonBuilder) b = json_builder_new();
            json_builder_begin_object(b);
            json_builder_set_member_name(b, "model");
            json_builder_add_string_value(b, in.model->name);
            json_builder_set_member_name(b, "params");
            json_builder_add_double_value(b, c.total - c.mtp);
            json_builder_set_member_name(b, "cluster");
            json_builder_add_string_value(b, in.cluster->name);
            json_builder_set_member_name(b, "devices");
            json_builder_begin_array(b);
            for (size_t i = 0; i < in.n_devices; i++)
                json_builder_add_int_value(b, in.devices[i]);
            json_builder_end_array(b);
            json_builder_set_member_name(b, "gbs");
            json_builder_add_int_value(b, (gint64)in.training.gbs);
            json_builder_set_member_name(b, "seq");
            json_builder_add_int_value(b, (gint64)in.training.seq);
            json_builder_set_member_name(b, "dtype");
            json_builder_add_string_value(b, prism_dtype_name(in.training.dtype));
            json_builder_set_member_name(b, "optimizer");
            json_builder_add_string_value(b, prism_optimizer_name(in.training.optimizer));
            json_builder_set_member_name(b, "mem_budget_bytes");
            json_builder_add_double_value(b, budget);
            json_builder_set_member_name(b, "defaults_used");
            json_builder_add_boolean_value(b, in.defaults_used);
            json_builder_set_member_name(b, "knobs");
            g_autoptr(JsonNode) kn = json_from_string(knobs, NULL);
            json_builder_add_value(b, kn != NULL ? g_steal_pointer(&kn)
                                                 : json_node_new(JSON_NODE_NULL));
            json_builder_end_object(b);
            prism_app_print_json(out, b);
        } else {
            fprintf(out, "model      %s: %u blocks, hidden %" G_GUINT64_FORMAT ", %.4gB params\n",
                    in.model->name, prism_model_n_blocks(in.model), in.model->hidden,
                    (c.total - c.mtp) / 1e9);
            fprintf(out, "cluster    %s: %g GiB per device, %u per node, %u network levels\n",
                    in.cluster->name, in.cluster->mem_bytes / 1073741824.0,
                    in.cluster->devices_per_node, in.cluster->n_levels);
            fprintf(out, "devices    %s\n", devices->str);
            fprintf(out,
                    "training   gbs %" G_GUINT64_FORMAT ", seq %" G_GUINT64_FORMAT
                    ", %s, %s, memory budget %g GiB\n",
                    in.training.gbs, in.training.seq, prism_dtype_name(in.training.dtype),
                    prism_optimizer_name(in.training.optimizer), budget / 1073741824.0);
            fprintf(out, "knobs      %s\n", knobs);
            if (in.defaults_used)
                fprintf(out, "(the documented default example)\n");
        }
    }
    prism_inputs_clear(&in);
    prism_common_options_clear(&o);
    return ok;
}
