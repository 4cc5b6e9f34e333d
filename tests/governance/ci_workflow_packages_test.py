#!/usr/bin/env python3
"""The CUDA container job of .github/workflows/ci.yml installs what configuring vt needs.

That job (cuda-gencode, Ubuntu 24.04) cannot run ci/install-deps.sh (Debian 12 names, and the tools
only the tests use), so it lists its packages itself, and the list drifted: it lacked libboost-dev,
which configure requires since the server moved to Boost.Beast, and still named libcpp-httplib-dev.
Nothing runs that job here, so this holds its list to install-deps.sh's: every package install-deps.sh
installs, less the ones only the test suite uses (below), must be in the job's apt-get line, and the
job must list nothing else. Ubuntu 24.04 ships these -dev packages under the same names.

Usage: ci_workflow_packages_test.py SOURCE_ROOT. Exit 0 when the lists agree, 1 naming each difference.
"""
import re
import sys

# Packages install-deps.sh installs for the tests, not for configuring and building: the job runs no test.
TEST_ONLY = {
    "git", "ccache", "gitlint", "pre-commit", "python3-jinja2", "curl", "iproute2",
    "clang", "libclang-rt-14-dev", "libfuzzer-14-dev", "nodejs", "npm",
}


def install_deps_packages(text):
    match = re.search(r"^packages=\((.*?)^\)", text, re.S | re.M)
    if not match:
        sys.exit("ci/install-deps.sh: no packages=( ... ) array")
    words = []
    for line in match.group(1).splitlines():
        words += line.split("#", 1)[0].split()
    return set(words)


def job_packages(text):
    job = re.search(r"^  cuda-gencode:\n(.*?)(?=^  \S|\Z)", text, re.S | re.M)
    if not job:
        sys.exit(".github/workflows/ci.yml: no cuda-gencode job")
    step = re.search(r"- name: Build dependencies\n\s+run: >-\n(.*?)(?=^\s+- )", job.group(1), re.S | re.M)
    if not step:
        sys.exit(".github/workflows/ci.yml: the cuda-gencode job has no 'Build dependencies' step")
    command = " ".join(step.group(1).split())
    if "apt-get install" not in command:
        sys.exit(".github/workflows/ci.yml: the 'Build dependencies' step runs no apt-get install")
    return {w for w in command.split("apt-get install", 1)[1].split() if not w.startswith("-")}


def main(root):
    with open(f"{root}/ci/install-deps.sh") as f:
        wanted = install_deps_packages(f.read()) - TEST_ONLY
    with open(f"{root}/.github/workflows/ci.yml") as f:
        listed = job_packages(f.read())
    problems = [f"cuda-gencode job lacks {p} (ci/install-deps.sh installs it)" for p in sorted(wanted - listed)]
    problems += [f"cuda-gencode job installs {p}, which ci/install-deps.sh does not" for p in sorted(listed - wanted)]
    for p in problems:
        print(p)
    if not problems:
        print(f"cuda-gencode job installs the {len(listed)} build packages of ci/install-deps.sh")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
