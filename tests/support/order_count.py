"""The order statistic of `prism validate` (search/analysis/validate_order.c), counted again from the
rows of `prism validate --json`, for the CLI tests: rows of one source with the same model,
cluster, devices, gbs and seq form a group; a pair's speed is the first of step time (lower
is faster), TFLOP/s and MFU (higher) that both rows give, predicted and measured; measured
values less than `tie` (relative to the larger) apart are ties; a predicted tie is half a
pair; a group's fastest row is judged in the speed most of its rows give (ties: the first
of the three), over the rows that give it: it counts when its measured value leads the next
by the tie, and agrees when prism's prediction for it is strictly the best. Skipped and OOM
rows take no part."""
from itertools import combinations

KS = ("step_time", "tflops_per_gpu", "mfu")
FIELDS = ("groups", "pairs", "measured_ties", "same_order", "fastest_groups", "fastest_agree")


def _speed(r, k):
    p, m = r["predicted"][k], r["measured"][k]
    return (p, m) if p is not None and m is not None and p > 0 and m > 0 else None


def _faster(k, a, b):
    return b - a if k == "step_time" else a - b


def order(rows, tie=0.01):
    """{source: {field: count}} over `rows` (validate --json rows), first-seen order."""
    groups = {}
    for r in rows:
        if r["kind"] == "skipped" or r["oom_row"]:
            continue
        i = r["inputs"]
        key = (r["source"], r["model"], i["cluster"], i["devices"], i["gbs"], i["seq"])
        groups.setdefault(key, []).append(r)
    out = {}
    for key, rs in groups.items():
        g = dict.fromkeys(FIELDS, 0)
        for a, b in combinations(rs, 2):
            k = next((k for k in KS if _speed(a, k) and _speed(b, k)), None)
            if k is None:
                continue
            (pa, ma), (pb, mb) = _speed(a, k), _speed(b, k)
            if abs(ma - mb) < tie * max(ma, mb):
                g["measured_ties"] += 1
                continue
            f = _faster(k, pa, pb)
            g["same_order"] += 0.5 if f == 0 else 1.0 if (f > 0) == (_faster(k, ma, mb) > 0) else 0.0
            g["pairs"] += 1
        g["groups"] = 1 if g["pairs"] else 0
        n = {k: sum(1 for r in rs if _speed(r, k)) for k in KS}
        k = max(KS, key=lambda k: (n[k], -KS.index(k)))
        if n[k] >= 2:
            m = sorted((r for r in rs if _speed(r, k)), key=lambda r: _faster(k, 0, _speed(r, k)[1]))
            best, nxt = _speed(m[0], k)[1], _speed(m[1], k)[1]
            if abs(best - nxt) >= tie * max(best, nxt):
                g["fastest_groups"] = 1
                pb = _speed(m[0], k)[0]
                g["fastest_agree"] = int(all(_faster(k, pb, _speed(r, k)[0]) > 0 for r in m[1:]))
        if g["pairs"] + g["measured_ties"] + g["fastest_groups"] == 0:
            continue
        w = out.setdefault(key[0], dict.fromkeys(FIELDS, 0))
        for f in FIELDS:
            w[f] += g[f]
    return out


def total(per_source):
    return {f: sum(x[f] for x in per_source.values()) for f in FIELDS}
