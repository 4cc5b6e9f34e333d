#!/usr/bin/env python3
"""The persist arm's SASS (as `gpu.sh sass` dumps it, or the compact sass-persist-128.txt): its item
loop (the longest backward branch around the MMAs), the loop's instructions by opcode, and every call
with the length of the subroutine it enters (up to its RET).

Usage: sass_loop_ops.py SASS_FILE
"""
import collections
import re
import sys


def instructions(path):
    """(address, text) of the file's first function, predicates kept."""
    out, functions = [], 0
    for line in open(path):
        if "Function :" in line:
            functions += 1
            if functions > 1:
                break
            continue
        m = re.match(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
        if m:
            out.append((int(m.group(1), 16), m.group(2)))
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    ins = instructions(sys.argv[1])
    at = {a: i for i, (a, _) in enumerate(ins)}
    mmas = [i for i, (_, t) in enumerate(ins) if "HMMA" in t]
    loops = []
    for i, (a, t) in enumerate(ins):
        m = re.search(r"\bBRA\b\S*\s+.*?0x([0-9a-f]+)", t)
        if m and int(m.group(1), 16) < a and int(m.group(1), 16) in at:
            head = at[int(m.group(1), 16)]
            if head <= mmas[0] and mmas[-1] <= i:
                loops.append((head, i))
    head, tail = max(loops, key=lambda ht: ht[1] - ht[0])
    ops = collections.Counter(re.sub(r"^@!?U?P\w+\s+", "", t).split()[0] for _, t in ins[head:tail + 1])
    print(f"{len(ins)} instructions; item loop {ins[head][0]:#x}-{ins[tail][0]:#x}: {tail - head + 1} instructions, "
          f"{len(mmas)} HMMA")
    print(" ".join(f"{op} {n}" for op, n in ops.most_common(24)))
    for i, (a, t) in enumerate(ins):
        m = re.search(r"CALL\S*\s+0x([0-9a-f]+)", t)
        if m:
            where = "in the item loop" if head <= i <= tail else "outside it"
            if int(m.group(1), 16) <= a + 0x20:  # a call into the code just after it (a divergent region)
                print(f"{a:#x} {t} -> the code after it, {where}")
                continue
            start = at[int(m.group(1), 16)]
            end = next(j for j in range(start, len(ins)) if "RET" in ins[j][1])
            print(f"{a:#x} {t} -> {end - start + 1}-instruction subroutine, {where}")


if __name__ == "__main__":
    main()
