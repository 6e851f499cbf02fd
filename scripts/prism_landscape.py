#!/usr/bin/python3
"""prism_landscape - read a prism HDF5 landscape (`prism sweep -o FILE.h5`) into numpy.

    import prism_landscape as pl
    ls = pl.load("landscape.h5", columns=["tp", "pp", "step_time", "peak_mem", "feasible"])
    ls["step_time"]              # numpy array, one value per strategy (global row index)
    ls.attrs["model"]            # root attributes; JSON text is decoded
    m = ls.mask("feasible==1, tp<=8, schedule=1f1b")   # prism's --where syntax
    front = pl.pareto_mask(ls["step_time"][m], ls["peak_mem"][m])

Uses Debian's python3-h5py and python3-numpy: run with /usr/bin/python3 (a python3 from
pyenv or a venv does not see them). Nothing here writes files.

Compression: /landscape is zstd (HDF5 filter 32015) by default, or lz4 (32004), deflate or
none (`prism sweep --compression`). HDF5 finds the zstd/lz4 decoders as plugins: unless
HDF5_PLUGIN_PATH is set, this module points it, before h5py starts HDF5, at prism's own
plugins ($PRISM_H5PLUGINS, a build folder's h5plugins; else build/h5plugins of this source
tree, or PREFIX/lib/prism/h5plugins next to an installed prism) and at Debian's hdf5-filter-plugin folder (lz4), then imports
hdf5plugin when it is installed (pip's wheel carries zstd and lz4; Debian's
python3-hdf5plugin carries no compiled filters, only the names).
"""
import json
import os
import sys
import re


def _plugin_path():
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.environ.get("PRISM_H5PLUGINS", ""),
                  os.path.join(here, "..", "build", "h5plugins"),
                  os.path.join(here, "..", "lib", "prism", "h5plugins"),
                  "/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins"]
    return os.pathsep.join(os.path.normpath(c) for c in candidates if c and os.path.isdir(c))


if "HDF5_PLUGIN_PATH" not in os.environ and _plugin_path():
    os.environ["HDF5_PLUGIN_PATH"] = _plugin_path()

import h5py  # noqa: E402  (after HDF5_PLUGIN_PATH)
import numpy as np  # noqa: E402

try:
    import hdf5plugin  # noqa: F401,E402  (registers its filters in h5py's HDF5)
except ImportError:
    pass

_OPS = {
    "<=": np.less_equal,
    ">=": np.greater_equal,
    "==": np.equal,
    "!=": np.not_equal,
    "<": np.less,
    ">": np.greater,
    "=": np.equal,
}
_TERM = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_.]*)\s*(<=|>=|==|!=|<|>|=)\s*(\S+)\s*$")
# The objective aliases prism accepts (search.h, cost.h).
ALIASES = {"step": "step_time", "time_step": "step_time", "time.step": "step_time",
           "memory": "peak_mem", "mem_peak": "peak_mem", "memory.peak": "peak_mem",
           "throughput": "tokens_per_s", "tokens": "tokens_per_s", "bubble": "bubble_time"}
GIB = 1024.0 ** 3
# Integer columns of /landscape that describe the row, not its strategy.
_ROW_COLUMNS = ("point", "peak_stage", "feasible", "reason", "mem_risk")


def _text(v):
    return v.decode() if isinstance(v, bytes) else v


def _attr(v):
    v = _text(v)
    if isinstance(v, str) and v[:1] in "{[":
        try:
            return json.loads(v)
        except ValueError:
            return v
    if isinstance(v, np.integer):
        return int(v)
    return v


