#!/usr/bin/env bash
# The whole test suite from a fresh Debian 12 machine: installs dependencies,
# builds everything (CUDA included when nvcc is present) and runs ctest.
# GPU tests (label `gpu`) report themselves skipped where no GPU is usable.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh
bash ci/build.sh "$@"
build_dir=${VT_BUILD_DIR:-build}
ctest --test-dir "$build_dir" --output-on-failure -j "${VT_JOBS:-$(nproc)}"
# The project's own gates on this repository (AGENTS.md): every gate must run and pass, gencode against
# this build's compile database. A build without CUDA (no nvcc, or -DVT_CUDA=OFF) has no CUDA units for
# gencode to check: preflight then reports it unverified, visibly, instead of failing the run.
# Under GitHub Actions the gates run over what the event brings (`vt-gate ci github`: a push's new
# commits, a pull request's commits and body); there a skip is never green, so a build without CUDA
# leaves gencode to the workflow's cuda-gencode job.
gate="$build_dir/governance/vt-gate"
compile_commands=(--compile-commands "$build_dir/compile_commands.json")
if grep -q '\.cu"' "$build_dir/compile_commands.json"; then
  preflight_flags=(--fail-on-skip)
  ci_flags=()
else
  echo "test.sh: this build has no CUDA units; gencode cannot be verified here"
  preflight_flags=()
  ci_flags=(--except gencode)
fi
if [ -n "${GITHUB_EVENT_PATH:-}" ]; then
  "$gate" --format github ci github "${ci_flags[@]}" "${compile_commands[@]}"
else
  "$gate" preflight "${preflight_flags[@]}" "${compile_commands[@]}"
fi
