// SPDX-License-Identifier: MIT
/*
 * cost_ranges.c - the published ranges of the knobs that dominate step time and memory
 * (ranges.h), the corner cost models built from them and the interval of one strategy.
 * A table of its own, keyed by knob name, beside the knob table (cost_knobs.c). Nothing
 * here is collective.
 *
 * Monotonicity (cost/README.md, "Intervals"): every time term is a sum, product or
 * maximum of terms that do not decrease when a rate falls (compute at peak x clock x
 * GEMM efficiency, HBM traffic at hbm_efficiency, collectives at net_efficiency) or when
 * less DP traffic is hidden (dp_overlap), so the corner with every rate at its low end
 * bounds the step from above and the one at its high end from below. Two terms are not
 * monotone in a single knob and are bounded by taking the extremes anyway: a term of the
 * form max(0, comm - compute) (exposed communication behind compute) falls when compute
 * slows, but the step adds the compute back (compute + max(0, comm - compute) =
 * max(compute, comm)), so the step stays monotone; and the shape-aware GEMM time picks
 * the slower of its compute and HBM rooflines, again a maximum of monotone terms.
 * prism_corners_eval still takes the least and the largest of the point and both
 * corners, so a term that broke this could not put the point outside its interval.
 */
#include <prism/ranges.h>

#include <math.h>
#include <string.h>

#include <prism/core.h>

#include "cost-internal.h"

static const PrismKnobRange ranges[] = {
    {"sustained_clock", 1575.0 / 1830.0, 1980.0 / 1830.0, PRISM_RANGE_CLOCK, FALSE, FALSE,
     "published: Hopper tensor clocks against the 1830 MHz of the datasheet peak: 1980 MHz "
     "at the start of a run and 1575 MHz once the power limit pulls it down under GEMMs "
     "overlapped with communication (deepseek-ai/DeepGEMM#120), so 0.861 to 1.082 of the "
     "peak's clock; an H200 at 700 W cannot hold 1830 MHz under full load and is validated "
     "at 1500 MHz (tile-ai/TileOPs#1587); GEMM throughput differs up to 14 % across "
     "nominally equal platforms (arXiv:2510.15596)"},
    {"compute_efficiency", 1.0, 270.0 / 250.0, PRISM_RANGE_FACTOR, FALSE, FALSE,
     "published: cuBLAS large BF16 GEMMs on A100 reach 250-270 of 312 TFLOP/s across shapes "
     "(the device figures of the cluster presets are the low end): a factor 1 to 270/250 = "
     "1.08 on the device's gemm_efficiency"},
    {"net_efficiency", 200.0 / 300.0, 0.96, PRISM_RANGE_SCALE, FALSE, FALSE,
     "published: nccl-tests all_reduce_perf bus bandwidth from 200 of 300 GB/s over A100 "
     "NVLink (NVIDIA/nccl-tests#149, #178: 0.67) to 46-48 GB/s per NDR 400 Gb/s NIC "
     "(NVIDIA/nccl-tests#290: 48/50 = 0.96)"},
    {"hbm_efficiency", 0.8, 0.9, PRISM_RANGE_SCALE, FALSE, FALSE,
     "published: streaming kernels (BabelStream-class) reach about 80-90 % of the datasheet "
     "HBM bandwidth (cost/README.md, Knobs)"},
    {"dp_overlap", 0.0, 0.9, PRISM_RANGE_SCALE, FALSE, FALSE,
     "convention: the ends the default's citation names: 0 (no --overlap-grad-reduce, "
     "Megatron-LM 2021/2022) and SAPP-ND's calibrated 0.9 (shared/reference/SEEDS.md 3.2)"},
    {"launch_us", 3.8, 10.0, PRISM_RANGE_SCALE, TRUE, FALSE,
     "published: host time per kernel from a bare back-to-back CUDA launch, 3.8 us (NVIDIA "
     "Technical Blog, A. Gray, 'Getting Started with CUDA Graphs', 2019), to an exposed "
     "launch with eager Python overhead, up to 10 us (NVIDIA/tacotron2#183, an NVIDIA "
     "engineer); the default 8 us (flagos-ai/Torch-FL#27) lies between"},
    {"cuda_context", 3.0e8, 4.0e8, PRISM_RANGE_SCALE, TRUE, TRUE,
     "published: the CUDA context with lazy module loading (CUDA >= 11.7, PyTorch's default): "
     "about 300 MB (pytorch/pytorch#107667) to about 400 MB (pytorch/pytorch#109888)"},
    {"allocator_reserve", 0.300, 0.420, PRISM_RANGE_SCALE, TRUE, TRUE,
     "published: the least and the largest of the three FSDP reserves on transient memory "
     "whose median is the default ((peak reserved - peak active) / (peak active - persistent), "
     "meta-llama/llama-cookbook PR #41: 0.300, 0.420, 0.343)"},
};

