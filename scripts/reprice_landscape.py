#!/usr/bin/python3
"""reprice_landscape - re-price a stored landscape for another device or network.

    scripts/reprice_landscape.py landscape.h5 --cluster H800 [-o repriced.h5] [--top 5]
    scripts/reprice_landscape.py grid.h5 --cluster my-cluster.ini --prism build/prism

Reads the stored time parts of every row (compute_time ... optimizer_time), its parallel
dims, `flops_per_device`, `params_mem`, `peak_mem` and `bytes_l*`, the source cluster
(root attribute `cluster`, one per grid point) and the target cluster (`prism clusters
NAME|FILE --json`, or a JSON file of that form), and scales every time part by the ratio
of the hardware rate it is linear in:

    compute_time, recompute_time  --compute split (default): the share the FLOPs take at
                                  the large-GEMM rate x peak ratio, the rest x HBM ratio;
                                  --compute peak: x peak ratio (peak(dtype) x sustained/boost
                                  x GEMM efficiency: the knob, else the cluster's, else 0.8)
    tp_time, pp_time, dp_time     per message, bandwidth part x BW ratio and latency part x
                                  latency ratio, split from the row's dims, at the level the
                                  group's extent maps to on each cluster (tp t, pp t*c*d*pp,
                                  dp t*c*d; dp: ZeRO 0-2 dense rows, else bandwidth only);
                                  with the knob nccl_model, TP and DP as NCCL's ring model
                                  prices them on each cluster (nccl_ring below)
    cp_time, ep_time              x BW ratio of the level of t*c, etp*e
    optimizer_time                x HBM ratio (exact: it is HBM traffic)
    bubble_time                   x the slowest stage's re-priced time / its stored time
    step_time = the sum of the parts; mfu, hfu x step/step' x peak_bf16_src/peak_bf16_dst;
    tokens_per_s x step/step'; feasible = the device-level figure (device_bytes) <= the
    target's memory - mem_margin

What this ignores (scripts/README.md, "Re-pricing a landscape", has the measured errors):
the make-up of the compute parts (GEMMs under the HBM roofline, elementwise kernels and
gradient accumulation follow HBM, GEMMs the peak, the attention core its own fractions;
tile and wave quantisation change with the SM count and tile), the other stages of a
pipeline (the stored parts are the slowest stage's), and overlaps that are a max() (CP
ring, ZeRO-3, bucketed DP). The `ignored` column flags the rows exposed to the latter;
on rows with `ignored` 0 a network change is exact. With the same SM count, tile and
attention fractions, the true step lies in [step_time_lo, step_time_hi] on those rows.

Memory columns do not depend on the device's speed and are kept (HSDP's shard group,
which follows level 0's size, is the exception: such rows are flagged).
Uses Debian's python3-h5py/numpy: run with /usr/bin/python3.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import prism_landscape as pl  # noqa: E402  (sets HDF5_PLUGIN_PATH before h5py)
import h5py  # noqa: E402

TIME_PARTS = ("compute_time", "recompute_time", "tp_time", "cp_time", "ep_time", "dp_time",
              "pp_time", "bubble_time", "optimizer_time")
# the per-micro-batch slowest-stage parts (m x T_s): the bubble follows their sum
STAGE_PARTS = ("compute_time", "recompute_time", "tp_time", "cp_time", "ep_time", "pp_time")
NEEDED = ("point", "devices", "dp", "tp", "pp", "cp", "ep", "etp", "sp", "zero", "mbs", "schedule",
          "m", "peak_mem", "params_mem", "grads_mem", "optimizer_mem", "flops_per_device",
          "step_time", "mfu", "hfu", "tokens_per_s") + TIME_PARTS


# Bits of the "ignored" column: the effects a row's re-pricing does not carry across.
IGNORED = {
    "stages": 1,         # pp > 1: another stage may become the slowest; the bubble is scaled
                         # by the slowest stage's ratio (u_s of the other stages unknown)
    "cp_overlap": 2,     # cp > 1: the ring's exposed time is max(0, comm - overlapped core)
    "zero3_overlap": 4,  # ZeRO-3: exposed gathers max(0, AG - window) per unit
    "moe": 8,            # MoE: EP and expert-DP time scaled by bandwidth (latency kept in)
    "hsdp": 16,          # HSDP: shard group follows level 0's size (memory may differ too)
    "dp_bucket": 32,     # bucketed DP overlap: max(q*C, C - window)
    "offload": 64,       # offload != 0: CPU Adam scaled by the host memory bandwidth, the
                         # host-link copies by the link; activation copies hide behind the
                         # layer's compute up to a bound (max(0, copy - window))
}


def find_prism(given=None):
    """The prism binary: --prism, $PRISM, a build folder of this tree, then PATH."""
    here = os.path.dirname(os.path.abspath(__file__))
    for c in (given, os.environ.get("PRISM"), os.path.join(here, "..", "build", "prism"),
              shutil.which("prism")):
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    raise ValueError("no prism binary to read the target cluster: pass --prism PATH, set "
                     "PRISM, or give the cluster as JSON (prism clusters NAME --json)")


def load_cluster(spec, prism=None):
    """A cluster as `prism clusters SPEC --json` prints it; SPEC may also be such a JSON
    file (*.json) or an already decoded dict."""
    if isinstance(spec, dict):
        return spec
    if spec.endswith(".json") and os.path.isfile(spec):
        with open(spec) as f:
            return json.load(f)
    exe = find_prism(prism)
    r = subprocess.run([exe, "clusters", spec, "--json"], capture_output=True, text=True)
    if r.returncode != 0:
        raise ValueError("cluster %r: %s" % (spec, r.stderr.strip() or "prism clusters failed"))
    return json.loads(r.stdout)


def _levels(cl):
    """(sizes, bandwidths B/s, latencies s) innermost first; the last level's size is inf."""
    lv = cl["levels"]
    sizes = [float(x["size"]) if i < len(lv) - 1 else np.inf for i, x in enumerate(lv)]
    return (np.array(sizes), np.array([x["bandwidth_GBps"] * 1e9 for x in lv]),
            np.array([x["latency_us"] * 1e-6 for x in lv]))


