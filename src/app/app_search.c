// SPDX-License-Identifier: MIT
/*
 * app_search.c - what `prism plan` and `prism sweep` share around the search: the
 * --fix/--range/--only/--objectives/--rank-by/--top/--no-progress options, turning them
 * into a space filter and PrismSearchOptions, and the SIGINT/SIGTERM stop hook.
 *
 * Nothing here is collective: every rank parses the same argv the same way, and the
 * commands agree on errors before the search.
 */
#include "app-internal.h"

#include <prism/fwconfig.h>

#include <signal.h>
#include <stdio.h>
#include <unistd.h> /* isatty */

#include <prism/search.h>
#include <prism/space.h>

void prism_app_add_search_options(GOptionContext *ctx, PrismSearchCli *o)
{
    const GOptionEntry entries[] = {
        {"fix", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->fix,
         "fix dimensions, e.g. tp=8,zero=1 (repeatable)", "DIM=V,..."},
        {"range", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->range,
         "restrict dimensions to ranges, e.g. pp=1:16,mbs=:4 (repeatable)", "DIM=A:B,..."},
        {"only", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->only,
         "allow only these values, e.g. schedule=1f1b,interleaved (repeatable)", "DIM=V1,V2,..."},
        {"objectives", 0, 0, G_OPTION_ARG_STRING, &o->objectives,
         "Pareto objectives (default step_time,peak_mem [,devices]); max:COL maximises", "COL,..."},
        {"top", 'k', 0, G_OPTION_ARG_INT, &o->top,
         "length of the top list, 1 to " G_STRINGIFY(PRISM_APP_TOP_MAX) " (default 10)", "K"},
        {"rank-by", 0, 0, G_OPTION_ARG_STRING, &o->rank_by,
         "column the top list is ranked by (default step_time; max:COL)", "COL"},
        {"no-progress", 0, 0, G_OPTION_ARG_NONE, &o->no_progress, "never print the progress line",
         NULL},
        G_OPTION_ENTRY_NULL};
    o->top = PRISM_APP_TOP_UNSET;
    g_option_context_add_main_entries(ctx, entries, NULL);
}

void prism_search_cli_clear(PrismSearchCli *o)
{
    g_clear_pointer(&o->fix, g_strfreev);
    g_clear_pointer(&o->range, g_strfreev);
    g_clear_pointer(&o->only, g_strfreev);
    g_clear_pointer(&o->objectives, g_free);
    g_clear_pointer(&o->rank_by, g_free);
}

gboolean prism_app_add_filters(PrismSpaceFilter *f, char **fix, char **range, char **only,
                               const char *where, GError **error)
{
    for (char **s = fix; s && *s; s++)
        if (!prism_space_filter_fix(f, *s, error))
            goto fail;
    for (char **s = range; s && *s; s++)
        if (!prism_space_filter_range(f, *s, error))
            goto fail;
    for (char **s = only; s && *s; s++)
        if (!prism_space_filter_only(f, *s, error))
            goto fail;
    return TRUE;
fail:
    if (where)
        g_prefix_error(error, "%s: ", where);
    return FALSE;
}

/* The names users type for a framework whose profile has another name: the profile of
 * the --emit target they name (fwconfig.h), and FSDP2's own names. */
static const char *framework_alias(const char *name)
{
    static const char *const fsdp[] = {"fsdp", "fsdp2", "pytorch", "torchtitan"};
    for (size_t i = 0; i < G_N_ELEMENTS(fsdp); i++)
        if (g_ascii_strcasecmp(name, fsdp[i]) == 0)
            return "pytorch-fsdp";
    PrismFwTarget t;
    if (prism_fw_target_parse(name, &t, NULL))
        return prism_fw_target_profile(t);
    return NULL;
}

PrismFramework *prism_app_framework_resolve(const char *name_or_path, GError **error)
{
    GError *local = NULL;
    g_autoptr(PrismFramework) fw = prism_framework_resolve(name_or_path, &local);
    const char *alias = name_or_path ? framework_alias(name_or_path) : NULL;
    if (fw == NULL && alias != NULL && local->code == PRISM_INPUT_ERROR_UNKNOWN_NAME) {
        g_clear_error(&local);
        fw = prism_framework_resolve(alias, &local);
    }
    if (local != NULL)
        g_propagate_error(error, local);
    if (fw == NULL || !prism_space_filter_check_only(fw->name, fw->path, fw->only, error))
        return NULL;
    return g_steal_pointer(&fw);
}

gboolean prism_app_search_options(PrismSearchOptions *opt, const char *objectives,
                                  const char *objectives_from, const char *rank_by,
                                  const char *rank_by_from, gint top, const char *top_from,
                                  GError **error)
{
    prism_search_options_init(opt);
    if (objectives != NULL &&
        !prism_objectives_parse(objectives, opt->objectives, &opt->n_objectives, error)) {
        if (objectives_from != NULL)
            g_prefix_error(error, "%s: ", objectives_from);
        return FALSE;
    }
    if (rank_by != NULL) {
        if (!prism_objective_parse(rank_by, &opt->rank_by, error)) {
            g_prefix_error(error, "%s: ", rank_by_from ? rank_by_from : "--rank-by");
            return FALSE;
        }
        opt->rank_by_set = TRUE;
    }
    if (top < 1 || top > PRISM_APP_TOP_MAX) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "%s %d: must be between 1 and %d", top_from ? top_from : "--top", top,
                    PRISM_APP_TOP_MAX);
        return FALSE;
    }
    opt->top_k = (size_t)top;
    opt->stop = prism_app_stop_requested;
    opt->progress_fn = prism_app_progress_line;
    return TRUE;
}

