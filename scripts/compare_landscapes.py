#!/usr/bin/python3
"""compare_landscapes.py - compare two prism landscapes row by row (an ablation).

    prism sweep -m gpt3-13b -n 64:256 -o base.h5
    prism sweep -m gpt3-13b -n 64:256 --set tp_overlap=0.5 -o overlap.h5
    scripts/compare_landscapes.py base.h5 overlap.h5 [--by step_time] [--top 20] [--csv rows.csv]

Rows are matched by grid point and every strategy dim the files' schema names (the
integer columns of /landscape that are counted or coded, read from the file), not by
index, so landscapes with different filters or grids still line up. For the ranking
column (--by, max:COL to maximise) every feasible row gets its rank within its grid point
in each file; the
report gives the match counts, feasibility flips, the rank correlation, how the top-N
changed, and the strategies whose rank moved most. --json prints the summary as JSON.
Needs Debian's python3-h5py and numpy (run with /usr/bin/python3).
"""
import argparse
import csv
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import prism_landscape as pl  # noqa: E402



def common_dims(a, b):
    """The strategy dims both files hold, in A's order; two files of different schemas
    (one without a dim the other has) cannot be matched row for row."""
    if set(a.dims) != set(b.dims):
        only_a = [d for d in a.dims if d not in b.dims]
        only_b = [d for d in b.dims if d not in a.dims]
        raise ValueError("%s and %s have different strategy dims (only in A: %s; only in B: "
                         "%s); compare landscapes of one schema"
                         % (a.path, b.path, ", ".join(only_a) or "-", ", ".join(only_b) or "-"))
    return list(a.dims)


def point_keys(ls):
    """A setup key per grid point, so points match across files by content."""
    if ls.grid is None:
        return {0: "single"}
    g = ls.grid
    return {p: "%s|%s|%d|%d|%d" % (g["model"][p], g["cluster"][p], g["devices"][p],
                                   g["gbs"][p], g["seq"][p]) for p in range(len(g["rows"]))}


def row_keys(ls, setup_id, dims):
    """One structured key per row: the setup (as a shared id) and every strategy dim.
    A strategy is its dims, so the keys of one file are unique; a file where they are
    not is refused rather than matched wrongly."""
    dtype = [("setup", np.int64)] + [(d, np.int64) for d in dims]
    keys = np.empty(ls.n, dtype=dtype)
    pk = point_keys(ls)
    keys["setup"] = np.array([setup_id[pk[p]] for p in range(max(pk) + 1)])[ls["point"]]
    for d in dims:
        keys[d] = ls[d]
    if len(np.unique(keys)) != ls.n:
        raise ValueError("%s: %d rows share their setup and strategy dims (%s)"
                         % (ls.path, ls.n - len(np.unique(keys)), ",".join(dims)))
    return keys


def match(a, b):
    """Indices (ia, ib) of the rows present in both landscapes, matched by key."""
    setups = sorted(set(point_keys(a).values()) | set(point_keys(b).values()))
    setup_id = {s: i for i, s in enumerate(setups)}
    dims = common_dims(a, b)
    ka, kb = row_keys(a, setup_id, dims), row_keys(b, setup_id, dims)
    both, ia, ib = np.intersect1d(ka, kb, assume_unique=True, return_indices=True)
    return ia, ib


def spearman(x, y):
    if len(x) < 2:
        return float("nan")
    rx = np.argsort(np.argsort(x)).astype(float)
    ry = np.argsort(np.argsort(y)).astype(float)
    return float(np.corrcoef(rx, ry)[0, 1])