# NCCL's ring model (cost/kernels/kernels-nccl.h, NVIDIA/nccl src/graph/tuning.cc): base
# latency per collective, hop latency per ring step on NVLink (level 0) or the network, and
# the bus-bandwidth divisor, for the protocols LL, LL128 and Simple; seconds
NCCL_BASE = np.array([6.6, 14.0, 8.4]) * 1e-6
NCCL_HOP_NVLINK = np.array([0.6, 1.9, 3.4]) * 1e-6
NCCL_HOP_NET = np.array([2.7, 4.0, 14.0]) * 1e-6
NCCL_INV_EFF = np.array([4.0, 1.0 / 0.92, 1.0])


# NCCL's network-post overhead (tuning.cc getNetOverhead, Intel hosts), x3 for Simple: the
# floor of the node hop of a ring that spans nodes
NCCL_NET_OVERHEAD = np.array([1.0, 1.0, 3.0]) * 1e-6


def nccl_nodes(n, stride, node):
    """Nodes a group of @n ranks at @stride devices occupies on nodes of @node devices
    (inf: one node), as the kernel's prism_k_nccl_nodes."""
    span = np.ceil(n * stride / node) if np.isfinite(node) else np.ones_like(n * 1.0)
    return np.minimum(np.maximum(span, 1.0), n)


