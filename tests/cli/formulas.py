#!/usr/bin/env python3
# formulas.py EXPLAIN_TEXT EXPLAIN_JSON - every explain value with a closed form equals its
# printed formula, evaluated here from the strategy and the knobs of the same JSON (an
# independent reading of the formula text, not of the kernel), and the text prints the
# JSON's value for every term. Used by tests/cli/one_number.sh.
import json
import math
import re
import sys

text, d = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
s, kn = d["strategy"], d["knobs"]
t, c, dp, e, x = s["tp"], s["cp"], s["dp"], s["ep"], s["etp"]
z, m, pp = s["zero"], s["m"], s["pp"]
L, R = kn["zero3_lowp_shard"], kn["fsdp_reshard"]
nos = kn["fsdp_pp_nosync"] > 0.5 and pp > 1 and z >= 3
assert kn["hsdp"] == 0, "the shard group below is d*c (hsdp off)"
n_s = dp * c  # zero_shard_group without hsdp
n_e = t * dp * c / (e * x)  # the experts' data-parallel group


def near(a, b):
    return abs(a - b) <= 1e-12 * max(1.0, abs(a), abs(b))


# the strategy terms, as their printed formulas read (cost/cost_terms.c)
want = {
    "inv_tp": 1 / t,
    "sp_share": 1 / t if s["sp"] else 1,
    "tokens": s["mbs"] * d["seq"] / c,
    "inv_ep": 1 / (e * x),
    "inv_cp": 1 / c,
    "zero_shard_group": n_s,
    "zero_replicas": dp * c / n_s,
    "zero_param_share": 1 if nos else (L / n_s if z >= 3 and R else 1),
    "zero_grad_share": 1 if nos else (1 / n_s if z >= 2 else 1),
    "zero_opt_share": 1 / n_s if z >= 1 else 1,
    "zero_param_share_experts": 1 if nos else (L * e * x / (t * dp * c) if z >= 3 else 1),
    "zero_grad_share_experts": 1 if nos else (e * x / (t * dp * c) if z >= 2 else 1),
    "zero_opt_share_experts": e * x / (t * dp * c) if z >= 1 else 1,
    "tp_bytes_factor": 2 * (t - 1) / t,
    "cp_bytes_factor": c - 1,
    "dp_windows": m if z >= 2 else 1,
    "fsdp_once": 1 / m if nos else 0,
}
if kn["moe_dispatcher"] < 0.5:  # the all-to-all dispatcher
    want["ep_bytes_factor"] = (e - 1) / (e * t) + (x - 1) / t
lane = d["terms"]
for k, v in want.items():
    assert near(lane[k], v), (k, lane[k], v, s)
# the experts' group n in the printed DP formulas: n = t*d*c/(e*etp) (0 bytes when n = 1)
if n_e == 1:
    assert lane["dp_bytes_per_param_experts"] == 0, lane["dp_bytes_per_param_experts"]

# layer terms: params = bytes_p*(P_dense*zp + P_exp*zp_e), and the same for grads and
# optimizer: one bytes-per-parameter figure for every layer kind of the strategy
for term, zs, zse in (("params", "zero_param_share", "zero_param_share_experts"),
                      ("grads", "zero_grad_share", "zero_grad_share_experts"),
                      ("optimizer", "zero_opt_share", "zero_opt_share_experts")):
    per = set()
    for q in d["layers"]:
        lt = q["terms"]
        shares = lt["dense_params"] * lane[zs] + lt["expert_params"] * lane[zse]
        if shares > 0:
            per.add(round(lt[term] / shares, 9))
        else:
            assert lt[term] == 0, (term, q)
    assert len(per) <= 1, (term, per)

# the step: each printed aggregate of the per-stage terms
st, tm, mem = d["per_stage"], d["time"], d["memory"]
assert near(mem["peak"], max(p["peak"] for p in st)), mem
top = st[mem["peak_stage"]]
for k in ("params", "grads", "optimizer", "activations", "comm_buffers"):
    assert near(mem[k], top[k]), (k, mem[k], top[k])  # "peak stage"
t_max = max(p["time_per_microbatch"] for p in st)
slow = next(p for p in st if p["time_per_microbatch"] == t_max)  # first on ties
dp_max = max(p["dp_comm"] for p in st)
# "max over stages of dp_comm + m * (fsdp_exposed + fsdp_lead) of the slowest stage"
fs = slow["terms"]["fsdp_exposed"] + slow["terms"]["fsdp_lead"]
assert near(tm["dp_comm"], dp_max + m * fs), (tm["dp_comm"], dp_max, fs)
offl = max(p["offload_transfer"] for p in st)
# "m * T_max + bubble + max over stages of dp_comm + optimizer + max over stages of
# offload_transfer"
assert near(tm["step"], m * t_max + tm["bubble"] + dp_max + tm["optimizer"] + offl), tm
assert near(d["tokens_per_s"], d["gbs"] * d["seq"] / tm["step"])  # "gbs * seq / step"

# the text prints the same value for every term (%.6g) beside the formula
rows = 0
for line in text.splitlines():
    f = line.split()
    if len(f) >= 3 and f[0] in lane and re.fullmatch(r"[-+0-9.e]+|inf|nan", f[1]):
        assert float(f[1]) == float("%.6g" % lane[f[0]]), (line, lane[f[0]])
        rows += 1
assert rows == len(lane), (rows, len(lane))
# the memory table and the verdict print GiB (2^30 bytes), the unit of plan
gib = 1073741824.0
assert "memory per stage (GiB = 2^30 bytes)" in text
tab = text[text.index("memory per stage"):].splitlines()[2:2 + pp]
for p, line in zip(st, tab):
    assert math.isclose(float(line.split()[-1]), p["peak"] / gib, abs_tol=5e-4), (line, p)
assert "device %.2f GiB" % (mem["device"] / gib) in text
print("formulas: %d strategy terms and %d layer kinds checked" % (len(want), len(d["layers"])))
