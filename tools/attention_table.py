#!/usr/bin/env python3
"""Joins `vt bench attention --json` with tools/sdpa_decode_anchor.py output (same job)
into the Markdown table of docs/BENCHMARKS.md.
Usage: python3 tools/attention_table.py vt.json sdpa.json"""
import json
import sys


def main():
    vt = json.load(open(sys.argv[1]))
    sdpa = {(r["shape"], r["batch"], r["context"]): r for r in json.load(open(sys.argv[2]))["rows"]}
    arms = []
    for r in vt["rows"]:
        if r["arm"] not in arms:
            arms.append(r["arm"])
    by_point = {}
    for r in vt["rows"]:
        by_point.setdefault((r["shape"], r["batch"], r["context"]), {})[r["arm"]] = r
    print(f"Copy ceiling measured in the same run: {vt['copy_GBps']:.0f} GB/s ({vt['device']}).\n")
    head = "| shape | B | ctx | KV MB | " + " | ".join(f"{a} µs" for a in arms)
    head += " | best arm GB/s | % copy | SDPA graph µs | SDPA GB/s | SDPA eager µs | best / block |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for key, cells in by_point.items():
        timed = {a: c for a, c in cells.items() if "us" in c}
        best_arm = min(timed, key=lambda a: timed[a]["us"])
        best = timed[best_arm]
        s = sdpa.get(key, {})
        line = f"| {key[0]} | {key[1]} | {key[2]} | {best['kv_MB']:.0f} | "
        line += " | ".join(f"{cells[a]['us']:.1f}" if "us" in cells.get(a, {}) else "n/a" for a in arms)
        line += f" | {best['GBps']:.0f} ({best_arm}) | {best['copy_pct']:.0f}% | "
        if s.get("graph_us"):
            line += f"{s['graph_us']:.1f} | {s['graph_GBps']:.0f} | {s['eager_us']:.1f} | "
        else:
            line += "n/a | n/a | n/a | "
        block = timed.get("block")
        line += f"{block['us'] / best['us']:.2f}× |" if block else "n/a |"
        print(line)


if __name__ == "__main__":
    main()
