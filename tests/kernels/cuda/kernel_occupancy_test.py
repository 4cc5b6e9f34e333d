#!/usr/bin/env python3
"""The hot kernels' CTAs an SM and spills, from ptxas's report, without a GPU.

A source change can move ptxas's register allocation without touching a kernel's main loop. The
skinny GEMM streams weights with eight 16-byte loads per lane in flight and is built for 24 warps an
SM (three 8-warp CTAs or four 6-warp ones at 80 registers a thread); the L2 prefetch's first build
(since removed) let ptxas give it 64, four 8-warp CTAs with fewer loads in flight, and llama3-8b
decoded at 180 tok/s on an H200 where the table had 230. Kernels whose `__launch_bounds__` cap their
registers show such a change as spills instead. This compiles one source for sm_90 with the build's own
flags (compile_commands.json; sm_90a where the build uses it) and holds each of its guarded kernels to the CTAs an SM it was measured
with (by registers) and to no more spilled bytes than it had then, so the change fails in CI, not on
the GPU.

Usage: kernel_occupancy_test.py COMPILE_COMMANDS SOURCE   (SOURCE one of GUARDS' keys)
"""
import json
import re
import shlex
import subprocess
import sys
import tempfile

REGISTERS_PER_SM = 65536
MAX_WARPS_PER_SM = 64
# source -> kernel (mangled-name fragment) -> (warps a CTA, CTAs an SM by registers, spill bytes at most),
# each as measured in the tables of docs/BENCHMARKS.md.
GUARDS = {
    "kernels/cuda/ops/skinny_gemm.cu": {  # Lb0E: weights after the wait; Lb1E: before it (72 registers)
        "SkinnyGemmKernelILi8ELb0E": (8, 3, 0),
        "SkinnyGemmKernelILi6ELb0E": (6, 4, 0),
        "SkinnyGemmKernelILi8ELb1E": (8, 3, 0),
        "SkinnyGemmKernelILi6ELb1E": (6, 4, 0),
    },
    "kernels/cuda/ops/decode_mlp.cu": {  # the fused decode MLP: the skinny tiles in one resident wave
        "DecodeMlpKernel": (8, 3, 0),
    },
    "kernels/cuda/attention/decode_persistent.cu": {  # the default decode arm; 4 warps (kItemStreams)
        "DecodePersistentKernelILi128E": (4, 3, 0),  # no spill since f9359de (its 4 bytes before)
        "DecodePersistentKernelILi256E": (4, 2, 0),
    },
    "kernels/cuda/w4a16/w4a16_gemm.cu": {  # W4A16 at M = 3-8 (spread)
        "W4A16GemmKernelILi1ELb1E": (8, 4, 0),
    },
    "kernels/cuda/w4a16/w4a16_stack.cu": {  # W4A16 at M = 1-2 (stacked)
        "W4A16StackKernel": (8, 4, 8),
    },
    "kernels/cuda/w4a16/w4a16_tile.cu": {  # W4A16 from M = 9, by m16 tiles a CTA
        "W4A16TileKernelILi1E": (4, 4, 0),
        "W4A16TileKernelILi2E": (4, 4, 4),
        "W4A16TileKernelILi4E": (4, 3, 0),
    },
    "kernels/cuda/ops/prefill_wgmma.cu": {  # the default prefill attention on sm_90: one warpgroup
        "PrefillWgmmaKernel": (4, 3, 0),
    },
}


def ctas_per_sm(registers: int, warps: int) -> int:
    """CTAs an SM holds by registers: allocated per warp in units of 256 (8 a thread)."""
    per_warp = -(-registers // 8) * 8 * 32
    return min(REGISTERS_PER_SM // per_warp, MAX_WARPS_PER_SM) // warps


def compile_command(compile_commands: str, source: str) -> tuple:
    for entry in json.load(open(compile_commands)):
        if entry["file"].endswith(source):
            args = entry.get("arguments") or shlex.split(entry["command"])
            return args, entry["directory"]
    sys.exit(f"kernel_occupancy: {source} is not in {compile_commands}")


def hopper_compile(compile_commands: str, source: str) -> tuple:
    """The build's command for the source without its outputs and targets, the Hopper architecture it
    builds (90a where the source needs warpgroup MMAs, else 90) and the directory to run it in."""
    args, directory = compile_command(compile_commands, source)
    kept, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT"):
            skip = True
            continue
        if a.startswith("-gencode") or a == "-MD" or a.startswith("--generate-code"):
            continue
        kept.append(a)
    arch = "90a" if any("compute_90a" in a for a in args) else "90"
    return kept, arch, directory


def ptxas_report(compile_commands: str, source: str) -> str:
    """ptxas's resource usage for the source, compiled for Hopper only with the build's other flags."""
    kept, arch, directory = hopper_compile(compile_commands, source)
    with tempfile.TemporaryDirectory() as work:
        cmd = kept + [f"-gencode=arch=compute_{arch},code=sm_{arch}", "--resource-usage", "-o", f"{work}/kernel.o"]
        run = subprocess.run(cmd, cwd=directory, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"kernel_occupancy: nvcc failed:\n{run.stderr}")
    return run.stderr


def kernel_resources(report: str) -> dict:
    """Each kernel of a ptxas report (mangled name) -> (registers, spilled bytes), in report order."""
    kernels, current, spill = {}, None, 0
    for line in report.splitlines():
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            current, spill = m.group(1), 0
            continue
        m = re.search(r"(\d+) bytes spill stores", line)
        if m:
            spill = int(m.group(1))
        m = re.search(r"Used (\d+) registers", line)
        if m and current:
            kernels[current] = (int(m.group(1)), spill)
            current = None
    return kernels


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[2] not in GUARDS:
        sys.exit(__doc__)
    source = sys.argv[2]
    guards = GUARDS[source]
    found = {}
    for kernel, resources in kernel_resources(ptxas_report(sys.argv[1], source)).items():
        for name in guards:
            if name in kernel:
                found[name] = resources
    failed = False
    for name, (warps, want_ctas, max_spill) in guards.items():
        if name not in found:
            print(f"{name}: not in ptxas's report")
            failed = True
            continue
        registers, spilled = found[name]
        got = ctas_per_sm(registers, warps)
        print(f"{name}: {registers} registers, {spilled} bytes spilled, {got} CTAs of {warps} warps an SM "
              f"(measured with {want_ctas}, at most {max_spill} bytes spilled)")
        failed |= got != want_ctas or spilled > max_spill
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
