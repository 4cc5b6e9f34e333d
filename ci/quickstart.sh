#!/usr/bin/env bash
# The main job from a fresh Debian 12 machine: installs dependencies, builds,
# runs the project's own gates on this repository, then generates text with the embedded
# default model (assets/models/fortune-qwen3-7m).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh
bash ci/build.sh
build_dir=${VT_BUILD_DIR:-build}
"$build_dir/governance/vt-gate" hooks install
"$build_dir/governance/vt-gate" preflight --compile-commands "$build_dir/compile_commands.json"
"$build_dir/engine/vt" generate --prompt "The meaning of life is" --max-tokens 40
