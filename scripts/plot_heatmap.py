#!/usr/bin/python3
"""plot_heatmap.py - best value of a column per cell of two strategy dims, to PNG.

    scripts/plot_heatmap.py landscape.h5 -o heat.png                    # tp x pp -> best step_time
    scripts/plot_heatmap.py a.h5 --x cp --y tp --value max:mfu --point 3 -o heat.png

Only feasible rows count; an empty cell means no strategy with those dims fits.
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
from plot_fronts import scale  # noqa: E402


def best_table(ls, x="tp", y="pp", value="step_time", where=None, point=None):
    """(x values, y values, table) of the best @value per (x, y) cell; NaN when empty."""
    maximize = value.startswith("max:")
    value = ls.column(value[4:] if maximize or value.startswith("min:") else value)
    x, y = ls.column(x), ls.column(y)
    keep = ls.mask(where) & (ls["feasible"] == 1)
    if point is not None:
        keep &= ls["point"] == point
    xv, yv = np.unique(ls[x][keep]), np.unique(ls[y][keep])
    table = np.full((len(yv), len(xv)), np.nan)
    xi = np.searchsorted(xv, ls[x][keep])
    yi = np.searchsorted(yv, ls[y][keep])
    v = ls[value][keep].astype(float)
    if maximize:
        np.fmax.at(table, (yi, xi), v)
    else:
        table[:] = np.inf
        np.minimum.at(table, (yi, xi), v)
        table[np.isinf(table)] = np.nan
    return xv, yv, table, value, maximize


def draw_heatmap(ax, ls, x="tp", y="pp", value="step_time", where=None, point=None):
    xv, yv, table, column, maximize = best_table(ls, x, y, value, where, point)
    shown, label = scale(ls, column, table)
    im = ax.imshow(shown, origin="lower", cmap="viridis" if maximize else "viridis_r",
                   aspect="auto")
    ax.set_xticks(range(len(xv)), [str(v) for v in xv])
    ax.set_yticks(range(len(yv)), [str(v) for v in yv])
    ax.set_xlabel(ls.column(x))
    ax.set_ylabel(ls.column(y))
    for (i, j), val in np.ndenumerate(shown):
        if not np.isnan(val):
            ax.text(j, i, "%.3g" % val, ha="center", va="center", fontsize=7,
                    color="white" if (val > np.nanmedian(shown)) != maximize else "black")
    plt.colorbar(im, ax=ax, label=("best (max) " if maximize else "best (min) ") + label)
    return table


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("file", help="landscape written by prism sweep")
    p.add_argument("-o", "--output", default="heatmap.png", help="PNG to write")
    p.add_argument("--x", default="tp", help="column across (default tp)")
    p.add_argument("--y", default="pp", help="column up (default pp)")
    p.add_argument("--value", default="step_time",
                   help="column to optimise per cell; max:COL maximises (default step_time)")
    p.add_argument("--where", help='row filter, prism syntax ("cp=1,zero>=1")')
    p.add_argument("--point", type=int, help="grid point (default: all rows)")
    a = p.parse_args(argv)
    ls = pl.load(a.file)
    fig, ax = plt.subplots(figsize=(7, 5), dpi=110)
    table = draw_heatmap(ax, ls, a.x, a.y, a.value, a.where, a.point)
    ax.set_title(ls.label(a.point or 0))
    fig.tight_layout()
    fig.savefig(a.output)
    print("%s: %d x %d cells, %d filled" % (a.output, table.shape[1], table.shape[0],
                                            int(np.isfinite(table).sum())))
    return 0


if __name__ == "__main__":
    sys.exit(pl.run_cli(main, "plot_heatmap.py"))
