/*
 * kernels-nccl.h - the time of one NCCL ring collective as NCCL's own tuning model
 * predicts it (cost/README.md, "Latency-bound work"), shared by the kernel (every ISA),
 * the compile step and the tests.
 *
 * NCCL (src/graph/tuning.cc, ncclTopoTuneModel and ncclTopoGetAlgoTime) prices a
 * collective per algorithm and protocol as
 *
 *     time_p = latency_p + bytes / algbw_p,  latency_p = baseLat_p + nsteps * hwLat_p(link)
 *
 * and runs the protocol with the smallest time. For a ring, nsteps = 2(n-1) for an
 * all-reduce and n-1 for an all-gather or reduce-scatter, and algbw = busbw * n / nsteps,
 * so bytes / algbw is the ring's bus bytes (2(n-1)/n S, (n-1)/n S) over the bus bandwidth:
 * the term prism already computes (x below). The protocols trade latency for bandwidth:
 * LL moves 8-byte lines carrying 4 bytes of data with a flag (1/4 of the bus bandwidth for
 * an all-reduce), LL128 128-byte lines with 120 bytes of data (0.92), Simple all of it, at
 * the largest latency. Small messages therefore run at the latency of LL and large ones
 * at the bandwidth of Simple, which is the curve nccl-tests' busbw columns show.
 * Plain C, exact operations only (compares and products): every ISA computes the same bits.
 */
#ifndef PRISM_KERNELS_NCCL_H
#define PRISM_KERNELS_NCCL_H

#include "kernels-model.h"

/* NCCL's constants, microseconds (NVIDIA/nccl src/graph/tuning.cc at commit b6475625,
 * the 2.19-2.21 series with NVLS and MNNVL; the ring rows of baseLat and hwLat). */
/* source: code: NVIDIA/nccl src/graph/tuning.cc baseLat, Ring {LL, LL128, Simple} */
#define PRISM_NCCL_BASE_LL_US 6.6
#define PRISM_NCCL_BASE_LL128_US 14.0
#define PRISM_NCCL_BASE_SIMPLE_US 8.4
/* source: code: NVIDIA/nccl src/graph/tuning.cc hwLat[NCCL_HW_NVLINK] Ring */
#define PRISM_NCCL_HOP_NVLINK_LL_US 0.6
#define PRISM_NCCL_HOP_NVLINK_LL128_US 1.9
#define PRISM_NCCL_HOP_NVLINK_SIMPLE_US 3.4
/* source: code: NVIDIA/nccl src/graph/tuning.cc hwLat[NCCL_HW_NET] Ring */
#define PRISM_NCCL_HOP_NET_LL_US 2.7
#define PRISM_NCCL_HOP_NET_LL128_US 4.0
#define PRISM_NCCL_HOP_NET_SIMPLE_US 14.0
/* source: code: NVIDIA/nccl src/graph/tuning.cc: Ring LL busBw x 1/4 (all-reduce or
 * several nodes), Ring LL128 busBw x 0.92 ("120.0/128.0"); divisors of the bus bandwidth */
#define PRISM_NCCL_INV_EFF_LL 4.0
#define PRISM_NCCL_INV_EFF_LL128 (1.0 / 0.92)
#define PRISM_NCCL_INV_EFF_SIMPLE 1.0

/** Protocol indices of PrismKModel.nccl_base / nccl_hop / nccl_inv_eff. */
enum { PRISM_NCCL_LL = 0, PRISM_NCCL_LL128 = 1, PRISM_NCCL_SIMPLE = 2 };

/**
 * Seconds of one ring collective: @p x = its bus bytes at the Simple protocol's bus
 * bandwidth (s), @p l_s, @p l_128, @p l_ll = its latency with Simple, LL128 and LL (s).
 * The fastest protocol; a tie keeps Simple, then LL128. With equal latencies (the model
 * off: every latency is the level's latency_us per step) the result is l_s + x exactly.
 */
static inline double prism_k_nccl_ring(const PrismKModel *km, double x, double l_s, double l_128,
                                       double l_ll)
{
    const double t_s = l_s + x;
    const double t_128 = l_128 + x * km->nccl_inv_eff[PRISM_NCCL_LL128];
    const double t_ll = l_ll + x * km->nccl_inv_eff[PRISM_NCCL_LL];
    const double a = t_128 < t_s ? t_128 : t_s;
    return t_ll < a ? t_ll : a;
}

