#!/usr/bin/python3
"""check_collective.py - every public prototype that takes a PrismComm * must state in its
doc block whether it is collective ("Collective: yes" / "Not collective"), as PETSc states
"Collective"/"Not Collective" on every man page (STYLE.md sections 3 and 7). Callers of a
collective must call it on every rank in the same order, so the header has to say.

Usage: check_collective.py [--self-test] HEADER...
Exit 0 when every such prototype is documented, 1 otherwise (each offender listed as
file:line: function). --self-test first plants an undocumented and a documented collective
prototype in a temporary header and requires exactly the first to be reported."""
import os
import re
import sys
import tempfile

DECL = re.compile(r"^[A-Za-z_][\w \*]*?\b(prism_\w+)\s*\(", re.M)


def offenders(path):
    text = open(path, encoding="utf-8").read()
    bad = []
    for m in DECL.finditer(text):
        end = text.find(";", m.end())
        brace = text.find("{", m.end())
        if end < 0 or (0 <= brace < end):
            continue  # a definition (static inline), not a prototype
        if "PrismComm" not in text[m.end():end]:
            continue
        head = text[:m.start()].rstrip()
        doc = head[head.rfind("/*"):] if head.endswith("*/") else ""
        if "ollective" not in doc:  # "Collective: yes" or "Not collective"
            line = text.count("\n", 0, m.start()) + 1
            bad.append(f"{path}:{line}: {m.group(1)} takes a PrismComm but its doc block "
                       "does not say whether it is collective")
    return bad


def self_test():
    with tempfile.TemporaryDirectory() as d:
        h = os.path.join(d, "planted.h")
        with open(h, "w", encoding="utf-8") as f:
            f.write("/** Sums. */\nint prism_planted_sum(PrismComm *comm, int x);\n"
                    "/** Sums. Collective: yes. */\nint prism_planted_ok(PrismComm *comm);\n"
                    "/** Local. */\nint prism_planted_local(int x);\n")
        bad = offenders(h)
        return len(bad) == 1 and "prism_planted_sum" in bad[0]


def main(args):
    if args and args[0] == "--self-test":
        args = args[1:]
        if not self_test():
            print("check_collective: SELF-TEST FAIL: a planted undocumented prototype was not "
                  "reported alone")
            return 1
    bad = [b for p in args for b in offenders(p)]
    for b in bad:
        print(b)
    print(f"check_collective: {len(args)} headers, {len(bad)} undocumented collective "
          "prototypes")
    return 1 if bad or not args else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
