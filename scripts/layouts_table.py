#!/usr/bin/python3
"""layouts_table.py - the "exact vs D-Rec greedy vs best uniform layout" table of
search/DC.md, from `prism layouts --json` on every built-in graph at tp 2, 4 and 8.

    scripts/layouts_table.py [PRISM_BINARY]      (default: build/prism)

Prints a Markdown table (time per micro-batch step, ms) and, on stderr, the repeated-block
pairs `prism layouts` folds with prism_dc_power for the full models. The numbers move with
the cost model's knobs and formulas: rerun it and paste the table when they change.
"""
import json
import subprocess
import sys

GRAPHS = ["transformer-mlp", "transformer-attention", "transformer-block",
          "transformer-moe-block", "bert-large", "gpt3-175b", "vgg16", "resnet50"]


def main():
    prism = sys.argv[1] if len(sys.argv) > 1 else "build/prism"
    print("| graph | tp | exact (ms) | D-Rec greedy (ms) | greedy / exact "
          "| best uniform (ms) | uniform / exact |")
    print("|---|---:|---:|---:|---:|---|---:|")
    for g in GRAPHS:
        for tp in (2, 4, 8):
            d = json.loads(subprocess.check_output(
                [prism, "layouts", "--graph", g, "--tp", str(tp), "--json"]))
            exact = d["optimal"]["total_s"] * 1e3
            greedy = next(b for b in d["baselines"] if b["name"] == "D-Rec greedy")
            uniform = [b for b in d["baselines"]
                       if b["name"] != "D-Rec greedy" and b["feasible"]]
            best = min(uniform, key=lambda b: b["total_s"])
            gms, ums = greedy["total_s"] * 1e3, best["total_s"] * 1e3
            print(f"| {g} | {tp} | {exact:.3f} | {gms:.3f} | {gms / exact:.3f} "
                  f"| {best['name']}: {ums:.3f} | {ums / exact:.3f} |")
        pairs = d["optimal"]["power_pairs"]
        if pairs:
            print(f"{g}: {pairs} (edge, operator) pairs folded by power", file=sys.stderr)


if __name__ == "__main__":
    main()