/* ceil(x) for 0 <= x < 2^52: adding and subtracting 2^52 rounds x to an integer (round to
 * nearest, exact for the integer part), one step up when that fell below x. Exact in IEEE
 * double arithmetic (no contraction or reassociation in these kernels). */
static inline double k_nccl_ceil(double x)
{
    const double two52 = 4503599627370496.0;
    const double r = (x + two52) - two52;
    return r < x ? r + 1.0 : r;
}

/*
 * Nodes a collective group of @p n members at a stride of @p stride devices occupies, on a
 * cluster of 1/@p is0 devices per node (is0 = 0: a one-level cluster, one node): the
 * n*stride devices from the group's first member span ceil(n*stride/node) nodes, at least
 * one, and never more than its n members (a stride of a node or more puts each member on
 * a node of its own). The ceiling is taken with exact operations (k_nccl_ceil), so every
 * ISA computes the same bits without a library call.
 */
static inline double prism_k_nccl_nodes(double n, double stride, double is0)
{
    const double span = k_nccl_ceil(n * stride * is0);
    const double a = span > 1.0 ? span : 1.0;
    return a < n ? a : n;
}

/*
 * Latency of the ring steps of one collective over @p n ranks on @p nodes nodes as NCCL's
 * tuning model counts them (NVIDIA/nccl src/graph/tuning.cc at b6475625,
 * ncclTopoTuneModel, the ring branch): nsteps = 2(n-1) for an all-reduce (@p ar 1) and n-1
 * for an all-gather or reduce-scatter (@p ar 0); of them nInterSteps = 2 nNodes for an
 * all-reduce over several nodes (0 on one node) and nNodes - 1 for a gather or scatter
 * cross the network at @p inter seconds each, the rest stay inside a node at @p intra
 * (NCCL's intraLat). NCCL's count is kept as written: a ring of one rank per node prices
 * an all-reduce at 2n network steps and -2 node steps, as NCCL does. Exact operations
 * only (compares, products, sums of exact counts).
 */
static inline double prism_k_nccl_ring_lat(double n, double nodes, double ar, double intra,
                                           double inter)
{
    const double multi = nodes > 1.5 ? 1.0 : 0.0;
    const double steps = ar > 0.5 ? 2.0 * (n - 1.0) : n - 1.0;
    const double cross = ar > 0.5 ? 2.0 * nodes * multi : nodes - 1.0;
    return (steps - cross) * intra + cross * inter;
}

/* NCCL's network-post overhead, microseconds, raising the node hop of a ring that spans
 * nodes (intraLat = max(intraLat, overhead), x3 for Simple) */
/* source: code: NVIDIA/nccl src/graph/tuning.cc at b6475625, getNetOverhead (1 us on Intel
 * x86 hosts, 2 us on AMD; the cluster does not name its host CPU, so Intel's) */
#define PRISM_NCCL_NET_OVERHEAD_US 1.0

/* The node hop of a ring over @p nodes nodes: the protocol's NVLink hop @p intra, floored
 * by @p ovh_x x PRISM_NCCL_NET_OVERHEAD_US when the ring spans nodes. */
static inline double prism_k_nccl_node_hop(double nodes, double intra, double ovh_x)
{
    const double ovh = ovh_x * PRISM_NCCL_NET_OVERHEAD_US * 1e-6;
    return nodes > 1.5 && ovh > intra ? ovh : intra;
}

/*
 * Latency of the ring steps of one TP all-reduce-equivalent over @p t consecutive devices
 * on @p nodes nodes: without SP (@p sp 0) one all-reduce, with SP a reduce-scatter and an
 * all-gather (prism_k_nccl_ring_lat each); @p intra the protocol's NVLink hop, @p inter the
 * hop of the level joining the group, @p ovh_x the multiple of PRISM_NCCL_NET_OVERHEAD_US
 * that floors the node hop of a multi-node ring (3 for Simple, 1 otherwise). On one node
 * 2(t-1) * intra exactly (the counts are exact and the crossing term is 0).
 */
static inline double prism_k_nccl_tp_lat(double t, double nodes, double sp, double intra,
                                         double inter, double ovh_x)
{
    const double in = prism_k_nccl_node_hop(nodes, intra, ovh_x);
    return sp > 0.5 ? 2.0 * prism_k_nccl_ring_lat(t, nodes, 0.0, in, inter)
                    : prism_k_nccl_ring_lat(t, nodes, 1.0, in, inter);
}

#endif /* PRISM_KERNELS_NCCL_H */
