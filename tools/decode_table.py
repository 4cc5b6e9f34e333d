#!/usr/bin/env python3
"""Joins `vt bench decode --json` outputs and the HF generate anchor into the Markdown table of
docs/BENCHMARKS.md (issue #10): per model and concurrency, vt's tok/s, its fraction of the
weights-only roofline, TTFT/TPOT medians, HF generate's tok/s and vt's ratio to it, and the goal.

Usage: python3 tools/decode_table.py ANCHOR.json NAME=BENCH.json [NAME=BENCH.json ...]
NAME is the row label, e.g. "qwen3-1.7b bf16"; goals are looked up by it.
"""
import json
import sys

# Issue #10's goals (tok/s) at c=1 and c=8.
GOALS = {
    "qwen3-1.7b bf16": {1: 900, 8: 6000},
    "llama3-8b bf16": {1: 230, 8: 1700},
    "llama3-8b W4A16": {1: 550, 8: 3500},
}
# The HF anchor's model for each row (bf16 generate; there is no int4 anchor).
ANCHOR_MODEL = {"qwen3-1.7b bf16": "qwen3-1.7b", "llama3-8b bf16": "llama3-8b", "llama3-8b W4A16": "llama3-8b"}


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    hf = {}
    try:
        anchor = json.load(open(argv[1]))
        hf = {(r["model"], r["batch"]): r["tok_s"] for r in anchor.get("results", [])}
    except (OSError, ValueError) as e:
        print(f"decode_table: no HF anchor ({e}); its columns stay empty", file=sys.stderr)
    print("| model | c | vt tok/s | of roofline | TTFT ms (median) | TPOT ms (median) | HF generate tok/s | vt / HF | goal |")
    print("|---|---|---|---|---|---|---|---|---|")
    for spec in argv[2:]:
        name, path = spec.split("=", 1)
        try:
            bench = json.load(open(path))
        except (OSError, ValueError) as e:
            print(f"| {name} | - | failed: {e} | | | | | | |")
            continue
        for r in bench["results"]:
            c = r["concurrency"]
            base = hf.get((ANCHOR_MODEL.get(name), c))
            goal = GOALS.get(name, {}).get(c)
            verdict = "" if goal is None else (f"≥ {goal:,}: " + ("met" if r["output_tokens_per_s"] >= goal else "not met"))
            tok_s = r["output_tokens_per_s"]
            tpot, ttft = r["tpot_ms"]["median"], r["ttft_ms"]["median"]
            tpot_text = "-" if tpot is None else f"{tpot:.2f}"
            ttft_text = "-" if ttft is None else f"{ttft:.1f}"
            hf_text = "-" if base is None else f"{base:,.1f}"
            ratio_text = "-" if base is None else f"{tok_s / base:.1f}x"
            print(f"| {name} | {c} | {tok_s:,.0f} | {100 * r['roofline_fraction']:.0f}% | {ttft_text} "
                  f"| {tpot_text} | {hf_text} | {ratio_text} | {verdict} |")


if __name__ == "__main__":
    main(sys.argv)
