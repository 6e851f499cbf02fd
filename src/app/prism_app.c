// SPDX-License-Identifier: MIT
/*
 * prism_app.c - the driver: MPI init, subcommand dispatch, error reporting, exit codes.
 *
 * Exit status: 0 success; 2 bad input (PRISM_INPUT_ERROR, including "nothing fits");
 * 130 interrupted (SIGINT/SIGTERM, resumable); 1 any other failure.
 * Only rank 0 prints the error; every rank returns the same status.
 */
#include "app-internal.h"

#include <errno.h>
#include <locale.h>

#include <stdlib.h>
#include <string.h>

#include <prism/version.h>

static const PrismAppCommand commands[] = {
    {"plan", "search every strategy; print the best, the Pareto front and why", prism_cmd_plan,
     TRUE, FALSE},
    {"sweep", "evaluate every strategy (or a grid of setups) into an HDF5 landscape",
     prism_cmd_sweep, TRUE, TRUE},
    {"explain", "every cost term of one strategy, with formula and value", prism_cmd_explain, FALSE,
     FALSE},
    {"models", "list the model zoo, or show one model or config.json layer by layer",
     prism_cmd_models, FALSE, FALSE},
    {"clusters", "list the cluster presets, or show one preset or cluster file", prism_cmd_clusters,
     FALSE, FALSE},
    {"knobs", "list the cost-model knobs with defaults, units and docs", prism_cmd_knobs, FALSE,
     FALSE},
    {"layouts", "optimal operator layouts of a graph over a TP group (SMSG)", prism_cmd_layouts,
     FALSE, FALSE},
    {"info", "provenance, space and row counts of a landscape file", prism_cmd_info, FALSE, TRUE},
    {"pareto", "recompute Pareto fronts from a landscape file", prism_cmd_pareto, FALSE, TRUE},
    {"validate", "compare predictions with published measurements (CSV)", prism_cmd_validate, FALSE,
     FALSE},
    {"frameworks", "list framework profiles, or show one (knobs, memory, defaults)",
     prism_cmd_frameworks, FALSE, FALSE},
    {"inputs", "load and check model, cluster, devices, training and knobs; print them",
     prism_cmd_inputs, FALSE, FALSE},
    {"version", "version, git revision, compiler, ISAs, MPI and HDF5", prism_cmd_version, FALSE,
     FALSE},
};

static void print_usage(FILE *f)
{
    fprintf(f, "Usage: prism COMMAND [OPTIONS]\n\n"
               "Plans distributed training of large neural networks without profiling.\n\n"
               "Commands:\n");
    for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nRun `prism COMMAND --help` for the options of one command.\n"
               "With no options, `prism plan` and `prism sweep` run the default example:\n"
               "GPT-3 175B on 1024 A100-80GB, global batch 1536, sequence 2048.\n");
}

static const PrismAppCommand *find_command(const char *name)
{
    for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

static gboolean dispatch(PrismComm *comm, int argc, char **argv, GError **error)
{
    const PrismAppCommand *known = argc >= 2 ? find_command(argv[1]) : NULL;
    if (known == NULL || !known->stops)
        prism_app_stop_early_end(); /* signals act as usual from here */
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        if (comm->rank == 0)
            print_usage(stdout);
        if (argc < 2) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_MISSING, "no command given");
            return FALSE;
        }
        return TRUE;
    }
    if (strcmp(argv[1], "--version") == 0)
        return prism_cmd_version(comm, argc - 1, argv + 1, error);
    const PrismAppCommand *cmd = find_command(argv[1]);
    if (cmd == NULL) {
        const char *names[G_N_ELEMENTS(commands)];
        for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
            names[i] = commands[i].name;
        g_autofree char *close = prism_close_names(argv[1], names, G_N_ELEMENTS(names), 3);
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                    "unknown command '%s' (closest: %s; `prism --help` lists all)", argv[1], close);
        return FALSE;
    }
    /* The command sees argv[0] = "prism COMMAND" so GOption's usage line reads well. */
    g_autofree char *prog = g_strdup_printf("prism %s", cmd->name);
    char **sub = g_new0(char *, (size_t)argc);
    sub[0] = prog;
    for (int i = 2; i < argc; i++)
        sub[i - 1] = argv[i];
    gboolean ok = cmd->run(comm, argc - 1, sub, error);
    g_free(sub);
    return ok;
}