size_t prism_knob_range_count(void)
{
    return G_N_ELEMENTS(ranges);
}

const PrismKnobRange *prism_knob_range(size_t i)
{
    return i < G_N_ELEMENTS(ranges) ? &ranges[i] : NULL;
}

const PrismKnobRange *prism_knob_range_find(const char *name)
{
    for (size_t i = 0; i < G_N_ELEMENTS(ranges); i++)
        if (strcmp(ranges[i].name, name) == 0)
            return &ranges[i];
    return NULL;
}

/* The end of @p r a corner takes: the pessimistic one is hi when hi_slow, else lo. */
static double corner_end(const PrismKnobRange *r, PrismCorner corner)
{
    const gboolean slow = corner == PRISM_CORNER_SLOW;
    return slow == r->hi_slow ? r->hi : r->lo;
}

/* The highest clock the optimistic corner may take on @p cluster, which holds @p held under
 * load: the part's max_clock_mhz where given; else, for a part held below the clock of its
 * peak (power-capped), that clock (it runs no faster than at its full rated power); else no
 * bound (the range's end). */
static double clock_top(const PrismCluster *cluster, double held)
{
    if (cluster->max_clock_mhz > 0)
        return cluster->max_clock_mhz;
    return held < cluster->boost_clock_mhz ? cluster->boost_clock_mhz : INFINITY;
}

void prism_corner_apply(PrismCorner corner, gboolean time, gboolean memory, PrismKnobs *knobs,
                        PrismCluster *cluster)
{
    for (size_t i = 0; i < G_N_ELEMENTS(ranges); i++) {
        const PrismKnobRange *r = &ranges[i];
        if (r->memory ? !memory : !time)
            continue;
        const double end = corner_end(r, corner);
        if (r->kind == PRISM_RANGE_CLOCK) {
            if (cluster->boost_clock_mhz <= 0)
                continue;
            const double held = cluster->sustained_clock_mhz > 0 ? cluster->sustained_clock_mhz
                                                                 : cluster->boost_clock_mhz;
            const double at = end * cluster->boost_clock_mhz;
            cluster->sustained_clock_mhz = corner == PRISM_CORNER_SLOW
                                               ? MIN(held, at)
                                               : MAX(held, MIN(at, clock_top(cluster, held)));
            continue;
        }
        PrismKnobId id;
        if (!prism_knob_lookup(r->name, &id, NULL))
            continue;
        const PrismKnobInfo *ki = prism_knob_info(id);
        double v = knobs->v[id];
        if (r->kind == PRISM_RANGE_FACTOR) {
            /* compute_efficiency: 0 means the device's figure */
            if (id == PRISM_KNOB_COMPUTE_EFFICIENCY)
                v = prism_knobs_gemm_efficiency(knobs, cluster->gemm_efficiency);
            v *= end;
        } else {
            v = ki->def > 0 ? v * (end / ki->def) : end;
        }
        knobs->v[id] = CLAMP(v, ki->min > 0 ? ki->min : 0.0, ki->max);
    }
}