def nccl_ring(x, n, nodes, ar, ncoll, level, protocols=(0, 1, 2)):
    """Seconds of ring collectives priced as the cost model's nccl_model does: @x their bus
    bytes at the Simple bandwidth (s), @ncoll collectives (base latencies) of @n ranks on
    @nodes nodes, each an all-reduce (@ar 1) or a gather / scatter (@ar 0) whose steps
    NCCL counts (tuning.cc at b6475625: nNodes-1 or 2 nNodes across nodes at the level's
    hop, the rest at the NVLink hop, floored by the network-post overhead on several
    nodes), @level the cluster level index of the group; the fastest of @protocols."""
    steps = np.where(ar > 0.5, 2.0 * (n - 1), n - 1.0)
    cross = np.where(ar > 0.5, np.where(nodes > 1.5, 2.0 * nodes, 0.0), nodes - 1.0)
    best = None
    for p in protocols:
        inter = np.where(level == 0, NCCL_HOP_NVLINK[p], NCCL_HOP_NET[p])
        intra = np.where(nodes > 1.5, max(NCCL_HOP_NVLINK[p], NCCL_NET_OVERHEAD[p]),
                         NCCL_HOP_NVLINK[p])
        t = ncoll * (NCCL_BASE[p] + (steps - cross) * intra + cross * inter) + x * NCCL_INV_EFF[p]
        best = t if best is None else np.minimum(best, t)
    return best


def p2p_extent(x_pp, node):
    """Extent whose level prices a pipeline boundary (the kernel's x_p2p): the whole
    pipeline inside a node, else two nodes."""
    return np.where(x_pp > node, 2.0 * node, x_pp)


def level_of(extent, sizes):
    """The innermost level joining @extent devices (as the cost model's k_level)."""
    return np.searchsorted(sizes, extent, side="left").clip(0, len(sizes) - 1)


def _clock(cl):
    b, s = cl.get("boost_clock_mhz", 0) or 0, cl.get("sustained_clock_mhz", 0) or 0
    return s / b if b > 0 and s > 0 else 1.0


def _peak(cl, dtype):
    p = cl["peak_flops"].get(dtype, 0.0)
    if not p:
        raise ValueError("cluster %s has no %s peak (the landscape was priced in %s)"
                         % (cl.get("name", "?"), dtype, dtype))
    return p


def _gemm_eff(cl, knobs):
    """The large-GEMM efficiency the cost model prices with: the compute_efficiency knob
    where set, else the device's gemm_efficiency, else 0.8 (include/prism/knobs.h)."""
    k = float(knobs.get("compute_efficiency", 0) or 0)
    if k > 0:
        return k
    v = float(cl.get("gemm_efficiency", 0) or 0)
    return v if v > 0 else 0.8


def _hbm(cl, knobs):
    k = float(knobs.get("hbm_GBps", 0) or 0)
    if k > 0:
        return k * 1e9
    v = cl.get("memory_bandwidth_GBps", 0) or 0
    return (v if v > 0 else 2000.0) * 1e9  # cost/cost_layers.c PRISM_HBM_FALLBACK_GBPS


def setup_ratios(src, dst, dtype, knobs):
    """Scalar ratios of one source/target pair: compute (peak x clock x GEMM efficiency),
    HBM, BF16 peak."""
    r_comp = ((_peak(src, dtype) * _clock(src) * _gemm_eff(src, knobs)) /
              (_peak(dst, dtype) * _clock(dst) * _gemm_eff(dst, knobs)))
    r_hbm = _hbm(src, knobs) / _hbm(dst, knobs)
    r_bf16 = src["peak_flops"]["bf16"] / dst["peak_flops"]["bf16"]
    return r_comp, r_hbm, r_bf16


def _as_list(v, n):
    return v if isinstance(v, list) else [v] * n


