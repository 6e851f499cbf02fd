#!/usr/bin/python3
"""check_includes.py - the include structure of the libraries: layers and circles.

Reads the `#include "..."` and `#include <prism/...>` lines of src/, cost/ (with
cost/kernels/), search/ (with search/dc/), io/ and include/prism/, and fails (exit 1) on

  1. an UPWARD include: a file includes a header of a higher layer. Layers, lowest first:
         core < cost < search < io+analysis < app
     A file in a module folder takes the folder's layer; a public header takes the layer
     that HEADER_LAYER below gives it (a header missing from the map is an error, so a new
     header must be placed). The search layer has two houses, the search proper
     (search/, space.h, front.h, search.h, sink.h) and the divide-and-conquer house
     (search/dc/, dc.h, smsg.h, refine.h): neither includes the other. The layer above
     it has two as well, io (io/, io.h: the landscapes on disk) and analysis
     (search/analysis/, validate.h, diagnose.h, grid.h: what the search is asked and what
     its answers mean): neither includes the other either.
  2. a header IMPLEMENTED outside its layer or house: a .c file implements a header when it
     defines (non-static) a function the header declares. A core header whose functions
     live in cost/ would hide an upward dependency behind a downward include.
  3. an INCLUDE CIRCLE between modules. A module is a header together with the .c files
     that implement it (joined transitively: two headers implemented by one .c file are
     one module, e.g. a public header and its *-internal.h). Module A depends on module B
     when a file of A includes a header of B. A circle is a strongly connected component
     (Tarjan) of more than one module.
  4. a CALL CIRCLE between .c files: file A depends on file B when A names a function
     that only B defines with external linkage (what `farm-studio look` draws). Circles of
     this graph are strongly connected components of more than one file.

--self-test also copies the tree to a temporary folder once per plant, plants an upward
include, cross-house includes (dc -> search, io -> analysis, analysis -> io), an include
circle and a call circle, and requires each
to be reported, naming the planted file (so the check is shown to fail when it must).
Exit status: 0 clean, 1 a violation (or a failed self-test), 2 bad usage.
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

LAYERS = ["core", "cost", "search", "io+analysis", "app"]

# Folder -> (layer, house). The first matching prefix wins: longer ones come first
# (search/dc/ and search/analysis/ before search/).
DIR_LAYER = [
    ("src/core/", "core", "core"),
    ("cost/", "cost", "cost"),
    ("search/dc/", "search", "dc"),
    ("search/analysis/", "io+analysis", "analysis"),
    ("search/", "search", "search"),
    ("io/", "io+analysis", "io"),
    ("src/app/", "app", "app"),
]

# Public header -> (layer, house). knobs.h sits in cost: the knob table that implements it
# is cost/cost_knobs.c, and no core file uses knobs.
HEADER_LAYER = {
    "core.h": ("core", "core"),
    "comm.h": ("core", "core"),
    "model.h": ("core", "core"),
    "cluster.h": ("core", "core"),
    "training.h": ("core", "core"),
    "strategy.h": ("core", "core"),
    "registry.h": ("core", "core"),
    "fwconfig.h": ("core", "core"),
    "opgraph.h": ("core", "core"),
    "version.h.in": ("core", "core"),
    "cost.h": ("cost", "cost"),
    "knobs.h": ("cost", "cost"),
    "ranges.h": ("cost", "cost"),
    "opcost.h": ("cost", "cost"),
    "explain.h": ("cost", "cost"),
    "framework.h": ("cost", "cost"),
    "space.h": ("search", "search"),
    "front.h": ("search", "search"),
    "search.h": ("search", "search"),
    "sink.h": ("search", "search"),
    "dc.h": ("search", "dc"),
    "smsg.h": ("search", "dc"),
    "refine.h": ("search", "dc"),
    "io.h": ("io+analysis", "io"),
    "validate.h": ("io+analysis", "analysis"),
    "diagnose.h": ("io+analysis", "analysis"),
    "grid.h": ("io+analysis", "analysis"),
}

# Call circles that another change removes; reported as notes, not failures. Take an entry
# out when that change lands (the check says so when the circle is gone).
KNOWN_CALL_CIRCLES = []

SCAN_DIRS = ["src", "cost", "search", "io", "include/prism"]
INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"]+)[>"]', re.M)
IDENT_RE = re.compile(r"\b[A-Za-z_]\w*\b")
# A function definition: at column 0, not static/extern/typedef, name, parameter list
# (possibly over several lines), then the opening brace.
DEF_RE = re.compile(
    r"^(?!static\b|extern\b|typedef\b|return\b|else\b)[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)"
    r"[ \t]*\(([^;{}()]|\([^;{}()]*\))*\)[ \t\n]*\{",
    re.M)
STATIC_DEF_RE = re.compile(
    r"^static\b[\w \t\*]*?\b([A-Za-z_]\w*)[ \t]*\(([^;{}()]|\([^;{}()]*\))*\)[ \t\n]*\{", re.M)
DECL_RE = re.compile(r"\b([A-Za-z_]\w*)[ \t]*\(")


def strip_comments_and_strings(text):
    """Blank out comments, string and character literals, keeping line breaks."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join("\n" if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * max(0, j - i - 2) + (c if j - i >= 2 else ""))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def place(rel):
    """(layer, house) of a file, or None when it is outside the scanned modules."""
    if rel.startswith("include/prism/"):
        return HEADER_LAYER.get(rel[len("include/prism/"):], "unmapped")
    for prefix, layer, house in DIR_LAYER:
        if rel.startswith(prefix):
            return (layer, house)
    return None