PrismCostModel *prism_cost_model_corner(const PrismCostModel *cm, PrismCorner corner, gboolean time,
                                        gboolean memory, GError **error)
{
    PrismKnobs k = *prism_cost_model_knobs(cm);
    PrismCluster c = *prism_cost_model_cluster(cm);
    prism_corner_apply(corner, time, memory, &k, &c);
    return prism_cost_model_new(prism_cost_model_model(cm), &c, prism_cost_model_training(cm), &k,
                                error);
}

PrismCorners *prism_corners_new(const PrismCostModel *cm, GError **error)
{
    PrismCorners *c = g_new0(PrismCorners, 1);
    c->point = cm;
    for (int i = 0; i < PRISM_CORNER_COUNT; i++)
        if ((c->cm[i] = prism_cost_model_corner(cm, (PrismCorner)i, TRUE, TRUE, error)) == NULL) {
            prism_corners_free(c);
            return NULL;
        }
    return c;
}

void prism_corners_free(PrismCorners *c)
{
    if (c == NULL)
        return;
    for (int i = 0; i < PRISM_CORNER_COUNT; i++)
        prism_cost_model_free(c->cm[i]);
    g_free(c);
}

gboolean prism_corners_eval(const PrismCorners *c, const PrismStrategy *s,
                            const double point[PRISM_COL_COUNT], PrismInterval *out, GError **error)
{
    double step[PRISM_CORNER_COUNT], peak[PRISM_CORNER_COUNT];
    for (int i = 0; i < PRISM_CORNER_COUNT; i++) {
        double cols[PRISM_COL_COUNT];
        if (!prism_cost_eval_one(c->cm[i], s, cols, error))
            return FALSE;
        step[i] = cols[PRISM_COL_TIME_STEP];
        peak[i] = cols[PRISM_COL_MEM_PEAK];
    }
    prism_corners_form(c, s, point, step, peak, out);
    return TRUE;
}

void prism_corners_form(const PrismCorners *c, const PrismStrategy *s,
                        const double point[PRISM_COL_COUNT], const double step[PRISM_CORNER_COUNT],
                        const double peak[PRISM_CORNER_COUNT], PrismInterval *out)
{
    /* memory as the verdict takes it: the device figure of each model's allocated peak */
    /* the ranged knobs (cuda_context, allocator_reserve) do not move the persistent bytes */
    const double pers = prism_cost_persistent(point);
    PrismMemKinds mk;
    /* the largest ZeRO-3 unit's gathered bytes (the gather pool) once: no ranged knob moves
     * them, only the pool's units (fsdp_gather_pool) of each model */
    const double largest = prism_cost_gather_largest_internal(c->point, s);
    prism_cost_memory_kinds_internal(c->point, s, point[PRISM_COL_MEM_PEAK], pers, largest, &mk);
    double lo = point[PRISM_COL_TIME_STEP], hi = lo, mem = mk.device;
    double mem_hi = mem;
    for (int i = 0; i < PRISM_CORNER_COUNT; i++) {
        out->corner[i] = step[i];
        lo = MIN(lo, step[i]);
        hi = MAX(hi, step[i]);
        prism_cost_memory_kinds_internal(c->cm[i], s, peak[i], pers, largest, &mk);
        mem_hi = MAX(mem_hi, mk.device);
    }
    out->step = point[PRISM_COL_TIME_STEP];
    prism_interval_widen(lo, hi, c->widen_step, &out->step_lo, &out->step_hi);
    out->mem = mem;
    prism_interval_widen(mem_hi, mem_hi, c->widen_mem, NULL, &out->mem_hi);
}

void prism_interval_widen(double lo, double hi, double w, double *out_lo, double *out_hi)
{
    if (out_lo)
        *out_lo = lo / (1.0 + w);
    if (out_hi)
        *out_hi = hi / (1.0 - w);
}
