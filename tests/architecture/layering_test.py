#!/usr/bin/env python3
"""The repository's layering, checked over the include graph of its own code:

  base        includes nothing of ours
  kernels     includes only base
  governance  includes only base
  engine/exec includes no backend (engine/backends/)
  backends    include neither engine/server/ nor engine/cli/

and nothing below the CLI reads the environment: getenv appears only in the runner-options parser
(engine/backends/runner_options.cpp) and the two CLIs (engine/cli/, governance/cli/).

Usage: layering_test.py SOURCE_ROOT. Exit 0 when every rule holds, 1 with one line per violation.
"""
import os
import re
import sys

OURS = ("base", "kernels", "engine", "governance", "tests")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
GETENV = re.compile(r"\b(std::)?(secure_)?getenv\s*\(")
GETENV_ALLOWED = ("engine/backends/runner_options.cpp", "engine/cli/", "governance/cli/")


def include_violation(path, included):
    top = included.split("/")[0]
    if top not in OURS:
        return None  # a system or third-party header
    if path.startswith("base/") and top != "base":
        return "base includes nothing of ours"
    if path.startswith("kernels/") and top not in ("base", "kernels"):
        return "kernels include only base"
    if path.startswith("governance/") and top not in ("base", "governance"):
        return "governance includes only base"
    if path.startswith("engine/exec/") and included.startswith("engine/backends/"):
        return "engine/exec includes no backend"
    if path.startswith("engine/backends/") and included.startswith(("engine/server/", "engine/cli/")):
        return "backends include neither server/ nor cli/"
    return None


def sources(root):
    for top in ("base", "kernels", "engine", "governance"):
        for directory, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if name.endswith((".h", ".cpp", ".cu", ".cuh")):
                    full = os.path.join(directory, name)
                    yield os.path.relpath(full, root), full


def main():
    root = sys.argv[1]
    problems = []
    checked = 0
    for path, full in sources(root):
        checked += 1
        with open(full, encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if m:
                    why = include_violation(path, m.group(1))
                    if why:
                        problems.append(f"{path}:{number}: includes {m.group(1)}: {why}")
                if GETENV.search(line) and not path.startswith(GETENV_ALLOWED):
                    problems.append(f"{path}:{number}: reads the environment; parse settings once "
                                    "(engine/backends/runner_options.cpp or a CLI) and pass them down")
    if checked < 100:
        problems.append(f"only {checked} source files found under {root}: wrong root?")
    for p in problems:
        print(p)
    print(f"layering: {checked} files, {len(problems)} violation(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
