#!/usr/bin/env python3
"""One line per side of issue #16's served mix, from `vt bench serve --json` files.

Usage: serve_mix_summary.py DIR PREFIX LABEL
Reads DIR/PREFIX-short-alone.json (short requests alone: the decode-only TPOT), PREFIX-short.json and
PREFIX-long.json (the two sides of the mix) and prints each side's TPOT p99 against the short-only TPOT.
"""
import json
import sys


def main() -> int:
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    folder, prefix, label = sys.argv[1:]
    try:
        alone = json.load(open(f"{folder}/{prefix}-short-alone.json"))["tpot_ms"]["median"]
        for side in ("short", "long"):
            d = json.load(open(f"{folder}/{prefix}-{side}.json"))
            t, ttft = d["tpot_ms"], d["ttft_ms"]
            print(f"{label} mix {side}: ok {d['requests_ok']}/{d['num_prompts']}, TPOT median {t['median']:.2f} "
                  f"p99 {t['p99']:.2f} ({t['p99'] / alone:.2f}x short-only {alone:.2f}), TTFT median "
                  f"{ttft['median']:.0f} p99 {ttft['p99']:.0f}, {d['output_tok_s']:.0f} tok/s")
    except (OSError, KeyError, TypeError, ValueError, ZeroDivisionError) as e:
        print(f"{label}: no result: {e}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
