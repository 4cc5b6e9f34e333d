#!/usr/bin/env python3
"""Summarises the per-context numerics table that vt_gpu_attention_tests prints: per shape, arm
and split, the worst max_abs and max_rel over all contexts and the lowest bitwise-equal
percentage against the unsplit block arm.
Usage: python3 tools/attention_numerics_summary.py attention_tests.log"""
import re
import sys

ROW = re.compile(r"^(d\d+_q\d+kv\d+_bs\d+)\s+(\w+)\s+(-?\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)$")


def main():
    worst = {}
    contexts = {}
    for line in open(sys.argv[1]):
        m = ROW.match(line.strip())
        if not m:
            continue
        shape, arm, split, ctx, max_abs, max_rel, bitwise = m.groups()
        key = (shape, arm, {"0": "off", "-1": "auto"}.get(split, split))
        a, r, b = worst.get(key, (0.0, 0.0, 100.0))
        worst[key] = (max(a, float(max_abs)), max(r, float(max_rel)), min(b, float(bitwise)))
        contexts.setdefault(key, set()).add(int(ctx))
    print("| shape | arm | split | contexts | worst max_abs | worst max_rel | min bitwise % vs block |")
    print("|---|---|---|---|---|---|---|")
    for key in sorted(worst):
        a, r, b = worst[key]
        print(f"| {key[0]} | {key[1]} | {key[2]} | {len(contexts[key])} | {a:.3e} | {r:.3e} | {b:.4f} |")


if __name__ == "__main__":
    main()
