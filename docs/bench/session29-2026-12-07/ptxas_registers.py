"""The registers ptxas gives each kernel of one CUDA source, for every architecture the build compiles.

Usage: python3 ptxas_registers.py REPO_ROOT SOURCE
Recompiles SOURCE with its command in REPO_ROOT/build/compile_commands.json plus -Xptxas -v, the object
into a temporary directory, and prints "REGISTERS ARCH MANGLED_KERNEL" a line. A failed compile is an
error (its message and a non-zero exit), never an empty report. tests/kernels/cuda/kernel_occupancy_test.py
is the CI guard built on the same report; this prints every kernel, for a session's notes.
"""
import json
import re
import shlex
import subprocess
import sys
import tempfile


def main() -> None:
    root, source = sys.argv[1], sys.argv[2]
    for entry in json.load(open(f"{root}/build/compile_commands.json")):
        if not entry["file"].endswith(source):
            continue
        args = entry.get("arguments") or shlex.split(entry["command"])
        args = [a for a in args if not a.endswith("ccache")]
        with tempfile.TemporaryDirectory() as out:
            args = [f"{out}/kernel.o" if prev == "-o" else a for prev, a in zip([""] + args, args)]
            result = subprocess.run(args + ["-Xptxas", "-v"], cwd=entry["directory"], capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"ptxas_registers: compiling {source} failed:\n{result.stderr}")
        kernel = arch = None
        for line in result.stderr.splitlines():
            entry_match = re.search(r"Compiling entry function '(\S+)' for '(\S+)'", line)
            if entry_match:
                kernel, arch = entry_match.groups()
            used = re.search(r"Used (\d+) registers", line)
            if used and kernel:
                print(used.group(1), arch, kernel)
                kernel = None
        return
    sys.exit(f"ptxas_registers: {source} is not in {root}/build/compile_commands.json")


if __name__ == "__main__":
    main()