def compare(a, b, by="step_time", top=10):
    maximize = by.startswith("max:")
    col = a.column(by[4:] if maximize or by.startswith("min:") else by)
    b.column(col)
    ia, ib = match(a, b)
    fa, fb = a["feasible"] == 1, b["feasible"] == 1
    # ranks within each grid point, among that file's feasible rows
    ra = np.zeros(a.n, dtype=np.int64)
    rb = np.zeros(b.n, dtype=np.int64)
    for ls, r, f in ((a, ra, fa), (b, rb, fb)):
        for p in ls.points():
            m = f & (ls["point"] == p)
            r[m] = pl.ranks(ls[col], m, maximize)[m]
    both = fa[ia] & fb[ib]
    va, vb = a[col][ia].astype(float), b[col][ib].astype(float)
    rel = np.where(va != 0, (vb - va) / np.where(va != 0, va, 1), np.nan)
    summary = {
        "a": a.path, "b": b.path, "by": ("max:" if maximize else "") + col,
        "rows_a": int(a.n), "rows_b": int(b.n), "matched": int(len(ia)),
        "only_a": int(a.n - len(ia)), "only_b": int(b.n - len(ib)),
        "feasible_both": int(both.sum()),
        "feasible_only_a": int((fa[ia] & ~fb[ib]).sum()),
        "feasible_only_b": int((~fa[ia] & fb[ib]).sum()),
        "value_changed": int((va != vb).sum()),
        "median_rel_change": float(np.nanmedian(rel[both])) if both.any() else None,
        "rank_spearman": spearman(ra[ia][both], rb[ib][both]),
        "rank_changed": int((ra[ia][both] != rb[ib][both]).sum()),
    }
    # the top-N of each grid point in each file, and how its members moved
    in_a, in_b = both & (ra[ia] <= top), both & (rb[ib] <= top)
    summary["top_a"], summary["top_overlap"] = int(in_a.sum()), int((in_a & in_b).sum())
    moved = np.flatnonzero(both & ((ra[ia] <= top) | (rb[ib] <= top)))
    moved = moved[np.argsort(-np.abs(ra[ia][moved] - rb[ib][moved]), kind="stable")]
    movers = [{"strategy": a.strategy(int(ia[k])), "point": int(a["point"][ia[k]]),
               "index_a": int(ia[k]), "index_b": int(ib[k]),
               "rank_a": int(ra[ia[k]]), "rank_b": int(rb[ib[k]]),
               "value_a": float(va[k]), "value_b": float(vb[k])} for k in moved[:2 * top]]
    summary["movers"] = movers
    return summary, (ia, ib, ra, rb, va, vb)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("a", help="baseline landscape")
    p.add_argument("b", help="changed landscape")
    p.add_argument("--by", default="step_time", help="ranking column (max:COL maximises)")
    p.add_argument("--top", type=int, default=10, help="size of the top list compared")
    p.add_argument("--csv", help="write every matched row (indices, values, ranks) here")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = p.parse_args(argv)
    a, b = pl.load(args.a), pl.load(args.b)
    s, (ia, ib, ra, rb, va, vb) = compare(a, b, args.by, args.top)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["index_a", "index_b", "value_a", "value_b", "rank_a", "rank_b"])
            for k in range(len(ia)):
                w.writerow([ia[k], ib[k], repr(va[k]), repr(vb[k]), ra[ia[k]], rb[ib[k]]])
    if args.json:
        print(json.dumps(s, indent=2))
        return 0
    print("A: %s (%d rows)\nB: %s (%d rows)" % (s["a"], s["rows_a"], s["b"], s["rows_b"]))
    print("matched by setup + strategy: %d (only in A: %d, only in B: %d)"
          % (s["matched"], s["only_a"], s["only_b"]))
    print("feasible in both: %d; only in A: %d; only in B: %d"
          % (s["feasible_both"], s["feasible_only_a"], s["feasible_only_b"]))
    print("%s: %d rows changed value, median relative change %s"
          % (s["by"], s["value_changed"],
             "%+.2f%%" % (100 * s["median_rel_change"]) if s["median_rel_change"] is not None
             else "-"))
    print("rank (within each grid point): %d rows changed rank, Spearman %.4f; %d of A's "
          "top-%d rows are in B's" % (s["rank_changed"], s["rank_spearman"], s["top_overlap"],
                                      args.top))
    if s["movers"]:
        print("largest rank changes among the top %d of either file (up to 2 x top):" % args.top)
        print("  %7s %7s %12s %12s  %s" % ("rank A", "rank B", "A", "B", "strategy"))
        for m in s["movers"]:
            print("  %7d %7d %12.5g %12.5g  %s" % (m["rank_a"], m["rank_b"], m["value_a"],
                                                  m["value_b"], m["strategy"]))
    return 0


if __name__ == "__main__":
    sys.exit(pl.run_cli(main, "compare_landscapes.py"))
