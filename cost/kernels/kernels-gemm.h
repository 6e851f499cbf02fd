/*
 * kernels-gemm.h - the shape-aware GEMM model, shared by the kernel (every ISA), the
 * compile step in cost/ and `prism explain` (and meant for the MoE grouped GEMMs).
 *
 * Plain C, no GLib, no libm: ceilings use the exact 2^52 rounding trick below (valid for
 * 0 <= x < 2^52 in round-to-nearest, which -ffp-contract=off and no -ffast-math keep), so
 * every ISA computes the same bits. The evaluator runs it once per distinct lane key
 * (PrismKLanes.gtab); the kernel reads the results. cost/README.md ("Compute") derives the model:
 *
 *   A batch of `count` GEMMs with an R x C output and reduction depth D each is cut into
 *   tm x tn output tiles (CTAs; the fastest of the device's tile and its two halves):
 *   tiles = count * ceil(R/tm) * ceil(C/tn). The SMs run them
 *   in waves = ceil(tiles / SMs); every wave costs one full tile's time on every SM, so the
 *   work actually paid for is waves * SMs * tm * tn * D * 2 FLOP at the device's large-GEMM
 *   rate (peak x sustained/boost clock x compute_efficiency). Its ratio to the useful
 *   2 R C D count FLOP is the quantisation loss (tile padding x partial last wave). Each
 *   wave also pays a tile's fixed time t0 (pipeline fill, epilogue): a wave costs
 *   (main loop + t0) / (1 + t0 / main loop at depth K_ref), K_ref the depth at which the
 *   large-GEMM rate was measured (which holds t0 already): small-K GEMMs run below it. The
 *   roofline bound is the operands' HBM traffic: bytes(A) + bytes(B) + bytes(C) at the
 *   achieved HBM bandwidth; the pass takes the larger of the two.
 * Nothing here is collective or allocates.
 */
#ifndef PRISM_KERNELS_GEMM_H
#define PRISM_KERNELS_GEMM_H

#include "kernels-model.h"

/* ceil(x) for 0 <= x < 2^52, exactly, with plain adds and a select (vectorises). */
static inline double prism_k_ceil(double x)
{
    const double r = (x + 4503599627370496.0) - 4503599627370496.0;
    return r < x ? r + 1.0 : r;
}

/* Tiles of an extent: ceil(x * inv_tile) with a tolerance that absorbs the rounding of
 * x = N / tp (a whole number computed as N x (1/tp)); a true fraction of a tile is never
 * below 1/4096 of one. */
static inline double prism_k_tiles(double x, double inv_tile)
{
    return prism_k_ceil(x * inv_tile - 1e-6);
}

/** The why of one GEMM pass (explain). */
typedef struct PrismKGemmWhy {
    double tile_m, tile_n; /* the CTA tile priced (the fastest of the device's tiles) */
    double tiles, waves;
    double wave_eff;   /* tiles / (waves x SMs): the last wave's idle SMs */
    double tile_eff;   /* R C count / (tiles x tm x tn): padding of the edge tiles */
    double t_compute;  /* s: waves x tile time (or 2RCD count x inv_rate without quantisation) */
    double t_memory;   /* s: operand bytes at the achieved HBM bandwidth */
    double seconds;    /* max of the two */
    double efficiency; /* useful FLOP / seconds / the dtype's datasheet peak */
} PrismKGemmWhy;

/* Compute time of the pass with a tm x tn tile scaled by (sm, sn) (1 or 1/2): waves of
 * tiles over the SMs, each wave a full tile's work on every SM. */
static inline double prism_k_gemm_tiled(const PrismKGemmDev *g, double R, double C, double D,
                                        double count, double inv_rate, double sm, double sn,
                                        double *tiles, double *waves)
{
    *tiles = count * prism_k_tiles(R, g->inv_tm / sm) * prism_k_tiles(C, g->inv_tn / sn);
    *waves = prism_k_tiles(*tiles, g->inv_sms);
    /* a tile's fixed time t0 on top of its main loop, relative to the large-GEMM rate, which
     * holds it at the depth ref_k of its measurement (t0 = 0: the main loop exactly) */
    const double main = g->wave_work * sm * sn * D * inv_rate;
    const double ref = g->wave_work * g->ref_k * inv_rate;
    const double norm = g->tile_s > 0.0 ? 1.0 + g->tile_s / (ref > 0.0 ? ref : 1.0) : 1.0;
    return *waves * (main + g->tile_s) / norm;
}

