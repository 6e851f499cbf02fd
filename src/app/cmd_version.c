// SPDX-License-Identifier: MIT
/*
 * cmd_version.c - `prism version [--json]` (also `prism --version`): version, git
 * revision, compiler, build type, MPI library and standard, HDF5 (build and run time),
 * GLib, json-glib, the kernel ISAs compiled in (and whether this CPU runs them) and the
 * ISA `auto`/PRISM_ISA selects. Output on rank 0 only.
 */
#include "app-internal.h"

#include <string.h>

#include <hdf5.h>
#include <json-glib/json-glib.h>

#include <prism/cost.h>
#include <prism/version.h>

typedef struct Item {
    const char *key;
    char *value;
} Item;

gboolean prism_cmd_version(PrismComm *comm, int argc, char **argv, GError **error)
{
    PrismCommonOptions o = {.flags = PRISM_OPT_JSON};
    g_autoptr(GOptionContext) ctx = g_option_context_new(NULL);
    g_option_context_set_summary(ctx, "Print the version of prism and of the libraries it "
                                      "runs with.");
    prism_app_add_common_options(ctx, &o);
    gboolean ok = prism_app_parse(ctx, &argc, &argv, error);
    if (ok && argc > 1) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT,
                    "prism version takes no arguments, got '%s'", argv[1]);
        ok = FALSE;
    }
    FILE *out = prism_app_out(comm);
    if (ok && out != NULL) {
        char mpi_lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
        int len = 0, mpi_major = 0, mpi_minor = 0;
        MPI_Get_library_version(mpi_lib, &len);
        MPI_Get_version(&mpi_major, &mpi_minor);
        char *nl = strchr(mpi_lib, '\n'); /* Open MPI's string ends with a newline */
        if (nl != NULL)
            *nl = '\0';
        unsigned h_major = 0, h_minor = 0, h_rel = 0;
        H5get_libversion(&h_major, &h_minor, &h_rel);
        g_autoptr(GString) isas = g_string_new(NULL);
        for (size_t i = 0; i < prism_kernel_isa_count(); i++) {
            const char *isa = prism_kernel_isa_name(i);
            g_string_append_printf(isas, "%s%s%s", i ? " " : "", isa,
                                   prism_kernel_isa_supported(isa) ? "" : "(not on this CPU)");
        }
        GError *isa_error = NULL;
        const PrismKernelTable *kt = prism_kernel_table_get(NULL, &isa_error);
        char *selected = kt != NULL ? g_strdup(prism_kernel_table_name(kt))
                                    : g_strdup_printf("none (%s)", isa_error->message);
        g_clear_error(&isa_error);
        Item items[] = {
            {"version", g_strdup(PRISM_VERSION_STRING)},
            {"git_revision", g_strdup(PRISM_GIT_REVISION)},
            {"compiler", g_strdup(PRISM_COMPILER_ID)},
            {"build_type", g_strdup(PRISM_BUILD_TYPE)},
            {"kernel_isas", g_strdup(isas->str)},
            {"kernel_isa_selected", selected},
            {"mpi_library", g_strdup(g_strstrip(mpi_lib))},
            {"mpi_standard", g_strdup_printf("%d.%d", mpi_major, mpi_minor)},
            {"mpi_ranks", g_strdup_printf("%d", comm->size)},
            {"mpi_started", g_strdup(prism_comm_is_solo(comm) ? "no" : "yes")},
            {"hdf5_build", g_strdup(PRISM_HDF5_VERSION)},
            {"hdf5_runtime", g_strdup_printf("%u.%u.%u", h_major, h_minor, h_rel)},
            {"glib", g_strdup_printf("%u.%u.%u", glib_major_version, glib_minor_version,
                                     glib_micro_version)},
            {"json_glib", g_strdup(JSON_VERSION_S)},
        };
        if (o.json) {
            g_autoptr(JsonBuilder) b = json_builder_new();
            json_builder_begin_object(b);
            for (size_t i = 0; i < G_N_ELEMENTS(items); i++) {
                json_builder_set_member_name(b, items[i].key);
                json_builder_add_string_value(b, items[i].value);
            }
            json_builder_end_object(b);
            prism_app_print_json(out, b);
        } else {
            fprintf(out, "prism %s\n", PRISM_VERSION_STRING);
            for (size_t i = 1; i < G_N_ELEMENTS(items); i++)
                fprintf(out, "  %-21s %s\n", items[i].key, items[i].value);
        }
        for (size_t i = 0; i < G_N_ELEMENTS(items); i++)
            g_free(items[i].value);
    }
    prism_common_options_clear(&o);
    return ok;
}