class Landscape:
    """Columns of /landscape (loaded on demand), root attributes, grid table and codes."""

    def __init__(self, path, columns=None):
        self.path = path
        self._file = h5py.File(path, "r")
        f = self._file
        self.attrs = {k: _attr(v) for k, v in f.attrs.items()}
        if "landscape" not in f:
            raise ValueError("%s has no /landscape (written with --no-landscape?)" % path)
        group = f["landscape"]
        self.names = _text(group.attrs["columns"]).split(",")
        self.codes = {c: _text(group[c].attrs["codes"]).split(",")
                      for c in self.names if "codes" in group[c].attrs}
        self.units = {c: _text(group[c].attrs.get("unit", "")) for c in self.names}
        self.dims = self._strategy_dims(group)
        self.n = group[self.names[0]].shape[0]
        # Schema 3: mfu and tokens_per_s are derived from step_time, devices and the
        # per-point constants of /constants; schema 5: hfu from step_time and the stored
        # flops_time (io/README.md, "Derived columns").
        self.derived = [c for c in _text(group.attrs.get("derived", "")).split(",") if c]
        if self.derived:
            self._k = {k: f["constants"][k][:] for k in
                       ("flops_per_step", "peak_flops", "tokens_per_step")}
            self.names += self.derived
            self.units.update({"mfu": "fraction", "tokens_per_s": "1/s", "hfu": "fraction"})
        self._cols = {}
        for c in columns or []:
            self[c]
        self.grid = None
        if "grid" in f:
            g = f["grid"]
            self.grid = {k: g[k][:] for k in g}
            for k in ("model", "cluster"):
                self.grid[k] = [_text(x) for x in self.grid[k]]

    def _strategy_dims(self, group):
        """The strategy dims of this file, in its column order, as its own schema states
        them: the `dims` attribute of /landscape where the writer stores one, else every
        integer column counted or coded (its `type` u8/u16/u32, its `unit` count or code)
        but the row's bookkeeping (point, peak_stage, feasible, reason, and the memory
        class mem_risk of `sweep --intervals`). A file of another
        schema has other dims, so nothing here is a fixed list."""
        if "dims" in group.attrs:
            return [d for d in _text(group.attrs["dims"]).split(",") if d]
        return [c for c in self.names
                if _text(group[c].attrs.get("type", "")).startswith("u")
                and self.units[c] in ("count", "code") and c not in _ROW_COLUMNS]

    def column(self, name):
        """Canonical column name for a name or alias; KeyError when unknown."""
        name = ALIASES.get(name, name)
        if name not in self.names:
            close = [c for c in self.names if c.startswith(name[:2])]
            raise KeyError("no column %r in %s (similar: %s)" % (name, self.path,
                                                                 ", ".join(close) or "-"))
        return name

    def __getitem__(self, name):
        name = self.column(name)
        if name not in self._cols:
            if name in self.derived:
                self._cols[name] = self._derive(name)
            else:
                self._cols[name] = self._file["landscape"][name][:]
        return self._cols[name]

    def _derive(self, name):
        """A derived column, formed in float64 as the cost kernel forms it, then float32."""
        point = self["point"] if "point" in self.names else np.zeros(self.n, dtype=np.uint32)
        inv_step = 1.0 / self["step_time"]
        if name == "mfu":
            k = self._k["flops_per_step"][point] / (self["devices"].astype(np.float64) *
                                                    self._k["peak_flops"][point])
        elif name == "tokens_per_s":
            k = self._k["tokens_per_step"][point]
        elif name == "hfu":  # schema 5: the segment's flops_time is stored per row
            k = self["flops_time"]
        else:
            raise KeyError("%s: cannot derive column %r" % (self.path, name))
        return (k * inv_step).astype(np.float32)

    def code(self, column, name):
        """The number of a code name ("1f1b" -> 0) of a code column."""
        column = self.column(column)
        names = self.codes.get(column)
        if names is None:
            raise ValueError("%r is not a number (column %s has no code names)" % (name, column))
        if name not in names:
            raise ValueError("%r is not a %s (allowed: %s)" % (name, column, ", ".join(names)))
        return names.index(name)

    def mask(self, where=None):
        """Rows passing prism's --where syntax: "tp<=8, pp>=2, schedule=1f1b"."""
        keep = np.ones(self.n, dtype=bool)
        for term in filter(None, (t.strip() for t in (where or "").split(","))):
            m = _TERM.match(term)
            if not m:
                raise ValueError("--where: %r is not COLUMN OP VALUE" % term)
            col, op, value = self.column(m.group(1)), m.group(2), m.group(3)
            try:
                v = float(value)
            except ValueError:
                v = self.code(col, value)
            keep &= _OPS[op](self[col], v)
        return keep

    def points(self):
        """The grid points present (0 for a single setup)."""
        return np.unique(self["point"])

    def label(self, point):
        """A short description of a grid point (or of the single setup)."""
        if self.grid is not None and point < len(self.grid["rows"]):
            g = self.grid
            return "%s on %d x %s, gbs %d, seq %d" % (g["model"][point], g["devices"][point],
                                                      g["cluster"][point], g["gbs"][point],
                                                      g["seq"][point])
        model = self.attrs.get("model", {})
        cluster = self.attrs.get("cluster", {})
        train = self.attrs.get("training", {})
        name = model.get("name", "?") if isinstance(model, dict) else "?"
        cname = cluster.get("name", "?") if isinstance(cluster, dict) else "?"
        gbs = train.get("gbs", "?") if isinstance(train, dict) else "?"
        return "%s on %s, gbs %s" % (name, cname, gbs)

    def strategy(self, i):
        """prism's text form of row i, as `prism pareto` prints it ("devices=8,dp=8,tp=1,
        ...,schedule=1f1b"): the file's dims in its column order (the registry's user order,
        include/prism/registry.h), etp only where it differs from tp, offload where it is not
        0, an overlap option where it is off (strategy.c, prism_strategy_format). A dim this
        text does not know (a file of a later schema) stands as NAME=VALUE, so two different
        strategies never print alike."""
        g = lambda c: int(self[c][i])
        have = set(self.dims)
        text = []
        for d in self.dims:
            v = g(d)
            if d in ("folding", "rc_layers"):
                continue  # folding follows from etp and ep; rc_layers is in recompute
            if d == "etp" and v == g("tp"):
                continue
            if d == "offload" and v == 0:
                continue
            if d.endswith("_overlap") and v == 1:
                continue
            if d == "recompute":
                rc = self.codes[d][v]
                text.append("recompute=" + (("block:%d" % g("rc_layers"))
                                            if rc == "block" and "rc_layers" in have else rc))
            elif d in self.codes:
                text.append("%s=%s" % (d, self.codes[d][v]))
            else:
                text.append("%s=%d" % (d, v))
        return ",".join(text)

    def close(self):
        self._file.close()


