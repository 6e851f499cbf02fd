#!/usr/bin/python3
"""derive_level_bandwidth.py - the fabric bandwidth behind a cluster's measured NCCL bus
bandwidths, under a ring collective's latency (cost/README.md, "Latency-bound work").

A cluster file's network levels carry the bus bandwidth nccl-tests measured at one message
size. That figure includes the collective's latency: the benchmark's time is

    T = f * S / busbw,   f = 2(N-1)/N (all-reduce) or (N-1)/N (all-gather, reduce-scatter)

for S bytes over N ranks. A cost model that prices the collective as L + f * S / B gives
the measured time back when B = f * S / (T - L). This script solves that for every level
of the Hugging Face Ultra-Scale Playbook's measurement (pp_comm_bandwidth.html: 256 MB,
1-64 nodes x 8 ranks; cost/validation/h100-efa-playbook.ini) under two latency counts:

  prism  the count prism's kernel charges today (nccl_model = 1, cost/kernels/
         kernels-impl.h): NCCL's Simple base latency once plus steps * (N-1) ring steps,
         every one at the level's hop latency (NVLink inside a node, the network's between
         nodes);
  nccl   the count NCCL's own tuning model charges (NVIDIA/nccl src/graph/tuning.cc,
         ncclTopoTuneModel, 2.19-2.21: nInterSteps = 2 * nNodes for an all-reduce and
         nNodes - 1 for an all-gather or reduce-scatter at the network hop, the other
         nsteps - nInterSteps at the NVLink hop); aws-ofi-nccl's tuner model
         (src/tuner/nccl_ofi_model.c) counts the ring all-reduce the same way.

A derived figure is physical only if it lies between the measured one and the node's
bounds: a GPU's NVLink (450 GB/s each way) inside a node; between nodes also the node's
network cards (p5: 32 x 100 Gbit/s EFA = 400 GB/s) and the NVLink level's measured figure
(the node's ranks reach their NICs over it). The verdict column says which count gives a usable figure.

Usage: scripts/derive_level_bandwidth.py [--json]   (stdlib only; exit 2 on bad arguments)
"""
import json
import sys

# Message size of the measurement: 256 MB as nccl-tests sizes it (-e 256M = 2^28 bytes).
S_BYTES = 268435456
RANKS_PER_NODE = 8
# NCCL's ring constants, microseconds (NVIDIA/nccl src/graph/tuning.cc; the same values as
# cost/kernels/kernels-nccl.h): Simple protocol base latency and per-step hop latencies.
BASE_SIMPLE_US = 8.4
HOP_NVLINK_SIMPLE_US = 3.4
HOP_NET_SIMPLE_US = 14.0
# The node's network: AWS p5.48xlarge, 32 EFA interfaces x 100 Gbit/s (AWS instance page).
NODE_NIC_GBPS = 400.0
# A GPU's NVLink 4: 900 GB/s both directions, 450 GB/s each (NVIDIA H100 datasheet).
NVLINK_GBPS = 450.0
# The playbook's bus bandwidths, GB/s per node count (pp_comm_bandwidth.html), as the
# cluster file's comments state them: all-reduce, and all-gather and reduce-scatter, whose
# harmonic mean is the file's gather figure.
NODES = (1, 2, 4, 8, 16, 32, 64)
ALL_REDUCE = (436.0, 361.7, 160.1, 99.6, 84.7, 64.9, 32.9)
ALL_GATHER = (249.8, 184.6, 119.0, 69.0, 55.0, 28.0, 11.0)
REDUCE_SCATTER = (249.7, 181.6, 115.8, 68.6, 54.5, 27.9, 11.1)
MEASURED = {
    "all_reduce": dict(zip(NODES, ALL_REDUCE)),
    "gather": {k: 2.0 / (1.0 / a + 1.0 / r) for k, a, r in zip(NODES, ALL_GATHER, REDUCE_SCATTER)},
}


def steps(coll, n_ranks, n_nodes):
    """Ring steps (all, inter-node) of one collective: NCCL's nsteps and nInterSteps."""
    if coll == "all_reduce":
        return 2 * (n_ranks - 1), (2 * n_nodes if n_nodes > 1 else 0)
    return n_ranks - 1, n_nodes - 1


def latency_us(coll, n_ranks, n_nodes, count):
    """The collective's latency in microseconds under the named step count."""
    total, inter = steps(coll, n_ranks, n_nodes)
    if count == "prism":
        hop = HOP_NVLINK_SIMPLE_US if n_nodes == 1 else HOP_NET_SIMPLE_US
        return BASE_SIMPLE_US + total * hop
    return BASE_SIMPLE_US + (total - inter) * HOP_NVLINK_SIMPLE_US + inter * HOP_NET_SIMPLE_US


def derive(coll, n_nodes, busbw_gbps, count):
    """The bus bandwidth (GB/s) that prices the measurement at its measured time, or None
    when the latency alone reaches the measured time."""
    n = RANKS_PER_NODE * n_nodes
    f = (2.0 if coll == "all_reduce" else 1.0) * (n - 1) / n
    t = f * S_BYTES / (busbw_gbps * 1e9)
    rest = t - latency_us(coll, n, n_nodes, count) * 1e-6
    return (f * S_BYTES / rest / 1e9) if rest > 0 else None, t


def table():
    rows = []
    for coll, meas in MEASURED.items():
        for k, bw in meas.items():
            row = {"collective": coll, "nodes": k, "ranks": RANKS_PER_NODE * k, "measured_GBps": bw}
            for count in ("prism", "nccl"):
                d, t = derive(coll, k, bw, count)
                row["time_ms"] = t * 1e3
                row[count + "_latency_ms"] = latency_us(coll, RANKS_PER_NODE * k, k, count) * 1e-3
                row[count + "_GBps"] = d
                cap = NVLINK_GBPS if k == 1 else min(meas[1], NODE_NIC_GBPS)
                row[count + "_physical"] = d is not None and bw <= d <= cap
            rows.append(row)
    return rows


def main(argv):
    if len(argv) > 1 or (argv and argv[0] != "--json"):
        sys.stderr.write("derive_level_bandwidth.py: error: unknown argument '%s' (allowed: --json)\n"
                         % " ".join(argv))
        return 2
    rows = table()
    if argv:
        json.dump(rows, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    print("%-10s %5s %5s %9s %8s | %8s %9s %4s | %8s %9s %4s" % (
        "collective", "nodes", "ranks", "busbw", "T ms", "L prism", "B prism", "ok", "L nccl", "B nccl", "ok"))
    for r in rows:
        def fmt(v):
            return "%9.1f" % v if v is not None else "      n/a"
        print("%-10s %5d %5d %9.2f %8.3f | %8.3f %s %4s | %8.3f %s %4s" % (
            r["collective"], r["nodes"], r["ranks"], r["measured_GBps"], r["time_ms"],
            r["prism_latency_ms"], fmt(r["prism_GBps"]), "yes" if r["prism_physical"] else "NO",
            r["nccl_latency_ms"], fmt(r["nccl_GBps"]), "yes" if r["nccl_physical"] else "NO"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
