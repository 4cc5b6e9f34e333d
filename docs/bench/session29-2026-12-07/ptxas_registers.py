"""The registers ptxas gives each kernel of one CUDA source, compiled for Hopper with the build's flags.

Usage: python3 ptxas_registers.py REPO_ROOT SOURCE
Prints "REGISTERS ARCH MANGLED_KERNEL" a line for every kernel of SOURCE, from
the report of tests/kernels/cuda/kernel_occupancy_test.py, the CI guard that holds the hot kernels to
their measured CTAs an SM; this prints every kernel, for a session's notes. A failed compile is an error
(its message and a non-zero exit), never an empty report.
"""
import sys

sys.path.insert(0, f"{sys.argv[1]}/tests/kernels/cuda")
from kernel_occupancy_test import hopper_compile, kernel_resources, ptxas_report  # noqa: E402


def main() -> None:
    compile_commands, source = f"{sys.argv[1]}/build/compile_commands.json", sys.argv[2]
    arch = "sm_" + hopper_compile(compile_commands, source)[1]
    for kernel, (registers, _) in kernel_resources(ptxas_report(compile_commands, source)).items():
        print(registers, arch, kernel)


if __name__ == "__main__":
    main()
