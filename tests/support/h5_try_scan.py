#!/usr/bin/env python3
"""h5_try_scan.py IO_DIR - every HDF5 library call in io/*.c goes through PRISM_H5_TRY
(io-internal.h), the wrapper that walks HDF5's error stack into the GError. Fails with
the file, line and call of each HDF5 call that is not inside a PRISM_H5_TRY(...)
argument. Exempt: the error machinery itself (H5E*, in prism_h5_set_error_internal and
prism_h5_try_internal) and H5Iget_type (an id's kind, which cannot fail on a valid id).
Comments and string literals are ignored; calls may span lines (clang-format)."""
import re
import sys
from pathlib import Path

EXEMPT = re.compile(r"^H5(E[a-z_]|Iget_type$)")


def strip(text):
    # Blank out comments and string/char literals, keeping newlines for line numbers.
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text[i] in "\"'":
            q, j = text[i], i + 1
            while j < n and text[j] != q:
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (j + 1 - i))
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def main():
    bad = 0
    calls = 0
    for path in sorted(Path(sys.argv[1]).glob("*.c")):
        text = strip(path.read_text())
        stack = []  # names of the calls whose argument lists enclose the position
        for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\(|[()]", text):
            if m.group(1):
                name = m.group(1)
                if re.match(r"^H5[A-Za-z]", name) and not EXEMPT.match(name):
                    calls += 1
                    if "PRISM_H5_TRY" not in stack and not name.startswith("H5_"):
                        line = text.count("\n", 0, m.start()) + 1
                        print(f"{path}:{line}: {name}() is not inside PRISM_H5_TRY")
                        bad += 1
                stack.append(name)
            elif m.group(0) == "(":
                stack.append("(")
            elif stack:
                stack.pop()
    print(f"{calls} HDF5 calls, {bad} outside PRISM_H5_TRY")
    return 1 if bad or calls == 0 else 0


sys.exit(main())