def _per_point(ls, key, n):
    """The model, cluster or training of each point. A grid file stores one model and one
    cluster per entry of the grid file (the /grid table names the one of each point) and
    one training with the grid's gbs and seq lists; files before the streamed grid stored
    one entry per point."""
    v = ls.attrs[key]
    if ls.grid is None:
        return [v[0] if isinstance(v, list) else v]
    if key == "training":
        if isinstance(v, list):
            return _as_list(v, n)
        out = []
        for k in range(n):
            t = dict(v)
            t["gbs"], t["seq"] = int(ls.grid["gbs"][k]), int(ls.grid["seq"][k])
            out.append(t)
        return out
    names = list(ls.grid[key])
    entries = _as_list(v, n)
    if len(entries) == n:
        return entries
    # one entry per grid-file entry, in the grid file's order: the order in which the
    # points (models x clusters x ...) first name them; the /grid table may name a
    # cluster file by its path where the entry holds the cluster's own name
    first = list(dict.fromkeys(names))
    if len(first) != len(entries):
        raise ValueError("%s: %d %s entries for %d distinct /grid names" %
                         (ls.path, len(entries), key, len(first)))
    index = {name: i for i, name in enumerate(first)}
    return [entries[index[name]] for name in names]


def _host(cl):
    """(host link B/s, host memory B/s, host bytes per device); zeros when not given."""
    return (float(cl.get("host_link_GBps", 0) or 0) * 1e9,
            float(cl.get("host_memory_bandwidth_GBps", 0) or 0) * 1e9,
            float(cl.get("host_memory_bytes", 0) or 0))


def differences(src, dst):
    """What differs between the clusters beyond the rates the scaling carries (text list,
    empty when only peaks, clocks, HBM and bandwidths differ): device attributes of the
    non-linear compute terms, level sizes and latencies."""
    out = []
    for k in ("sm_count", "gemm_tile_m", "gemm_tile_n", "attn_fwd_fraction",
              "attn_bwd_fraction", "gemm_efficiency"):
        if src.get(k) != dst.get(k):
            out.append("%s %s -> %s" % (k, src.get(k), dst.get(k)))
    a, b = _levels(src), _levels(dst)
    if len(a[0]) != len(b[0]) or not np.array_equal(a[0], b[0]):
        out.append("level sizes %s -> %s (groups remapped by extent; network_time_raw is "
                   "not)" % (list(a[0]), list(b[0])))
    if len(a[2]) != len(b[2]) or not np.array_equal(a[2], b[2]):
        out.append("latencies differ (split out for TP, PP and ZeRO 0-2 DP; CP and EP "
                   "scale with bandwidth)")
    return out


def device_bytes(knobs, peak, pers, tp, cp, dp, ep, pp):
    """The device-level figure prism decides feasibility on (cost.h PrismMemKinds, the
    kernels' k_final, in their order of operations): the allocated peak + (peak - @pers,
    the peak stage's params + grads + optimizer state, which take no reserve) x
    allocator_reserve, or with expandable_segments + one 20 MiB and one 2 MiB page, +
    cuda_context + 2 x nccl_channels x nccl_conn_bytes per tp, cp, dp, ep and pp group of
    more than one rank. Knobs absent from an older landscape count as 0 (its peak)."""
    k = lambda name: float(knobs.get(name, 0.0) or 0.0)
    exp = k("expandable_segments") > 0.5
    reserve = 0.0 if exp else k("allocator_reserve")
    fixed = (20971520.0 + 2097152.0 if exp else 0.0) + k("cuda_context")
    group = 2.0 * k("nccl_channels") * k("nccl_conn_bytes")
    comms = ((tp > 1.5).astype(np.float64) + (cp > 1.5) + (dp > 1.5) + (ep > 1.5) + (pp > 1.5))
    return (peak + (peak - pers) * reserve) + (fixed + group * comms)