def run_cli(main, prog):
    """Run a script's main(): bad input (a missing, unreadable or damaged file, an unknown
    column, a bad --where) gives one line "PROG: error: ..." and exit status 2, like
    prism itself, instead of a Python traceback. Returns main()'s status."""
    try:
        return main()
    except (OSError, KeyError, ValueError) as e:
        msg = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
        print("%s: error: %s" % (prog, msg), file=sys.stderr)
        return 2


def load(path, columns=None):
    """Open a landscape; @columns are read at once, the others on first use."""
    return Landscape(path, columns)


def pareto_mask(*keys, maximize=None, block=1024):
    """Boolean mask of the Pareto-optimal rows over @keys (1-D arrays, minimised unless
    the matching @maximize entry is true). Ties follow prism (front.h): among identical
    key vectors only the first row survives; NaN rows never enter. After a lexicographic
    sort a row can only be dominated by earlier rows, so rows are filtered block by block
    against the front so far (vectorised sort-filter-skyline)."""
    maximize = maximize or [False] * len(keys)
    k = np.column_stack([-np.asarray(x, float) if mx else np.asarray(x, float)
                         for x, mx in zip(keys, maximize)])
    n = k.shape[0]
    ok = ~np.isnan(k).any(axis=1)
    idx = np.flatnonzero(ok)
    order = idx[np.lexsort(tuple([idx] + [k[idx, j] for j in range(k.shape[1] - 1, -1, -1)]))]
    ks = k[order]
    keep = np.zeros(n, dtype=bool)
    front = np.empty((0, k.shape[1]))
    for s in range(0, len(order), block):
        b = ks[s:s + block]
        rows = order[s:s + block]
        if len(front):
            # an earlier row <= in every key precedes (dominates or equals) this one
            dom = np.zeros(len(b), dtype=bool)
            for f0 in range(0, len(front), 4096):
                f = front[f0:f0 + 4096]
                dom |= (f[None, :, :] <= b[:, None, :]).all(axis=2).any(axis=1)
            b, rows = b[~dom], rows[~dom]
        if len(b):
            within = (b[None, :, :] <= b[:, None, :]).all(axis=2)  # [j, i]: i precedes j
            dominated = np.tril(within, -1).any(axis=1)
            b, rows = b[~dominated], rows[~dominated]
            front = np.vstack([front, b])
            keep[rows] = True
    return keep


def ranks(values, mask, maximize=False):
    """Rank (1 = best) of every row in @mask by @values (ties by row index); 0 elsewhere."""
    r = np.zeros(len(values), dtype=np.int64)
    idx = np.flatnonzero(mask)
    v = -values[idx] if maximize else values[idx]
    order = idx[np.lexsort((idx, v))]
    r[order] = np.arange(1, len(order) + 1)
    return r
