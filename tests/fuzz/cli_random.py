#!/usr/bin/python3
"""cli_random.py - random command lines and mutated validation CSVs against the prism binary.

    cli_random.py PRISM CASES SEED [--csv-share F] [--timeout S] [--keep DIR] [--ranks R,...]

A case is `plan`, `plan --count`, `explain`, `sweep` or `inputs` with a random model (a
zoo name, or one of tests/data/hf with a few whole-number fields changed), cluster (a
preset, or one of tests/data/clusters with a few values changed), device count, batch,
sequence, dtype, optimizer, memory budget, framework, knob settings (mostly inside the
range `prism knobs --json` documents, sometimes outside) and fixed dims (mostly plausible
values, sometimes not), a grid sweep (`sweep --grid` with tests/data/grids/small.ini or
minimal.ini, a few values changed), or `validate` on a few rows of the shipped validation
CSVs with fields mutated (scaled, emptied or replaced by junk, a column renamed or added,
the text cut short). Every case must end as prism promises: exit 0, or exit 2 with exactly
one `prism: error:` line; never a signal, exit 1, a timeout, a sanitizer or GLib warning,
or JSON that does not parse. Spaces are kept small (at most 64 devices, global batch at
most 256) so that a case takes well under a second.

The model, cluster, knob and framework lists come from the binary itself (`--json`), so
new entries are covered as they are added. The same SEED gives the same cases; a failure
prints the command line (and --keep DIR keeps the files it generated: CSV, config.json,
cluster or grid file) so that it can be rerun by hand.

With --ranks (e.g. 2,3) half the cases are drawn tame (plausible setups that mostly
succeed: a zoo model under 20 B parameters on a preset, in-range knobs; grid sweeps of the
unchanged test grids), and every plan, plan --count, sweep, grid sweep and validate case runs
again under `$MPIEXEC -n R` (R drawn from the list) and must give what one rank gave: the
same exit status; for exit 0 the same standard output (plan's space line without its
timing, rank and thread counts, the refine lines without their seconds, `--json` without
"ranks" and "seconds") and, for sweeps, the same
datasets (`h5diff --exclude-attribute /`); for exit 2 the same one `prism: error:` line. A
job that hangs fails on the timeout.
First find (2026-12-03): `explain --framework megatron-lm-2022 --strategy pp=0` divided by
zero in the profile's equal-chunks note (SIGFPE) before the shape rules refused it.
"""
import csv
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile


def listing(prism, what):
    out = subprocess.run([prism, what, "--json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def knob_value(rng, k):
    """A value inside the knob's documented range, or (one time in eight) outside it."""
    lo, hi = k["min"], k["max"]
    if rng.random() < 0.125:
        return rng.choice(["-1", "nan", "inf", "1e30", "x", "", str(hi * 2 + 1)])
    if k["unit"] in ("bool", "code"):  # settings are whole numbers
        return str(rng.randint(int(lo), int(hi)))
    return repr(rng.choice([lo, hi, lo + (hi - lo) * rng.random(), k["default"]]))


def fixed_dims(rng):
    dims = ["dp", "tp", "pp", "vpp", "cp", "ep", "etp", "sp", "mbs", "zero", "recompute",
            "schedule", "offload"]
    out = []
    for d in rng.sample(dims, rng.randint(0, 5)):
        if d == "recompute":
            v = rng.choice(["none", "selective", "full", "0", "2"])
        elif d == "schedule":
            v = rng.choice(["1f1b", "interleaved", "gpipe", "zb-h1", "zb-v", "dualpipe",
                            "dualpipe-v", "seq1f1b", "bogus"])
        elif d in ("sp", "offload"):
            v = rng.choice(["0", "1"])
        elif d == "zero":
            v = rng.choice(["0", "1", "2", "3"])
        elif rng.random() < 0.1:
            v = rng.choice(["0", "3", "16", "-1"])
        else:
            v = rng.choice(["1", "2", "4", "8"])
        out.append("%s=%s" % (d, v))
    return ",".join(out)


def hf_config(rng, src, work):
    """One of tests/data/hf with one to three whole-number fields scaled or set small: odd
    shapes (one head, a prime width, two experts) that the reader accepts and the cost
    model must price."""
    folder = os.path.join(src, "tests", "data", "hf")
    with open(os.path.join(folder, rng.choice(sorted(os.listdir(folder))))) as f:
        cfg = json.load(f)
    ints = [k for k, v in cfg.items() if isinstance(v, int) and not isinstance(v, bool)]
    for k in rng.sample(ints, min(len(ints), rng.randint(1, 3))):
        cfg[k] = rng.choice([1, 2, 3, 7, 64, max(1, cfg[k] // 2), cfg[k] * 2, cfg[k] + 1])
    path = os.path.join(work, "config.json")
    with open(path, "w") as f:
        json.dump(cfg, f)
    return path


def cluster_file(rng, src, work):
    """One of tests/data/clusters with one to three numeric values scaled or set small (a
    node of one device, a slow link, a tiny L2, few SMs)."""
    folder = os.path.join(src, "tests", "data", "clusters")
    with open(os.path.join(folder, rng.choice(sorted(os.listdir(folder))))) as f:
        lines = f.read().splitlines()
    numeric = [i for i, line in enumerate(lines)
               if "=" in line and line.split("=", 1)[1].strip().replace(".", "", 1).isdigit()]
    for i in rng.sample(numeric, min(len(numeric), rng.randint(1, 3))):
        key, value = (part.strip() for part in lines[i].split("=", 1))
        x = float(value)
        y = rng.choice([x * 2, x / 2, 1, 2, 0.5, x + 1])
        lines[i] = "%s = %s" % (key, int(y) if y == int(y) else repr(y))
    path = os.path.join(work, "cluster.ini")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def grid_file(rng, src, work):
    """--grid's arguments: tests/data/grids/small.ini or minimal.ini with one to three
    values changed (a list item dropped, doubled or replaced by a small number, a name,
    junk); relative paths are made absolute (they are relative to the grid file's folder)."""
    folder = os.path.join(src, "tests", "data", "grids")
    name = rng.choice(["small.ini", "minimal.ini"])
    with open(os.path.join(folder, name)) as f:
        lines = f.read().splitlines()
    for i, line in enumerate(lines):
        if "../" in line:
            lines[i] = line.replace("../", os.path.join(src, "tests", "data") + os.sep)
    values = [i for i, line in enumerate(lines) if "=" in line and not line.startswith("#")]
    for i in rng.sample(values, min(len(values), rng.randint(1, 3))):
        key, value = (part.strip() for part in lines[i].split("=", 1))
        items = [v.strip() for v in value.split(";")]
        j = rng.randrange(len(items))
        items[j] = rng.choice(["", "0", "1", "2", "3", "4", "-1", "x", "nan", "llama3-8b",
                               "H100-SXM", items[j] + items[j], items[j]])
        if len(items) > 1 and rng.random() < 0.3:
            del items[j]
        lines[i] = "%s = %s" % (key, "; ".join(items))
    path = os.path.join(work, "grid.ini")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    # minimal.ini names only models: the rest comes from the command line (kept small)
    return [path] + (["-n", "8", "--gbs", "32"] if name == "minimal.ini" else [])


def command(rng, lists, work, src):
    models, clusters, knobs, frameworks = lists
    cmd = rng.choice([["plan"], ["plan"], ["plan", "--count"], ["explain"], ["sweep"],
                      ["inputs"], ["grid"]])
    if cmd[0] == "grid":  # a grid sweep: its setup comes from the file
        return ["sweep", "--grid"] + grid_file(rng, src, work) + ["-o",
                os.path.join(work, "grid.h5"), "--force", "--no-progress", "--no-fsync"]
    # sweeps take the zoo's models under 20 B parameters: a big model on 64 devices
    # mostly ends in "nothing fits", whose what-if searches plan already exercises and
    # which cost seconds each
    zoo = [m["name"] for m in models if cmd[0] != "sweep" or m["params"] < 20e9]
    model = hf_config(rng, src, work) if rng.random() < 0.25 else rng.choice(zoo)
    cluster = cluster_file(rng, src, work) if rng.random() < 0.2 else rng.choice(clusters)
    a = cmd + ["-m", model, "-c", cluster]
    ranges = ["8:64"] if cmd[0] != "explain" else []  # explain takes one count
    a += ["-n", rng.choice(["1", "2", "3", "6", "8", "12", "16", "64"] + ranges)]
    if rng.random() < 0.7:
        a += ["--gbs", rng.choice(["1", "2", "7", "8", "16", "32", "256"])]
    if rng.random() < 0.6:
        a += ["--seq", rng.choice(["1", "3", "128", "2048", "4096", "32768", "131072"])]
    if rng.random() < 0.4:
        a += ["--dtype", rng.choice(["bf16", "fp16", "fp8", "fp8-cs", "mxfp8", "fp32"])]
    if rng.random() < 0.3:
        a += ["--optimizer", rng.choice(["adam", "sgd"])]
    if rng.random() < 0.3:
        a += ["--mem-budget", rng.choice(["0.1", "8", "20", "40", "80", "1000", "-1", "nan"])]
    if rng.random() < 0.4 and cmd[0] != "inputs":
        a += ["--framework", rng.choice(frameworks)]
    for _ in range(rng.randint(0, 3)):
        k = rng.choice(knobs)
        a += ["--set", "%s=%s" % (k["name"], knob_value(rng, k))]
    dims = fixed_dims(rng)
    if cmd[0] == "explain":
        a += ["--strategy", dims]
    elif dims and cmd[0] != "inputs":
        a += ["--fix", dims]
    if cmd[0] == "sweep":
        a += ["-o", os.path.join(work, "sweep.h5"), "--force", "--no-progress", "--no-fsync"]
    if cmd[0] == "plan" and len(cmd) == 1:
        a += ["--no-progress"] + rng.choice([[], ["--json"], ["--refine", "2"], ["--top", "1"]])
    if cmd[0] in ("explain", "inputs") and rng.random() < 0.3:
        a += ["--json"]
    return a


def tame_command(rng, lists, work, src):
    """A plan, count or sweep that mostly succeeds: a zoo model under 20 B parameters on a
    preset, 8 to 32 devices, knob values inside their range, at most two plausible fixed
    dims; or a grid sweep of an unchanged test grid. For --ranks, whose subject is the
    successful runs' results (the other cases mostly end in an error)."""
    models, clusters, knobs, frameworks = lists
    kind = rng.choice(["plan", "plan", "count", "sweep", "grid"])
    if kind == "grid":
        name = rng.choice(["small.ini", "minimal.ini"])
        grid = os.path.join(src, "tests", "data", "grids", name)
        extra = [] if name == "small.ini" else ["-c", rng.choice(clusters), "-n", "8:16",
                                                "--gbs", "16"]
        return ["sweep", "--grid", grid] + extra + ["-o", os.path.join(work, "grid.h5"),
                                                    "--force", "--no-progress", "--no-fsync"]
    small = [m["name"] for m in models if m["params"] < 20e9]
    a = (["plan", "--count"] if kind == "count" else [kind]) + [
        "-m", rng.choice(small), "-c", rng.choice(clusters),
        "-n", rng.choice(["8", "16", "32", "8:32"]), "--gbs", rng.choice(["8", "16", "64"]),
        "--seq", rng.choice(["512", "2048", "8192"])]
    if rng.random() < 0.3:
        a += ["--dtype", rng.choice(["fp8", "fp8-cs", "fp16"])]
    if rng.random() < 0.3:
        a += ["--framework", rng.choice(frameworks)]
    for _ in range(rng.randint(0, 2)):
        k = rng.choice(knobs)
        lo, hi = k["min"], k["max"]
        v = rng.randint(int(lo), int(hi)) if k["unit"] in ("bool", "code") else \
            rng.choice([lo, hi, k["default"]])
        a += ["--set", "%s=%s" % (k["name"], v)]
    fixed = rng.sample(["tp=2", "pp=2", "zero=1", "sp=1", "recompute=full", "cp=2",
                        "schedule=interleaved", "mbs=1"], rng.randint(0, 2))
    if fixed:
        a += ["--fix", ",".join(fixed)]
    if kind == "sweep":
        a += ["-o", os.path.join(work, "sweep.h5"), "--force", "--no-progress", "--no-fsync"]
    elif kind == "plan":
        a += ["--no-progress"] + rng.choice([[], ["--json"], ["--refine", "2"], ["--top", "3"]])
    return a


JUNK = ["", "0", "-1", "1e308", "nan", "inf", "x", "1.5", "65536", "4294967296",
        "18446744073709551617", '"', "OOM", "full", "fp8", "mxfp8", "B200", "H200", "1,2",
        "  8 ", "0x10", "1e-300"]


def mutate(rng, value):
    if rng.random() < 0.25:
        return rng.choice(JUNK)
    try:
        x = float(value)
    except ValueError:
        return rng.choice(["", value])
    y = rng.choice([x * 2, x / 2, x + 1, 1, 0])
    return str(int(y)) if value.strip().isdigit() else repr(y)


def validation_csv(rng, sources):
    header, body = rng.choice(sources)
    header = list(header)
    rows = [list(r) for r in rng.sample(body, rng.randint(1, 4))]
    for r in rows:
        for _ in range(rng.randint(1, 4)):
            j = rng.randrange(len(r))
            if j == len(r) - 1 and rng.random() < 0.5:  # the notes
                r[j] = rng.choice(["OOM at step 1", "torch.compile on", ""])
            else:
                r[j] = mutate(rng, r[j])
        if rng.random() < 0.05:
            r.append("extra")
        if rng.random() < 0.05:
            del r[rng.randrange(len(r))]
    if rng.random() < 0.1:
        header[rng.randrange(len(header))] = rng.choice(["framework", "gpu_type", "bogus", ""])
    if rng.random() < 0.1:
        header.append("framework")
        for r in rows:
            r.append(rng.choice(["pytorch-fsdp", "megatron-core", "nope", ""]))
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(header)
    w.writerows(rows)
    text = buf.getvalue()
    if rng.random() < 0.05:
        text = text[:rng.randrange(len(text))]
    return text


def failure(rc, out, err, wants_json):
    """Why the outcome breaks prism's promise, or None."""
    for bad in ("Sanitizer", "runtime error", "CRITICAL", "WARNING **", "Assertion"):
        if bad in err:
            return "stderr has '%s'" % bad
    if rc == 2:
        n = sum(1 for line in err.splitlines() if line.startswith("prism: error:"))
        return None if n == 1 else "exit 2 with %d 'prism: error:' lines" % n
    if rc != 0:
        return "exit %d" % rc
    if wants_json:
        try:
            json.loads(out)
        except ValueError as e:
            return "--json output does not parse: %s" % e
    return None


SPACE_TIMING = re.compile(
    r" in [0-9.]+ s( \([0-9.]+% by the memory bound\))?(; \d+ \([0-9.]+%\) proved out by their "
    r"bounds)? on \d+ ranks? x \d+ threads?")
# the counts a bounded plan leaves to the ranks and threads (plan.schema.json: evaluated,
# feasible and proved_out); with --exhaustive they are the space's and compared
SPACE_COUNTS = re.compile(r"evaluated \d+(?=.* proved out by their bounds)|"
                          r"feasible of the evaluated \d+ \([0-9.]+%\)")
RUN_KEYS = ("evaluated", "feasible", "proved_out")
REFINE_TIMING = re.compile(r"(, refined in|\),) [0-9.]+ s$")
MPI_KINDS = ("plan", "sweep", "grid", "validate")  # the commands that run on every rank


def without_seconds(v):
    """@p v (parsed --json) without "ranks" and the refine entries' "seconds"."""
    if isinstance(v, dict):
        return {k: without_seconds(x) for k, x in v.items() if k not in ("ranks", "seconds")}
    if isinstance(v, list):
        return [without_seconds(x) for x in v]
    return v


def normal_stdout(out, wants_json):
    """@p out without what may differ with the rank count: plan's "evaluated N in S s (P% by
    the memory bound; Q proved out by their bounds) on R ranks x T threads" (the shares the
    static-memory bound and the floors decided depend on ranks and threads, search/README.md,
    and so do the evaluated and feasible counts of a bounded plan), the refine lines'
    seconds, and in --json "ranks" and "seconds" (and a bounded plan's counts)."""
    if wants_json:
        try:
            v = without_seconds(json.loads(out))
            if isinstance(v, dict) and v.get("proved_out"):
                v = {k: x for k, x in v.items() if k not in RUN_KEYS}
            return json.dumps(v, sort_keys=True)
        except ValueError:
            return out
    return "\n".join(REFINE_TIMING.sub(r"\1 (time)",
                                       SPACE_TIMING.sub(" (timing)", SPACE_COUNTS.sub("(count)", line)))
                     for line in out.splitlines())


def error_lines(err):
    return [line for line in err.splitlines() if line.startswith("prism: error:")]


def rank_failure(args, p1, pr, r, work):
    """Why the run at @p r ranks (@p pr) differs from the one at one rank (@p p1), or None."""
    why = failure(pr.returncode, pr.stdout, pr.stderr, "--json" in args)
    if why is not None:
        return "%d ranks: %s" % (r, why)
    if pr.returncode != p1.returncode:
        return "exit %d at %d ranks, %d at one" % (pr.returncode, r, p1.returncode)
    if p1.returncode == 2:
        if error_lines(pr.stderr) != error_lines(p1.stderr):
            return "another message at %d ranks: %s" % (r, error_lines(pr.stderr))
        return None
    if args[0] != "sweep":  # a sweep's summary has its timings; its file is compared
        if normal_stdout(pr.stdout, "--json" in args) != normal_stdout(p1.stdout, "--json" in args):
            return "standard output differs at %d ranks" % r
        return None
    for a in args:
        if a.endswith(".h5"):
            h = subprocess.run(["h5diff", "--exclude-attribute", "/", a, ranked(a, r, work)],
                               capture_output=True, text=True)
            if h.returncode != 0:
                return "datasets differ at %d ranks (h5diff exit %d: %s)" % (
                    r, h.returncode, h.stdout.strip().splitlines()[-1:] or h.stderr.strip())
    return None


def ranked(a, r, work):
    """The output file of the run at @p r ranks for the argument @p a (others unchanged)."""
    if a.startswith(work + os.sep) and a.endswith(".h5"):
        return a[:-3] + "-np%d.h5" % r
    return a


def main():
    prism, cases, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    opts = dict(zip(sys.argv[4::2], sys.argv[5::2]))
    csv_share = float(opts.get("--csv-share", "0.2"))
    timeout = float(opts.get("--timeout", "60"))
    keep = opts.get("--keep")
    ranks = [int(x) for x in opts["--ranks"].split(",")] if "--ranks" in opts else []
    mpiexec = os.environ.get("MPIEXEC") or "mpiexec"
    rank_rng = random.Random(seed + 7919)  # the rank counts do not shift the cases
    compared = 0
    src = os.environ.get("PRISM_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
    sources = []
    for name in ("measured.csv", "measured_modern.csv"):
        with open(os.path.join(src, "cost", "validation", name), newline="") as f:
            r = list(csv.reader(f))
        sources.append((r[0], r[1:]))
    lists = (listing(prism, "models"),
             [c["name"] for c in listing(prism, "clusters")],
             listing(prism, "knobs"),
             [fw["name"] for fw in listing(prism, "frameworks")])
    rng = random.Random(seed)
    work = tempfile.mkdtemp(prefix="cli-random-")
    outcomes, failures = {}, 0
    for i in range(cases):
        if rng.random() < csv_share:
            path = os.path.join(work, "rows.csv")
            with open(path, "w") as f:
                f.write(validation_csv(rng, sources))
            args = ["validate", path] + rng.choice([[], ["--json"], ["--framework", "pytorch-fsdp"],
                                                    ["--set", "nic_spread=1"]])
        elif ranks and rank_rng.random() < 0.5:
            args = tame_command(rng, lists, work, src)
        else:
            args = command(rng, lists, work, src)
        kind = "grid" if "--grid" in args else args[0]
        try:
            p = subprocess.run([prism] + args, capture_output=True, text=True, timeout=timeout,
                               stdin=subprocess.DEVNULL)
            why = failure(p.returncode, p.stdout, p.stderr, "--json" in args)
            key = (kind, p.returncode)
        except subprocess.TimeoutExpired:
            why, key, p = "no answer in %g s" % timeout, (kind, "timeout"), None
        if why is None and ranks and p is not None and kind in MPI_KINDS and p.returncode in (0, 2):
            r = rank_rng.choice(ranks)
            args_r = [ranked(a, r, work) for a in args]
            try:
                pr = subprocess.run([mpiexec, "-n", str(r), prism] + args_r, capture_output=True,
                                    text=True, timeout=timeout, stdin=subprocess.DEVNULL)
                why = rank_failure(args, p, pr, r, work)
            except subprocess.TimeoutExpired:
                why = "no answer in %g s at %d ranks" % (timeout, r)
            compared += 1
        outcomes[key] = outcomes.get(key, 0) + 1
        if why is not None:
            failures += 1
            print("FAIL case %d: %s: prism %s" % (i, why, " ".join(repr(a) if " " in a or not a
                                                              else a for a in args)))
            if p is not None:
                for line in p.stderr.strip().splitlines()[-4:]:
                    print("  stderr: " + line)
            # the generated files die with the work folder: --keep saves them
            for a in args:
                if keep and a.startswith(work + os.sep) and os.path.isfile(a):
                    os.makedirs(keep, exist_ok=True)
                    shutil.copy(a, os.path.join(keep, "case%d-%s" % (i, os.path.basename(a))))
    shutil.rmtree(work, ignore_errors=True)
    summary = ", ".join("%s exit %s: %d" % (c, r, n) for (c, r), n in sorted(
        outcomes.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))))
    print("cli_random: %d cases (seed %d), %d failed; %s" % (cases, seed, failures, summary))
    if ranks:
        print("cli_random: %d cases compared with a run at %s ranks" % (
            compared, " or ".join(str(r) for r in ranks)))
    # a run whose cases all ended in exit 2 tested only the error paths
    ok_runs = sum(n for (c, r), n in outcomes.items() if r == 0)
    if ok_runs == 0:
        print("cli_random: no case succeeded: the generator no longer reaches the cost model")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