def reprice(ls, target, prism=None, compute="split"):
    """Re-priced columns of landscape @ls (a prism_landscape.Landscape) on cluster
    @target (name, key file, JSON file or dict). @compute: "peak" scales the compute
    parts by the peak ratio, "split" splits them by flops_per_device into the share the
    FLOPs take at the large-GEMM rate (peak ratio) and the rest (HBM ratio). Returns a
    dict of numpy arrays: every time part, step_time, step_time_lo/hi (the compute parts
    at the smaller / larger of the peak and HBM ratios), mfu, hfu, tokens_per_s,
    feasible, network_time_raw (sum over levels of bytes_l / target bandwidth, nothing
    hidden), hsdp_row (True where the memory columns may differ), plus "notes" (per
    point: what differs and is not carried across) and "target" (the cluster)."""
    if compute not in ("peak", "split"):
        raise ValueError("--compute %r: allowed: peak, split" % compute)
    dst = load_cluster(target, prism)
    col = {c: ls[c] for c in NEEDED}
    n_pts = len(ls.grid["rows"]) if ls.grid is not None else 1
    clusters = _per_point(ls, "cluster", n_pts)
    trainings = _per_point(ls, "training", n_pts)
    knobs = ls.attrs.get("knobs", {}) or {}
    if isinstance(knobs, list):
        knobs = knobs[0]
    margin = float(knobs.get("mem_margin", 0.0))
    hsdp = float(knobs.get("hsdp", 0) or 0) > 0.5
    point = col["point"].astype(np.int64)
    f64 = lambda c: col[c].astype(np.float64)
    t, c, d = f64("tp"), f64("cp"), f64("dp")
    e, x, p = f64("ep"), f64("etp"), f64("pp")
    # per-point scalars, gathered per row
    r_comp = np.empty(n_pts)
    r_hbm = np.empty(n_pts)
    r_bf16 = np.empty(n_pts)
    r_link = np.zeros(n_pts)   # host link, target / source (offload's copies)
    r_hmem = np.zeros(n_pts)   # host memory bandwidth (CPU Adam)
    hl_d, hm_d, hb_d = _host(dst)
    host_budget = hb_d if hl_d > 0 and hm_d > 0 and hb_d > 0 else 0.0  # as the kernel's
    budget = np.empty(n_pts)
    notes = []
    out = {k: np.zeros(ls.n) for k in TIME_PARTS}
    out["step_time_lo"] = np.zeros(ls.n)
    out["step_time_hi"] = np.zeros(ls.n)
    bw_ratio = {g: np.ones(ls.n) for g in ("tp", "cp", "ep", "dp", "pp")}
    lat_ratio = {g: np.ones(ls.n) for g in ("tp", "pp", "dp")}
    sd, bd, lad = _levels(dst)
    models = _per_point(ls, "model", n_pts)
    extents = {"tp": t, "cp": t * c, "ep": np.where(e > 1, x * e, x), "dp": t * c * d,
               "pp": t * c * d * p}
    for k in range(n_pts):
        src = clusters[k]
        tr = trainings[k]
        r_comp[k], r_hbm[k], r_bf16[k] = setup_ratios(src, dst, tr["dtype"], knobs)
        mem = tr.get("mem_budget_bytes", 0) or dst["memory_bytes"]
        budget[k] = mem - margin
        hl_s, hm_s, _ = _host(src)
        r_link[k] = hl_d / hl_s if hl_s > 0 else 0.0
        r_hmem[k] = hm_d / hm_s if hm_s > 0 else 0.0
        notes.append(differences(src, dst))
        rows = point == k
        if not rows.any():
            continue
        ss, bs, las = _levels(src)
        for g, ext in extents.items():
            xe = ext[rows]
            xs, xd = (p2p_extent(xe, ss[0]), p2p_extent(xe, sd[0])) if g == "pp" else (xe, xe)
            bw_ratio[g][rows] = bs[level_of(xs, ss)] / bd[level_of(xd, sd)]
        # TP and PP: one message's bandwidth and latency parts are known from the row's
        # dims, so the two scale separately (cost/README.md, "Communication")
        model = models[k]
        bp = 4.0 if tr["dtype"] == "fp32" else 2.0
        tok = col["mbs"][rows] * tr["seq"] / c[rows]
        eff = float(knobs.get("net_efficiency", 1.0))
        tt = t[rows]
        seq1 = ls.codes["schedule"].index("seq1f1b") if "seq1f1b" in ls.codes["schedule"] else -1
        msgs = np.where(col["schedule"][rows] == seq1, float(knobs.get("seq1f1b_splits", 1)), 1.0)
        scat = float(knobs.get("pp_scatter", 1)) > 0.5
        nccl = float(knobs.get("nccl_model", 0)) > 0.5
        for g, vol, nlat in (("tp", tok * model["hidden"] * bp * 2 * (tt - 1) / tt, 2 * (tt - 1)),
                             ("pp", tok * model["hidden"] * bp / (tt if scat else 1.0), msgs)):
            xe = extents[g][rows]
            xs, xd = (p2p_extent(xe, ss[0]), p2p_extent(xe, sd[0])) if g == "pp" else (xe, xe)
            ls_, ld_ = level_of(xs, ss), level_of(xd, sd)
            a_s = vol / (bs[ls_] * eff)
            a_d = vol / (bd[ld_] * eff)
            if g == "tp" and nccl:
                # one all-reduce, or with SP its reduce-scatter and all-gather
                sp_ = col["sp"][rows] > 0.5
                nc = np.where(tt > 1, np.where(sp_, 2.0, 1.0), 0.0)
                ar = np.where(sp_, 0.0, 1.0)
                t_s = nccl_ring(a_s, tt, nccl_nodes(tt, 1.0, ss[0]), ar, nc, ls_)
                t_d = nccl_ring(a_d, tt, nccl_nodes(tt, 1.0, sd[0]), ar, nc, ld_)
            else:
                t_s = a_s + nlat * las[ls_]
                t_d = a_d + nlat * lad[ld_]
            with np.errstate(invalid="ignore", divide="ignore"):
                lat_ratio[g][rows] = np.where(t_s > 0, t_d / t_s, 1.0)
        # DP, ZeRO 0-2 of a dense model with dp_overlap (dp_bucket 0, no HSDP, nic_spread
        # 0: one NIC per group): the per-step reduction of the stage's P parameters, P from
        # params_mem (the peak stage's: the stage with the most parameters, which also sets
        # dp_comm_max)
        dense = not model.get("experts", 0)
        spread = float(knobs.get("nic_spread", 0) or 0) > 0.5
        if dense and not float(knobs.get("dp_bucket", 0) or 0) and not hsdp and not spread:
            z = col["zero"][rows]
            mm = col["m"][rows].astype(np.float64)
            bg = 4.0 if float(knobs.get("grad_fp32", 1)) > 0.5 else bp
            bpar = bp
            nd = d[rows] * c[rows]
            vol = np.select([z == 0, z == 1, z == 2], [2 * bg, bg + bpar, mm * bg + bpar], 0.0)
            steps = np.select([z <= 1, z == 2], [2.0, mm + 1.0], 0.0)
            P = col["params_mem"][rows] / bpar
            lv_s, lv_d = level_of(extents["dp"][rows], ss), level_of(extents["dp"][rows], sd)
            fs = (nd - 1) / nd
            a_s = P * fs * vol / (bs[lv_s] * eff)
            a_d = P * fs * vol / (bd[lv_d] * eff)
            if nccl:  # the Simple protocol, one base latency per collective call
                calls = np.select([z == 0, z == 1, z == 2], [1.0, 2.0, mm + 1.0], 0.0)
                nc = np.where(nd > 1, calls, 0.0)
                ar = np.where(z == 0, 1.0, 0.0)  # ZeRO-0 one all-reduce, else gathers/scatters
                tr_ = t[rows]
                l_s = nccl_ring(0.0, nd, nccl_nodes(nd, tr_, ss[0]), ar, nc, lv_s, (2,))
                l_d = nccl_ring(0.0, nd, nccl_nodes(nd, tr_, sd[0]), ar, nc, lv_d, (2,))
            else:
                l_s = (nd - 1) * steps * las[lv_s]
                l_d = (nd - 1) * steps * lad[lv_d]
            with np.errstate(invalid="ignore", divide="ignore"):
                r = np.where((z < 3) & (a_s + l_s > 0), (a_d + l_d) / (a_s + l_s), bw_ratio["dp"][rows])
            lat_ratio["dp"][rows] = r
        else:
            lat_ratio["dp"][rows] = bw_ratio["dp"][rows]
    rc, rh = r_comp[point], r_hbm[point]
    lo, hi = np.minimum(rc, rh), np.maximum(rc, rh)
    r_cmp = rc
    if compute == "split":
        # the FLOPs at the source's large-GEMM rate: the peak-bound share, the rest is
        # taken as HBM-bound (it also holds tile/wave losses and the attention fractions,
        # which follow the peak: see scripts/README.md for what that costs)
        rate = np.array([_peak(clusters[k], trainings[k]["dtype"]) * _clock(clusters[k]) *
                         _gemm_eff(clusters[k], knobs) for k in range(n_pts)])
        comp = f64("compute_time") + f64("recompute_time")
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(comp > 0, np.minimum(1.0, f64("flops_per_device") /
                                                  (comp * rate[point])), 1.0)
        r_cmp = share * rc + (1.0 - share) * rh
    for part in ("compute_time", "recompute_time"):
        out[part] = f64(part) * r_cmp
    # offload (schema 3): 1 and 3 run Adam on the host, 2 and 3 copy activations
    off = ls["offload"].astype(np.int64) if "offload" in ls.names else np.zeros(ls.n, np.int64)
    opt_off = (off == 1) | (off == 3)
    out["optimizer_time"] = f64("optimizer_time") * np.where(opt_off, r_hmem[point], rh)
    out["offload_time"] = (ls["offload_time"].astype(np.float64) * r_link[point]
                           if "offload_time" in ls.names else np.zeros(ls.n))
    for g in ("cp", "ep"):
        out[g + "_time"] = f64(g + "_time") * bw_ratio[g]
    for g in ("tp", "pp", "dp"):
        out[g + "_time"] = f64(g + "_time") * lat_ratio[g]
    old_stage = sum(f64(s) for s in STAGE_PARTS)
    new_stage = sum(out[s] for s in STAGE_PARTS)
    with np.errstate(invalid="ignore", divide="ignore"):
        stage_ratio = np.where(old_stage > 0, new_stage / old_stage, 1.0)
    out["bubble_time"] = f64("bubble_time") * stage_ratio
    step = sum(out[s] for s in TIME_PARTS) + out["offload_time"]
    out["step_time"] = step
    # compute terms bracketed between the peak and the HBM scaling (same SMs/tile/attn)
    comp = f64("compute_time") + f64("recompute_time")
    rest = step - out["compute_time"] - out["recompute_time"]
    out["step_time_lo"] = rest + comp * lo
    out["step_time_hi"] = rest + comp * hi
    old = f64("step_time")
    out["mfu"] = f64("mfu") * old / step * r_bf16[point]
    out["hfu"] = f64("hfu") * old / step * r_bf16[point]
    out["tokens_per_s"] = f64("tokens_per_s") * old / step
    host_ok = (off == 0) | ((ls["host_mem"].astype(np.float64) if "host_mem" in ls.names
                             else np.zeros(ls.n)) <= host_budget)
    pers = f64("params_mem") + f64("grads_mem") + f64("optimizer_mem")
    out["feasible"] = ((device_bytes(knobs, f64("peak_mem"), pers, t, c, d, e, p)
                        <= budget[point])
                       & host_ok).astype(np.uint8)
    out["hsdp_row"] = (col["zero"] > 0) & hsdp
    # what the scaling ignores on each row (IGNORED bits); 0 = nothing but the compute
    # parts' split (exact for a network change)
    moe = np.array([bool(m.get("experts", 0)) for m in models])[point]
    bucket = float(knobs.get("dp_bucket", 0) or 0) > 0
    out["ignored"] = ((p > 1) * IGNORED["stages"] | (c > 1) * IGNORED["cp_overlap"] |
                      (col["zero"] == 3) * IGNORED["zero3_overlap"] | moe * IGNORED["moe"] |
                      out["hsdp_row"] * IGNORED["hsdp"] | (off != 0) * IGNORED["offload"] |
                      ((col["zero"] < 3) & bucket) * IGNORED["dp_bucket"]).astype(np.uint8)
    eff = float(knobs.get("net_efficiency", 1.0))
    raw = np.zeros(ls.n)
    for lv in range(4):
        # the source's level lv priced at the target's level lv (its outermost when it has
        # fewer): bytes are stored per source level, not per group, so they are not remapped
        if "bytes_l%d" % lv in ls.names:
            raw += ls["bytes_l%d" % lv] / (bd[min(lv, len(bd) - 1)] * eff)
    out["network_time_raw"] = raw
    out["notes"] = notes
    out["target"] = dst
    return out


