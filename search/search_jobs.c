// SPDX-License-Identifier: MIT
/*
 * search_jobs.c - a job array as PrismSearchJobs (search.h), for the houses above the
 * search (analysis/diagnose.c) that cannot reach search-internal.h.
 */
#include <prism/search.h>

#include "search-internal.h"

PrismSearchJobs *prism_search_jobs_new_array(const PrismSearchJob *jobs, size_t n_jobs)
{
    PrismArrayJobs *a = g_new(PrismArrayJobs, 1);
    prism_array_jobs_init_internal(a, jobs, n_jobs);
    return &a->src;
}

void prism_search_jobs_free(PrismSearchJobs *jobs)
{
    if (jobs == NULL)
        return;
    PrismArrayJobs *a = jobs->user; /* prism_array_jobs_init_internal sets user = a */
    prism_array_jobs_clear_internal(a);
    g_free(a);
}
