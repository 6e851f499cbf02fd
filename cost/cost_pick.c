// SPDX-License-Identifier: MIT
/*
 * cost_pick.c - reading intervals (ranges.h): equivalence of two predictions, the memory
 * class, the simplicity order of moving parts and the recommendation among equals.
 * Plain functions of their arguments; nothing here is collective.
 */
#include <prism/ranges.h>

#include <string.h>

#include <prism/core.h>

gboolean prism_interval_equivalent(const PrismInterval *a, const PrismInterval *b, double tolerance)
{
    /* the intervals overlap: neither lies wholly beyond the other */
    if (b->step_lo > a->step_hi || a->step_lo > b->step_hi)
        return FALSE;
    double lo = b->step / a->step, hi = lo;
    for (int c = 0; c < PRISM_CORNER_COUNT; c++) {
        const double r = b->corner[c] / a->corner[c];
        lo = MIN(lo, r);
        hi = MAX(hi, r);
    }
    return lo <= 1.0 + tolerance && hi >= 1.0 - tolerance;
}

PrismMemClass prism_mem_class(const PrismInterval *iv, double usable)
{
    if (iv->mem > usable)
        return PRISM_MEM_NO_FIT;
    return iv->mem_hi > usable ? PRISM_MEM_AT_RISK : PRISM_MEM_FITS;
}

const char *prism_mem_class_name(PrismMemClass c)
{
    static const char *const names[] = {"fits", "at risk", "does not fit"};
    return c <= PRISM_MEM_NO_FIT ? names[c] : "?";
}

static const char *const part_names[PRISM_MOVING_COUNT] = {
    "offload", "schedule", "pp", "vpp", "cp", "zero", "recompute", "tp", "ep"};

const char *prism_moving_part_name(PrismMovingPart p)
{
    return p < PRISM_MOVING_COUNT ? part_names[p] : "?";
}

uint64_t prism_moving_part_value(PrismMovingPart p, const PrismStrategy *s)
{
    /* schedules by their moving parts (registry.h, moving): plain 1F1B, GPipe (the same
     * stages, more memory), interleaved chunks, sequence chunks, split backward (zero
     * bubble), V-shaped and bidirectional placements */
    static const uint8_t rc[PRISM_RECOMPUTE_COUNT] = {[PRISM_RECOMPUTE_NONE] = 0,
                                                      [PRISM_RECOMPUTE_SELECTIVE] = 1,
                                                      [PRISM_RECOMPUTE_BLOCK] = 2,
                                                      [PRISM_RECOMPUTE_FULL] = 3};
    switch (p) {
    case PRISM_MOVING_OFFLOAD:
        return (uint64_t)((s->offload & PRISM_OFFLOAD_OPTIMIZER) != 0) +
               ((s->offload & PRISM_OFFLOAD_ACTIVATIONS) != 0);
    case PRISM_MOVING_SCHEDULE:
        return s->pp > 1 && s->schedule < PRISM_SCHEDULE_COUNT
                   ? prism_schedule_info(s->schedule)->moving
                   : 0;
    case PRISM_MOVING_PP:
        return s->pp;
    case PRISM_MOVING_VPP:
        return s->vpp;
    case PRISM_MOVING_CP:
        return s->cp;
    case PRISM_MOVING_ZERO:
        return s->zero;
    case PRISM_MOVING_RECOMPUTE:
        return s->recompute < PRISM_RECOMPUTE_COUNT ? rc[s->recompute] : 0;
    case PRISM_MOVING_TP:
        return s->tp;
    case PRISM_MOVING_EP:
        return s->ep;
    default:
        return 0;
    }
}

gboolean prism_simplicity_parse(const char *text, PrismSimplicity *out, GError **error)
{
    gboolean seen[PRISM_MOVING_COUNT] = {FALSE};
    size_t n = 0;
    g_auto(GStrv) items = g_strsplit(text ? text : PRISM_SIMPLICITY_DEFAULT, ",", -1);
    for (char **it = items; *it != NULL; it++) {
        const char *name = g_strstrip(*it);
        int p = 0;
        while (p < PRISM_MOVING_COUNT && strcmp(part_names[p], name) != 0)
            p++;
        if (p == PRISM_MOVING_COUNT || seen[p]) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                        "--simplicity: '%s' %s (allowed: a comma list of %s)", name,
                        p == PRISM_MOVING_COUNT ? "is not a moving part" : "is named twice",
                        PRISM_SIMPLICITY_DEFAULT);
            return FALSE;
        }
        seen[p] = TRUE;
        out->order[n++] = (PrismMovingPart)p;
    }
    for (int p = 0; p < PRISM_MOVING_COUNT; p++)
        if (!seen[p])
            out->order[n++] = (PrismMovingPart)p;
    return TRUE;
}

char *prism_simplicity_text(const PrismSimplicity *o)
{
    GString *s = g_string_new(NULL);
    for (int i = 0; i < PRISM_MOVING_COUNT; i++)
        g_string_append_printf(s, "%s%s", i ? "," : "", part_names[o->order[i]]);
    return g_string_free(s, FALSE);
}

int prism_simplicity_cmp(const PrismSimplicity *o, const PrismStrategy *a, const PrismStrategy *b)
{
    for (int i = 0; i < PRISM_MOVING_COUNT; i++) {
        const uint64_t x = prism_moving_part_value(o->order[i], a);
        const uint64_t y = prism_moving_part_value(o->order[i], b);
        if (x != y)
            return x < y ? -1 : 1;
    }
    return 0;
}

static const char *const pick_names[] = {"fastest", "simplest", "robust"};

gboolean prism_pick_parse(const char *text, PrismPick *out, GError **error)
{
    for (size_t i = 0; i < G_N_ELEMENTS(pick_names); i++)
        if (text != NULL && strcmp(text, pick_names[i]) == 0) {
            *out = (PrismPick)i;
            return TRUE;
        }
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                "--pick '%s': unknown rule (allowed: fastest, simplest, robust)", text ? text : "");
    return FALSE;
}

const char *prism_pick_name(PrismPick p)
{
    return p <= PRISM_PICK_ROBUST ? pick_names[p] : "?";
}

size_t prism_pick(PrismPick pick, const PrismSimplicity *order, const PrismStrategy *s,
                  const PrismInterval *iv, size_t n, double tolerance, const gboolean *risky,
                  gboolean *equiv)
{
    size_t best = 0;
    for (size_t i = 0; i < n; i++) {
        const gboolean eq = i == 0 || prism_interval_equivalent(&iv[0], &iv[i], tolerance);
        if (equiv != NULL)
            equiv[i] = eq;
        if (!eq || i == 0 || pick == PRISM_PICK_FASTEST)
            continue;
        /* a candidate that fits beats one at memory risk; then the rule */
        const gboolean ri = risky != NULL && risky[i], rb = risky != NULL && risky[best];
        if (ri != rb) {
            if (rb)
                best = i;
            continue;
        }
        if (pick == PRISM_PICK_SIMPLEST && prism_simplicity_cmp(order, &s[i], &s[best]) < 0)
            best = i;
        else if (pick == PRISM_PICK_ROBUST && iv[i].step_hi < iv[best].step_hi)
            best = i;
    }
    return best;
}