/* The progress line's state: one search runs at a time per process, and each search
 * starts it afresh (PRISM_PROGRESS_START). */
typedef struct {
    gboolean tty, printed;
    double last; /* seconds into the search of the last line */
} AppProgress;
static AppProgress app_progress;

void prism_app_progress_line(void *user, PrismProgressPhase phase, const char *label, double done,
                             uint64_t total, double el)
{
    (void)user;
    AppProgress *p = &app_progress;
    if (phase == PRISM_PROGRESS_START) {
        p->tty = isatty(fileno(stderr));
        p->printed = FALSE;
        p->last = -60; /* the first line comes after 0.5 s, so within a second */
        return;
    }
    const gboolean final = phase == PRISM_PROGRESS_END;
    if (!final && (el < 0.5 || el - p->last < (p->tty ? 0.25 : 10.0)))
        return;
    if (final && !p->printed)
        return;
    p->last = el;
    const double frac = total > 0 ? done / (double)total : 1.0;
    double rate = el > 0 ? done / el : 0;
    /* The ETA extrapolates linearly, so it waits for 1 % of the rows: the first rounds can
     * cost far more per row than the rest (rows that later rounds mostly prune by the
     * static-memory bound), e.g. "ETA 6520 s" at 1.7 s for a 73 s search. */
    char eta[48] = "";
    if (frac >= 0.01)
        snprintf(eta, sizeof eta, ", ETA %.1f s", el * (1 - frac) / frac);
    if (final)
        fprintf(stderr, "%s%s: %.0f strategies in %.2f s (%.3g strategies/s)\n",
                p->tty ? "\r\033[K" : "", label, done, el, rate);
    else
        fprintf(stderr, "%s%s: %5.1f%% %.4g of %.4g strategies, %.3g/s%s%s",
                p->tty ? "\r\033[K" : "", label, 100 * frac, done, (double)total, rate, eta,
                p->tty ? "" : "\n");
    fflush(stderr);
    p->printed = TRUE;
}

/* Set by SIGINT/SIGTERM (to the signal's number) while caught; a signal handler has no
 * context pointer, hence file-level state (with the progress line's above, the process-wide
 * state of the CLI). The
 * handler is installed at the start of main (prism_app_stop_early), before MPI_Init and
 * option parsing, so a signal that comes while the process starts up is never lost: a
 * command that polls (plan, sweep) sees it at its first poll, any other command gets the
 * signal's usual effect when it starts (prism_app_stop_early_end). */
static volatile sig_atomic_t app_interrupted;
static gboolean app_early;                           /* the early handler is installed */
static struct sigaction app_orig_int, app_orig_term; /* the handlers before it */

static void on_signal(int sig)
{
    app_interrupted = sig;
}

gboolean prism_app_stop_requested(void *user)
{
    (void)user;
    return app_interrupted != 0;
}

gboolean prism_app_stop_check(GError **error)
{
    if (app_interrupted == 0 || (error != NULL && *error != NULL))
        return TRUE;
    g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERRUPTED,
                "interrupted (%s) before the search",
                app_interrupted == SIGTERM ? "SIGTERM" : "SIGINT");
    return FALSE;
}

static void install(struct sigaction *old_int, struct sigaction *old_term)
{
    struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, old_int);
    sigaction(SIGTERM, &sa, old_term);
}

void prism_app_stop_early(void)
{
    /* called again after MPI_Init: re-installs, keeps the handlers from before the first */
    struct sigaction old_int, old_term;
    install(&old_int, &old_term);
    if (!app_early) {
        app_orig_int = old_int;
        app_orig_term = old_term;
        app_early = TRUE;
    }
}

void prism_app_stop_early_end(void)
{
    if (!app_early)
        return;
    app_early = FALSE;
    sigaction(SIGINT, &app_orig_int, NULL);
    sigaction(SIGTERM, &app_orig_term, NULL);
    int sig = app_interrupted;
    app_interrupted = 0;
    if (sig != 0)
        raise(sig); /* what it would have done without the early handler */
}

void prism_app_stop_catch(PrismStopGuard *g)
{
    /* A signal caught before (by the early handler) stays set: it stops the command at
     * its first poll. */
    install(&g->old_int, &g->old_term);
    if (app_early) { /* release restores the handlers from before the early one */
        g->old_int = app_orig_int;
        g->old_term = app_orig_term;
        app_early = FALSE;
    }
}

void prism_app_stop_release(PrismStopGuard *g)
{
    sigaction(SIGINT, &g->old_int, NULL);
    sigaction(SIGTERM, &g->old_term, NULL);
}
