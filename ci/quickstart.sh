#!/usr/bin/env bash
# The main job from a fresh Debian 12 machine: installs dependencies, builds,
# runs the project's own gates on this repository, then generates text.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh
bash ci/build.sh
build_dir=${VT_BUILD_DIR:-build}
"$build_dir/governance/vt-gate" hooks install
"$build_dir/governance/vt-gate" preflight --compile-commands "$build_dir/compile_commands.json"
"$build_dir/engine/vt" generate --model preset:qwen3-0.6b --load-format dummy --prompt-ids 1,2,3 --max-tokens 8
