#!/usr/bin/env bash
# The project's own gates on the repository in the current directory (AGENTS.md), after a build:
# every gate must run and pass, gencode against the build's compile database. A build without CUDA
# (no nvcc, or -DVT_CUDA=OFF) has no CUDA units for gencode to check: preflight then reports it
# unverified, visibly, instead of failing the run. Under GitHub Actions (GITHUB_EVENT_PATH set) the
# gates run over what the event brings (`vt-gate ci github`: a push's new commits, a pull request's
# commits and body); there a skip is never green, so a build without CUDA leaves gencode to the
# workflow's cuda-gencode job. ci/test.sh calls it; tests/governance/ci_gates_script_test.sh runs it.
# Usage: ci/gates.sh BUILD_DIR
set -euo pipefail
build_dir=${1:?usage: ci/gates.sh BUILD_DIR}
gate="$build_dir/governance/vt-gate"
database="$build_dir/compile_commands.json"
compile_commands=(--compile-commands "$database")
# No compile database is a broken build, not one without CUDA: never let it drop gencode quietly.
if [ ! -f "$database" ]; then
  echo "gates.sh: $database is missing (ci/build.sh writes it)" >&2
  exit 2
fi
if grep -q '\.cu"' "$database"; then
  preflight_flags=(--fail-on-skip)
  ci_flags=()
else
  echo "gates.sh: this build has no CUDA units; gencode cannot be verified here"
  preflight_flags=()
  ci_flags=(--except gencode)
fi
if [ -n "${GITHUB_EVENT_PATH:-}" ]; then
  "$gate" --format github ci github "${ci_flags[@]}" "${compile_commands[@]}"
else
  "$gate" preflight "${preflight_flags[@]}" "${compile_commands[@]}"
fi