/**
 * The pass with its why: @p count GEMMs with an R x C output and reduction depth D;
 * @p inv_rate = s per FLOP of a large GEMM in its dtype, @p bytes = HBM bytes of its
 * operands, @p peak = the dtype's datasheet peak (for the efficiency). The library picks
 * the fastest of the device's tile (tm x tn) and its two halves (tm x tn/2, tm/2 x tn; the
 * kernel families cuBLAS/CUTLASS carry next to the large tile, e.g. 128 x 256 and 128 x 128
 * on Hopper); a tie keeps the larger tile. Exact operations only.
 */
static inline double prism_k_gemm_why(const PrismKGemmDev *g, double R, double C, double D,
                                      double count, double inv_rate, double bytes, double peak,
                                      PrismKGemmWhy *w)
{
    double ta, wa, tb, wb, tc, wc;
    const double ca = prism_k_gemm_tiled(g, R, C, D, count, inv_rate, 1.0, 1.0, &ta, &wa);
    const double cb = prism_k_gemm_tiled(g, R, C, D, count, inv_rate, 1.0, 0.5, &tb, &wb);
    const double cc = prism_k_gemm_tiled(g, R, C, D, count, inv_rate, 0.5, 1.0, &tc, &wc);
    const int pick = cb < ca && cb <= cc ? 1 : cc < ca && cc < cb ? 2 : 0;
    const double t_q = pick == 1 ? cb : pick == 2 ? cc : ca;
    const double q = g->quant > 0.5 ? 1.0 : 0.0;
    w->tile_m = q * g->tm * (pick == 2 ? 0.5 : 1.0);
    w->tile_n = q * g->tn * (pick == 1 ? 0.5 : 1.0);
    w->tiles = q * (pick == 1 ? tb : pick == 2 ? tc : ta);
    w->waves = q * (pick == 1 ? wb : pick == 2 ? wc : wa);
    w->wave_eff = q > 0.5 ? w->tiles / (w->waves * g->sms) : 1.0;
    w->tile_eff = q > 0.5 ? R * C * count / (w->tiles * w->tile_m * w->tile_n) : 1.0;
    w->t_compute = q > 0.5 ? t_q : 2.0 * R * C * D * count * inv_rate;
    w->t_memory = bytes * g->inv_hbm;
    w->seconds = w->t_compute > w->t_memory ? w->t_compute : w->t_memory;
    w->efficiency = w->seconds > 0 && peak > 0 ? 2.0 * R * C * D * count / w->seconds / peak : 0.0;
    return w->seconds;
}

/** Seconds of one GEMM pass (prism_k_gemm_why without the why). */
static inline double prism_k_gemm_pass(const PrismKGemmDev *g, double R, double C, double D,
                                       double count, double inv_rate, double bytes)
{
    PrismKGemmWhy w;
    return prism_k_gemm_why(g, R, C, D, count, inv_rate, bytes, 0.0, &w);
}

/**
 * Forward, input-gradient and weight-gradient passes of one linear layer's GEMM with M
 * rows (tokens), N outputs, K inputs, @p count GEMMs (grouped experts): forward M x N
 * output over K; dgrad M x K over N; wgrad K x N over M. @p in_b / @p out_b = bytes per
 * operand / output element. Writes the three times.
 */
static inline void prism_k_gemm_linear(const PrismKGemmDev *g, double M, double N, double K,
                                       double count, double inv_rate, double in_b, double out_b,
                                       double *fwd, double *dgrad, double *wgrad)
{
    const double mk = M * K * count, kn = K * N * count, mn = M * N * count;
    *fwd = prism_k_gemm_pass(g, M, N, K, count, inv_rate, in_b * (mk + kn) + out_b * mn);
    *dgrad = prism_k_gemm_pass(g, M, K, N, count, inv_rate, in_b * (mn + kn) + out_b * mk);
    *wgrad = prism_k_gemm_pass(g, K, N, M, count, inv_rate, in_b * (mk + mn) + out_b * kn);
}

#endif /* PRISM_KERNELS_GEMM_H */