class Tree:
    def __init__(self, root):
        self.root = root
        self.files = []
        for d in SCAN_DIRS:
            for base, _, names in os.walk(os.path.join(root, d)):
                for name in names:
                    if name.endswith((".c", ".h")) or name == "version.h.in":
                        self.files.append(os.path.relpath(os.path.join(base, name), root))
        self.files.sort()
        self.raw = {}
        self.code = {}
        for f in self.files:
            with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
                self.raw[f] = fh.read()
            self.code[f] = strip_comments_and_strings(self.raw[f])
        self.problems = []
        self.notes = []
        self.includes = {f: [] for f in self.files}  # f -> [(line, target)]
        self._read_includes()

    def resolve(self, src, kind, name):
        if kind == "<":
            if not name.startswith("prism/"):
                return None  # system or library header
            rel = "include/" + name
            if rel == "include/prism/version.h":
                rel = "include/prism/version.h.in"  # generated by CMake from this
            if rel in self.raw:
                return rel
            self.problems.append(f"{src}: #include <{name}>: no such header in include/prism/")
            return None
        # next to the file, then in each folder above it (the libraries' private include
        # folders are their module folders, e.g. cost/ for cost/kernels/)
        d = os.path.dirname(src)
        while True:
            cand = os.path.normpath(os.path.join(d, name))
            if cand in self.raw:
                return cand
            if d == "":
                break
            d = os.path.dirname(d)
        self.problems.append(f'{src}: #include "{name}": not found next to the file or in '
                             f"a folder above it")
        return None

    def _read_includes(self):
        for f in self.files:
            # includes are read from the text without comments, strings kept for the name
            code = self.code[f]
            for m in INCLUDE_RE.finditer(self.raw[f]):
                line = self.raw[f].count("\n", 0, m.start()) + 1
                if not code.split("\n")[line - 1].lstrip().startswith("#"):
                    continue  # inside a comment
                t = self.resolve(f, m.group(1), m.group(2))
                if t is not None:
                    self.includes[f].append((line, t))

    # 1. upward and cross-house includes
    def check_layers(self):
        for f in self.files:
            pf = place(f)
            if pf == "unmapped":
                self.problems.append(f"{f}: public header without a layer: add it to "
                                     f"HEADER_LAYER in tests/structure/check_includes.py")
                continue
            for line, t in self.includes[f]:
                pt = place(t)
                if pt in (None, "unmapped"):
                    continue
                lf, lt = LAYERS.index(pf[0]), LAYERS.index(pt[0])
                if lt > lf:
                    self.problems.append(f"upward include: {f}:{line} ({pf[0]}) includes {t} "
                                         f"({pt[0]}); layers: {' < '.join(LAYERS)}")
                elif lt == lf and pf[1] != pt[1]:
                    self.problems.append(f"cross-house include: {f}:{line} ({pf[1]}) includes "
                                         f"{t} ({pt[1]}); the {pf[0]} layer's houses "
                                         f"include nothing from each other")

    def definitions(self):
        """.c file -> (external function names, static function names)."""
        ext, loc = {}, {}
        for f in self.files:
            if f.endswith(".c"):
                ext[f] = {m.group(1) for m in DEF_RE.finditer(self.code[f])}
                loc[f] = {m.group(1) for m in STATIC_DEF_RE.finditer(self.code[f])}
        return ext, loc

    # 2. + 3. implementation ties, modules and include circles
    def check_modules(self, ext):
        headers = [f for f in self.files if not f.endswith(".c")]
        declared = {h: set(DECL_RE.findall(self.code[h])) for h in headers}
        parent = {f: f for f in self.files}

        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for h in headers:
            for c, names in ext.items():
                if names & declared[h]:
                    ph, pc = place(h), place(c)
                    if ph not in (None, "unmapped") and pc is not None and ph != pc:
                        some = sorted(names & declared[h])[0]
                        self.problems.append(f"{h} ({ph[0]}/{ph[1]}) is implemented in {c} "
                                             f"({pc[0]}/{pc[1]}), e.g. {some}(): a header "
                                             f"lives in the layer and house of its code")
                    parent[find(h)] = find(c)
        module = {f: find(f) for f in self.files}
        members = {}
        for f in self.files:
            members.setdefault(module[f], []).append(f)
        edges = {m: {} for m in members}  # module -> {module: "file:line -> header"}
        for f in self.files:
            for line, t in self.includes[f]:
                a, b = module[f], module[t]
                if a != b:
                    edges[a].setdefault(b, f"{f}:{line} -> {t}")
        for scc in tarjan({m: list(e) for m, e in edges.items()}):
            if len(scc) < 2:
                continue
            names = "; ".join("{" + ", ".join(sorted(members[m])) + "}" for m in sorted(scc))
            ties = "; ".join(edges[a][b] for a in sorted(scc) for b in sorted(edges[a])
                             if b in scc)
            self.problems.append(f"include circle between {len(scc)} modules: {names}; "
                                 f"through {ties}")
        return members

    # 4. call circles between .c files
    def check_calls(self, ext, loc):
        owners = {}
        for f, names in ext.items():
            for n in names:
                owners.setdefault(n, []).append(f)
        uses = {}
        for f in ext:
            idents = set(IDENT_RE.findall(self.code[f]))
            uses[f] = {}
            for n in idents:
                o = owners.get(n, [])
                if len(o) == 1 and o[0] != f and n not in loc[f] and n not in ext[f]:
                    uses[f].setdefault(o[0], []).append(n)
        for scc in tarjan({f: list(u) for f, u in uses.items()}):
            if len(scc) < 2:
                continue
            s = set(scc)
            ties = "; ".join(f"{a} -> {b}: {', '.join(sorted(uses[a][b])[:4])}"
                             for a in sorted(s) for b in sorted(uses[a]) if b in s)
            if s in KNOWN_CALL_CIRCLES:
                self.notes.append(f"known call circle (owned by another change): {ties}")
            else:
                self.problems.append(f"call circle between {len(s)} files: {ties}")
        for k in KNOWN_CALL_CIRCLES:
            if not any(set(scc) == k for scc in tarjan({f: list(u) for f, u in uses.items()})):
                self.notes.append(f"the known call circle {sorted(k)} is gone: remove it from "
                                  f"KNOWN_CALL_CIRCLES")

    def run(self):
        self.check_layers()
        ext, loc = self.definitions()
        members = self.check_modules(ext)
        self.check_calls(ext, loc)
        n_inc = sum(len(v) for v in self.includes.values())
        return members, n_inc


