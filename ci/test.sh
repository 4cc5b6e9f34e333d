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
# The project's own gates on this repository, over what CI's event brings under GitHub Actions.
bash ci/gates.sh "$build_dir"
