#!/usr/bin/python3
"""plot_fronts.py - Pareto fronts of a prism landscape, one per group, overlaid, to PNG.

    scripts/plot_fronts.py landscape.h5 -o fronts.png                 # one front per grid point
    scripts/plot_fronts.py prism-demo.h5 --group-by pp -o fronts.png  # one per pipeline depth
    scripts/plot_fronts.py a.h5 --x step_time --y peak_mem --where "tp<=8" --all

Each front is computed here (numpy) over the feasible rows of its group that pass
--where; --all also draws every feasible row as a light background (subsampled).
Needs Debian's python3-h5py, numpy and matplotlib (run with /usr/bin/python3).
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import prism_landscape as pl  # noqa: E402


def scale(ls, column, values):
    """Values in a readable unit, and the axis label."""
    unit = ls.units.get(column, "")
    if unit == "bytes":
        return values / pl.GIB, "%s (GiB)" % column
    if unit == "fraction":
        return 100 * values, "%s (%%)" % column
    return values, "%s (%s)" % (column, unit) if unit else column


def group_label(ls, group_by, value):
    if group_by == "point":
        return ls.label(int(value))
    if group_by in ls.codes:
        return "%s=%s" % (group_by, ls.codes[group_by][int(value)])
    return "%s=%g" % (group_by, value)


def draw_fronts(ax, ls, x="step_time", y="peak_mem", group_by="point", where=None,
                show_all=False, max_groups=12):
    """Draw one front per value of @group_by; returns the number of fronts drawn."""
    x, y = ls.column(x), ls.column(y)
    group_by = ls.column(group_by)
    keep = ls.mask(where) & (ls["feasible"] == 1)
    xs, xlabel = scale(ls, x, ls[x].astype(float))
    ys, ylabel = scale(ls, y, ls[y].astype(float))
    if show_all and keep.any():
        idx = np.flatnonzero(keep)
        if len(idx) > 200000:  # a readable background, not every point
            idx = np.random.default_rng(0).choice(idx, 200000, replace=False)
        ax.scatter(xs[idx], ys[idx], s=1, color="0.85", rasterized=True,
                   label="feasible strategies")
    groups = np.unique(ls[group_by][keep])
    cmap = plt.get_cmap("viridis" if len(groups) > 10 else "tab10")
    drawn, lo, hi = 0, np.inf, -np.inf
    for k, g in enumerate(groups[:max_groups]):
        rows = np.flatnonzero(keep & (ls[group_by] == g))
        front = rows[pl.pareto_mask(ls[x][rows], ls[y][rows])]
        front = front[np.argsort(xs[front], kind="stable")]
        color = cmap(k / max(len(groups) - 1, 1)) if len(groups) > 10 else cmap(k % 10)
        ax.step(xs[front], ys[front], where="post", color=color, lw=1.2)
        ax.plot(xs[front], ys[front], "o", ms=3, color=color,
                label="%s (%d)" % (group_label(ls, group_by, g), len(front)))
        lo, hi = min(lo, xs[front].min()), max(hi, xs[front].max())
        drawn += 1
    if drawn:
        # Frame the fronts (the background may reach far worse strategies); a log axis
        # when they span more than a decade.
        ax.set_xlim(lo * 0.95 if lo > 0 else lo, hi * 1.5 if hi > 0 else hi)
        if lo > 0 and hi / lo > 10:
            ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    if len(groups) > max_groups:
        ax.set_title("first %d of %d groups" % (max_groups, len(groups)), fontsize=8)
    ax.legend(fontsize=7, loc="upper right")
    return drawn


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("file", help="landscape written by prism sweep")
    p.add_argument("-o", "--output", default="fronts.png", help="PNG to write")
    p.add_argument("--x", default="step_time", help="x column (minimised)")
    p.add_argument("--y", default="peak_mem", help="y column (minimised)")
    p.add_argument("--group-by", default="point",
                   help="one front per value of this column (default: grid point)")
    p.add_argument("--where", help='row filter, prism syntax ("tp<=8,pp>=2")')
    p.add_argument("--all", action="store_true", help="draw every feasible row behind")
    p.add_argument("--title", help="figure title")
    a = p.parse_args(argv)
    ls = pl.load(a.file)
    fig, ax = plt.subplots(figsize=(8, 5.5), dpi=110)
    n = draw_fronts(ax, ls, a.x, a.y, a.group_by, a.where, a.all)
    ax.set_title(a.title or "Pareto fronts: %s" % ls.label(0))
    fig.tight_layout()
    fig.savefig(a.output)
    print("%s: %d fronts of %s" % (a.output, n, a.file))
    return 0


if __name__ == "__main__":
    sys.exit(pl.run_cli(main, "plot_fronts.py"))
