#!/usr/bin/env bash
# Configures and builds vt into ${VT_BUILD_DIR:-build}. Extra arguments go to cmake's configure step,
# e.g. `bash ci/build.sh -DVT_CUDA=OFF`.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${VT_BUILD_DIR:-build}
jobs=${VT_JOBS:-$(nproc)}
werror=OFF
if [ -n "${CI:-}" ]; then werror=ON; fi
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVT_WERROR="$werror" "$@"
cmake --build "$build_dir" -j "$jobs"
