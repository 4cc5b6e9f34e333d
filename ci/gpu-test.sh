#!/usr/bin/env bash
# Runs the GPU-labelled tests of an existing CUDA build (on a machine with a GPU).
# Usage: bash ci/gpu-test.sh [BUILD_DIR]
set -euo pipefail
build_dir=${1:-build}
ctest --test-dir "$build_dir" -L gpu --output-on-failure