int prism_app_main(int argc, char **argv)
{
    /* The character set of the environment's locale (LANG=C.UTF-8, en_US.UTF-8): GOption
     * converts string arguments from it, and in the default "C" locale a non-ASCII model
     * or cluster path ("-m 'my model.json'" with a UTF-8 name) is refused. Only LC_CTYPE:
     * numbers keep the C locale's '.' in every output and parse (LC_NUMERIC untouched). */
    setlocale(LC_CTYPE, "");
    /* SIGINT/SIGTERM are caught from here on (a flag the commands poll), also while MPI
     * starts up: the default action, or an inherited SIG_IGN, would otherwise lose or
     * misreport a signal that comes early (app-internal.h). */
    prism_app_stop_early();
    /* Started by a launcher (mpirun, srun, a PMI, another MPI's): MPI as the launcher set
     * it up. Else a command that touches no HDF5 file runs on a solo communicator without
     * MPI_Init (comm.h): Open MPI's singleton start-up is about 40 ms, more than half of
     * `prism models`, and it fails outright in some containers. PRISM_MPI=1 starts MPI
     * anyway. The list errs towards MPI: SLURM_PROCID is also set in a batch script's own
     * step, where prism then starts MPI as a singleton, as it always did. */
    gboolean launched = FALSE;
    static const char *const launcher_vars[] = {"OMPI_COMM_WORLD_SIZE",
                                                "PMIX_RANK",
                                                "PMI_RANK",
                                                "PMI_SIZE",
                                                "PMI_FD",
                                                "SLURM_PROCID",
                                                "MV2_COMM_WORLD_RANK",
                                                "MPIRUN_RANK",
                                                "PALS_RANKID",
                                                "FLUX_TASK_RANK",
                                                "MPI_LOCALRANKID"};
    for (size_t i = 0; i < G_N_ELEMENTS(launcher_vars); i++)
        launched = launched || g_getenv(launcher_vars[i]) != NULL;
    const char *force = g_getenv("PRISM_MPI");
    const PrismAppCommand *cmd = argc >= 2 ? find_command(argv[1]) : NULL;
    gboolean use_mpi = launched || (cmd != NULL && cmd->mpi) ||
                       (force != NULL && *force != '\0' && strcmp(force, "0") != 0);
    /* An Open MPI singleton (no mpirun; a batch script's step counts as one) need not
     * fork an orted: keeps `prism sweep` and `prism info` fast. */
    if (g_getenv("OMPI_COMM_WORLD_SIZE") == NULL && g_getenv("PMIX_RANK") == NULL) {
        g_setenv("OMPI_MCA_ess_singleton_isolated", "1", FALSE);
        /* A singleton has no peers, so the plain ob1 PML will do; the default selection
         * probes the psm/psm2 MTLs, which costs ~0.2 s of MPI_Init here (half of a
         * default `prism plan`). Under mpirun the site's choice is left alone. */
        g_setenv("OMPI_MCA_pml", "ob1", FALSE);
    }
    /* prism never uses shared file pointers, but Open MPI's OMPIO sets one up at every
     * MPI_File_open (the HDF5 landscape): "sm" now and then prints "unable to open file
     * for mmap", "lockedfile" leaves FILE-<job>-<pid>.lock behind after a SIGKILL. */
    g_setenv("OMPI_MCA_sharedfp", "^sm,lockedfile", FALSE);
    int provided = 0;
    if (use_mpi) {
        if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
            fprintf(stderr, "prism: error: MPI_Init_thread failed\n");
            return 1;
        }
        prism_app_stop_early();
    }
    GError *error = NULL;
    int status = 0;
    PrismComm *comm = use_mpi ? prism_comm_new(MPI_COMM_WORLD, &error) : prism_comm_new_solo();
    if (comm == NULL) {
        fprintf(stderr, "prism: error: %s\n", error->message);
        g_error_free(error);
        MPI_Finalize();
        return 1;
    }
    gboolean ok = dispatch(comm, argc, argv, &error);
    (void)ok;
    /* Output that could not be written (a full disk, /dev/full) is a failure, not a silent
     * success: rank 0, the only rank that prints, checks its stdout before the agreement. */
    if (comm->rank == 0) {
        int e = fflush(stdout) != 0 ? errno : 0;
        if ((e != 0 || ferror(stdout)) && error == NULL)
            g_set_error(&error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_IO,
                        "writing to standard output failed: %s",
                        e != 0 ? g_strerror(e) : "write error");
    }
    /* Final agreement: a failure after the last collective still reaches every rank. */
    GError *agreed = error;
    if (!prism_comm_agree_error(comm, &agreed) &&
        g_error_matches(agreed, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_HELP_SHOWN)) {
        if (comm->rank == 0)
            fputs(agreed->message, stdout);
        g_clear_error(&agreed);
    } else if (agreed != NULL) {
        if (comm->rank == 0)
            fprintf(stderr, "prism: error: %s\n", agreed->message);
        if (g_error_matches(agreed, PRISM_INPUT_ERROR, agreed->code) &&
            agreed->domain == PRISM_INPUT_ERROR)
            status = 2;
        else if (g_error_matches(agreed, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERRUPTED))
            status = 130;
        else
            status = 1;
        g_clear_error(&agreed);
    }
    fflush(stdout);
    prism_comm_free(comm);
    if (use_mpi)
        MPI_Finalize();
    return status;
}