def tarjan(graph):
    """Strongly connected components of {node: [successors]} (iterative Tarjan)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, []))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            pushed = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, [])))))
                    pushed = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if pushed:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
    return out


def check(root, verbose):
    t = Tree(root)
    members, n_inc = t.run()
    if verbose:
        print(f"check_includes: {len(t.files)} files, {n_inc} project includes, "
              f"{len(members)} modules")
        for n in t.notes:
            print(f"note: {n}")
    return t.problems


def append(root, rel, text):
    if not os.path.isfile(os.path.join(root, rel)):  # a plant must not make a file up
        raise SystemExit(f"check_includes self-test: {rel} is gone: plant into another file")
    with open(os.path.join(root, rel), "a", encoding="utf-8") as fh:
        fh.write(text)


def self_test(root):
    """Plant each kind of violation in a copy of the tree; each must be reported."""
    plants = [
        ("upward include", "upward include: cost/cost_ops.c",
         lambda d: append(d, "cost/cost_ops.c", "#include <prism/search.h>\n")),
        ("cross-house include", "cross-house include: search/dc/dc_summaries.c",
         lambda d: append(d, "search/dc/dc_summaries.c", "#include <prism/front.h>\n")),
        ("io -> analysis include", "cross-house include: io/io_where.c",
         lambda d: append(d, "io/io_where.c", "#include <prism/grid.h>\n")),
        ("analysis -> io include", "cross-house include: search/analysis/validate_order.c",
         lambda d: append(d, "search/analysis/validate_order.c", "#include <prism/io.h>\n")),
        # strategy.h includes model.h; model.c including strategy.h closes a circle inside
        # the core layer (no upward arrow, so only the circle check can see it).
        ("include circle", "include circle between 2 modules",
         lambda d: append(d, "src/core/model.c", "#include <prism/strategy.h>\n")),
        ("call circle", "call circle between 2 files",
         lambda d: (append(d, "src/core/core_util.c",
                           "\nvoid prism_planted_a(void);\nvoid prism_planted_b(void);\n"
                           "void prism_planted_a(void)\n{\n    prism_planted_b();\n}\n"),
                    append(d, "src/core/training.c",
                           "\nvoid prism_planted_a(void);\nvoid prism_planted_b(void);\n"
                           "void prism_planted_b(void)\n{\n    prism_planted_a();\n}\n"))),
    ]
    failures = 0
    for what, needle, plant in plants:
        with tempfile.TemporaryDirectory(prefix="prism-includes-") as tmp:
            for d in SCAN_DIRS:
                shutil.copytree(os.path.join(root, d), os.path.join(tmp, d))
            plant(tmp)
            problems = check(tmp, False)
            hit = [p for p in problems if needle in p]
            if not hit:
                failures += 1
                print(f"SELF-TEST FAIL: planted {what} not reported (wanted '{needle}'); "
                      f"got: {problems}")
            elif len(problems) != len(hit) and what != "upward include":
                # the planted include/call must be the only new problem
                failures += 1
                print(f"SELF-TEST FAIL: planted {what} also reported: "
                      f"{[p for p in problems if needle not in p]}")
            else:
                print(f"self-test: planted {what} reported: {hit[0][:160]}")
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", required=True, help="the source tree")
    ap.add_argument("--self-test", action="store_true",
                    help="also plant violations in temporary copies and expect failures")
    a = ap.parse_args()
    if not os.path.isdir(os.path.join(a.root, "include/prism")):
        print(f"check_includes: --root {a.root}: no include/prism/ there", file=sys.stderr)
        return 2
    problems = check(a.root, True)
    for p in problems:
        print(f"FAIL: {p}")
    failed = bool(problems)
    if a.self_test:
        failed |= self_test(a.root) > 0
    print("check_includes: " + ("FAILED" if failed else "ok"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
