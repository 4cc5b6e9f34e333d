#!/usr/bin/env python3
"""The persist arm's main loop, instruction by instruction, from PTX (no GPU, no disassembler).

Compiles kernels/cuda/attention/decode_persistent.cu to PTX for Hopper with the build's own flags
(compile_commands.json, through kernel_occupancy_test.hopper_compile), takes the head_dim-128 kernel, finds its longest loop that holds the MMAs
(the item loop) and counts the instructions from its head to its last MMA by opcode: an upper bound
on one iteration's straight-line path (it includes the branches an item's first iteration and a new
request take).

Usage: ptx_loop_ops.py build/compile_commands.json
"""
import collections
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../tests/kernels/cuda"))
from kernel_occupancy_test import hopper_compile  # noqa: E402  the build's nvcc command for one source

SOURCE = "kernels/cuda/attention/decode_persistent.cu"
KERNEL = "DecodePersistentKernelILi128E"


def ptx_of(compile_commands):
    args, arch, directory = hopper_compile(compile_commands, SOURCE)
    with tempfile.NamedTemporaryFile(suffix=".ptx") as out:
        done = subprocess.run(args + [f"-arch=sm_{arch}", "-ptx", "-o", out.name], cwd=directory,
                              capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"nvcc failed: {done.stderr[-2000:]}")
        return open(out.name).read().splitlines()


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    lines = ptx_of(sys.argv[1])
    start = next(i for i, l in enumerate(lines) if ".entry" in l and KERNEL in l)
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("}"))
    body = lines[start:end]
    labels = {m.group(1): i for i, l in enumerate(body) if (m := re.match(r"^(\$L__BB\d+_\d+):", l))}
    mmas = [i for i, l in enumerate(body) if "mma.sync" in l]
    loops = [(labels[m.group(2)], i) for i, l in enumerate(body)
             if (m := re.search(r"bra(\.uni)?\s+(\$L__BB\d+_\d+)", l)) and labels[m.group(2)] < i]
    head, tail = max(((h, t) for h, t in loops if h < mmas[0] and mmas[-1] < t), key=lambda ht: ht[1] - ht[0])
    ops = collections.Counter()
    for l in body[head:mmas[-1] + 1]:
        m = re.match(r"\s+(@!?%\w+\s+)?([a-z]\w*)", l)
        if m:
            ops[m.group(2)] += 1
    print(f"{KERNEL}: item loop PTX lines {head}-{tail}; head to last MMA: {sum(ops.values())} instructions")
    print(" ".join(f"{op} {n}" for op, n in ops.most_common()))


if __name__ == "__main__":
    main()
