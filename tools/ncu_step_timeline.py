#!/usr/bin/env python3
"""Per-layer kernel timeline of a decode step from ncu's raw CSV.

ncu times each kernel on its own (serialised, clocks locked to base), so the sum is not the step's
wall time: the gap between the two is what launches, drains and dependent-launch overlap make of the
kernel boundaries. The decode graphs are profiled node by node:

  ncu --graph-profiling node --metrics gpu__time_duration.sum,dram__bytes_read.sum --csv --page raw \\
    -k 'regex:Skinny|RmsNorm|Qkv|Persist|Merge|Silu|Argmax|Embedding|Gqa' \\
    vt bench decode --backend cuda --load-format dummy --model preset:qwen3-1.7b --input-len 32 \\
    --output-len 3 --concurrency 1 > steps.csv
  python3 tools/ncu_step_timeline.py steps.csv [--layer-kernels 9] [--copy-gb-s 4018]

Steps start at the embedding kernel; the last step with decode attention in it is reported: its time
per kernel kind, and the kernels of one decoder layer in order (duration, DRAM bytes, GB/s).
"""
import argparse
import collections
import csv
import sys

KINDS = ("SkinnyGemm", "AddRmsNormVec", "AddRmsNorm", "SiluMul", "PrepareQkv", "DecodePersistent",
         "MergeChunks", "Gqa", "Argmax", "Embedding", "DecodeMlp")


def kind_of(name):
    return next((k for k in KINDS if k in name), name.split("(")[0][-40:])


COLUMNS = ("Kernel Name", "gpu__time_duration.sum", "dram__bytes_read.sum")


def read_kernels(path):
    """(kind, ns, DRAM bytes) per profiled kernel; exits naming the problem on anything else."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        sys.exit(f"{path}: cannot read it as CSV: {e}")
    header_at = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
    if header_at is None or header_at + 1 >= len(rows):
        sys.exit(f"{path}: no 'Kernel Name' header and units row: not `ncu --csv --page raw` output")
    header, units = rows[header_at], rows[header_at + 1]
    missing = [k for k in COLUMNS if k not in header]
    if missing:
        sys.exit(f"{path}: no column {', '.join(missing)}: profile with --metrics {','.join(COLUMNS[1:])}")
    name, time, dram = (header.index(k) for k in COLUMNS)
    if len(units) <= max(time, dram) or units[time] != "ns" or units[dram] != "byte":
        sys.exit(f"{path}: expected the units ns and byte in the row under the header")
    kernels = []
    for line, r in enumerate(rows[header_at + 2:], start=header_at + 3):
        if len(r) <= max(name, time, dram):
            continue  # ncu's trailing notes
        try:
            ns, dram_bytes = float(r[time].replace(",", "")), float(r[dram].replace(",", ""))
        except ValueError:
            sys.exit(f"{path}:{line}: a duration or byte count that is not a number")
        if not (ns > 0 and dram_bytes >= 0):  # NaN fails both
            sys.exit(f"{path}:{line}: a duration that is not positive or a byte count below zero")
        kernels.append((kind_of(r[name]), ns, dram_bytes))
    return kernels


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv")
    parser.add_argument("--layer-kernels", type=int, default=9, help="kernels of one decoder layer")
    parser.add_argument("--copy-gb-s", type=float, default=0.0, help="copy bandwidth to compare GB/s with")
    args = parser.parse_args()
    kernels = read_kernels(args.csv)
    starts = [i for i, k in enumerate(kernels) if k[0] == "Embedding"] + [len(kernels)]
    steps = [kernels[a:b] for a, b in zip(starts, starts[1:])]
    decode = [s for s in steps if any(k[0] in ("DecodePersistent", "Gqa") for k in s)]
    if not decode:
        sys.exit("no decode step (no decode attention kernel) in the profile")
    step = decode[-1]
    total = sum(k[1] for k in step)
    print(f"{len(steps)} steps profiled; the last decode step: {len(step)} kernels, {total / 1e3:.1f} us summed")
    by_kind = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for kind, ns, dram in step:
        entry = by_kind[kind]
        entry[0] += 1
        entry[1] += ns
        entry[2] += dram
    print("| kernel | count | us | share | MB read | GB/s |")
    print("|---|---|---|---|---|---|")
    for kind, (count, ns, dram) in sorted(by_kind.items(), key=lambda kv: -kv[1][1]):
        print(f"| {kind} | {count} | {ns / 1e3:.1f} | {ns / total:.1%} | {dram / 1e6:.1f} | {dram / ns:.0f} |")
    # One layer from the middle of the step (the first kernel after the embedding starts layer 0).
    first = 1 + (len(step) - 2) // args.layer_kernels // 2 * args.layer_kernels
    layer = step[first:first + args.layer_kernels]
    print(f"\none layer (kernels {first}..{first + len(layer) - 1} of the step):")
    print("| kernel | us | MB read | GB/s" + (" | of copy |" if args.copy_gb_s else " |"))
    print("|---|---|---|---" + ("|---|" if args.copy_gb_s else "|"))
    for kind, ns, dram in layer:
        line = f"| {kind} | {ns / 1e3:.2f} | {dram / 1e6:.2f} | {dram / ns:.0f}"
        print(line + (f" | {dram / ns / args.copy_gb_s:.0%} |" if args.copy_gb_s else " |"))
    print(f"layer sum {sum(k[1] for k in layer) / 1e3:.1f} us")


if __name__ == "__main__":
    main()
