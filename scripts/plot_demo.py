#!/usr/bin/python3
"""plot_demo.py - the README picture: fronts per pipeline depth and a tp x pp heatmap of
the best step time, from the demo landscape (`bash scripts/demo.sh` -> prism-demo.h5).

    scripts/plot_demo.py prism-demo.h5 -o scripts/img/demo.png

Needs Debian's python3-h5py, numpy and matplotlib (run with /usr/bin/python3).
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import prism_landscape as pl  # noqa: E402
from plot_fronts import draw_fronts  # noqa: E402
from plot_heatmap import draw_heatmap  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("file", nargs="?", default="prism-demo.h5")
    p.add_argument("-o", "--output", default="demo.png")
    a = p.parse_args(argv)
    ls = pl.load(a.file)
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5), dpi=100,
                                      gridspec_kw={"width_ratios": [1.25, 1]})
    draw_fronts(left, ls, "step_time", "peak_mem", "pp", show_all=True)
    left.set_title("Pareto fronts (step time vs peak memory) per pipeline depth", fontsize=10)
    draw_heatmap(right, ls, "tp", "pp", "step_time")
    right.set_title("best step time (s) of the strategies that fit, per tp x pp", fontsize=10)
    feas = int(ls["feasible"].sum())
    fig.suptitle("prism sweep: %s, %d strategies, %d fit in memory" % (ls.label(0), ls.n, feas))
    fig.tight_layout()
    fig.savefig(a.output)
    print("%s: from %s" % (a.output, a.file))
    return 0


if __name__ == "__main__":
    sys.exit(pl.run_cli(main, "plot_demo.py"))