def write(path, ls, res):
    """Re-priced columns to @path: /reprice/<column>, attributes source, target, notes."""
    with h5py.File(path, "w") as f:
        g = f.create_group("reprice")
        for k, v in res.items():
            if isinstance(v, np.ndarray):
                g.create_dataset(k, data=v, chunks=True, compression="gzip",
                                 compression_opts=1, shuffle=True)
        f.attrs["source_file"] = os.path.abspath(ls.path)
        f.attrs["target_cluster"] = json.dumps(res["target"])
        f.attrs["notes"] = json.dumps(res["notes"])
        f.attrs["method"] = "scripts/reprice_landscape.py: time parts scaled by rate ratios"


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="reprice_landscape.py",
        description="Re-price a prism landscape for another device or network: every time "
        "part scaled by the ratio of the rate it is linear in (see the module text).")
    ap.add_argument("landscape")
    ap.add_argument("-c", "--cluster", required=True,
                    help="target: preset name, cluster key file, or JSON (prism clusters --json)")
    ap.add_argument("--prism", help="prism binary (default: $PRISM, build/prism, PATH)")
    ap.add_argument("-o", "--output", help="write the re-priced columns to this HDF5 file")
    ap.add_argument("--compute", choices=("peak", "split"), default="split",
                    help="compute parts: split by flops_per_device (default) or the peak ratio alone")
    ap.add_argument("--top", type=int, default=3, help="fastest feasible rows per point to show")
    a = ap.parse_args(argv)
    ls = pl.load(a.landscape)
    res = reprice(ls, a.cluster, a.prism, a.compute)
    print("re-priced %d rows for %s" % (ls.n, res["target"].get("name", a.cluster)))
    pts = np.unique(ls["point"])
    step, feas = res["step_time"], res["feasible"].astype(bool)
    for k in pts:
        k = int(k)
        rows = np.flatnonzero((ls["point"] == k) & feas)
        print("point %d: %s" % (k, ls.label(k)))
        for note in res["notes"][k]:
            print("  differs: %s" % note)
        if rows.size == 0:
            print("  no row fits the target's memory")
            continue
        best = rows[np.argsort(step[rows], kind="stable")[:a.top]]
        for i in best:
            print("  %.4f s (was %.4f s, %s)  %s" % (step[i], ls["step_time"][i],
                  "feasible" if ls["feasible"][i] else "infeasible", ls.strategy(int(i))))
    if a.output:
        write(a.output, ls, res)
        print("wrote %s" % a.output)
    return 0


if __name__ == "__main__":
    sys.exit(pl.run_cli(main, "reprice_landscape.py"))
