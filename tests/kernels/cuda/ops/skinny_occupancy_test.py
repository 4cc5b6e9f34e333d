#!/usr/bin/env python3
"""The skinny GEMM's CTAs an SM, from ptxas's register counts, without a GPU.

The skinny GEMM streams weights with eight 16-byte loads per lane in flight, and its forms are built
for 24 warps an SM: three 8-warp CTAs or four 6-warp ones at 80 registers a thread. A source change
that lets ptxas take fewer registers (the L2 prefetch's first build, since removed: 64, so four 8-warp CTAs) keeps
fewer loads in flight and ran llama3-8b's decode at 180 tok/s on an H200 where the last table had
230. This compiles skinny_gemm.cu for sm_90 with the build's own flags (compile_commands.json) and
holds each kernel to the CTAs an SM it was built for, so that change fails in CI, not on the GPU.
"""
import json
import re
import shlex
import subprocess
import sys
import tempfile

REGISTERS_PER_SM = 65536
MAX_WARPS_PER_SM = 64
EXPECTED = {  # kernel (mangled-name fragment) -> (warps a CTA, CTAs an SM)
    "SkinnyGemmKernelILi8E": (8, 3),
    "SkinnyGemmKernelILi6E": (6, 4),
}


def ctas_per_sm(registers: int, warps: int) -> int:
    """CTAs an SM holds by registers: allocated per warp in units of 256 (8 a thread)."""
    per_warp = -(-registers // 8) * 8 * 32
    return min(REGISTERS_PER_SM // per_warp, MAX_WARPS_PER_SM) // warps


def compile_command(compile_commands: str, source: str) -> list:
    for entry in json.load(open(compile_commands)):
        if entry["file"].endswith(source):
            args = entry.get("arguments") or shlex.split(entry["command"])
            return args, entry["directory"]
    sys.exit(f"skinny_occupancy: {source} is not in {compile_commands}")


def main() -> int:
    compile_commands, source = sys.argv[1], sys.argv[2]
    args, directory = compile_command(compile_commands, source)
    with tempfile.TemporaryDirectory() as work:
        kept, skip = [], False
        for i, a in enumerate(args):  # the build's flags, one architecture, our own output
            if skip:
                skip = False
                continue
            if a in ("-o", "-MF", "-MT"):
                skip = True
                continue
            if a.startswith("-gencode") or a == "-MD" or a.startswith("--generate-code"):
                continue
            kept.append(a)
        cmd = kept + ["-gencode=arch=compute_90,code=sm_90", "--resource-usage", "-o", f"{work}/skinny.o"]
        run = subprocess.run(cmd, cwd=directory, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"skinny_occupancy: nvcc failed:\n{run.stderr}")
    found, current = {}, None
    for line in run.stderr.splitlines():
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            current = m.group(1)
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m and current:
            for name in EXPECTED:
                if name in current:
                    found[name] = int(m.group(1))
            current = None
    failed = False
    for name, (warps, want) in EXPECTED.items():
        if name not in found:
            print(f"{name}: not in ptxas's report")
            failed = True
            continue
        got = ctas_per_sm(found[name], warps)
        print(f"{name}: {found[name]} registers, {got} CTAs of {warps} warps an SM (built for {want})")
        failed |= got != want
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
