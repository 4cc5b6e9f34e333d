#!/usr/bin/env bash
# Installs vt's build and test dependencies from Debian 12 packages.
# Idempotent: does nothing when every package is present, and runs
# `apt-get update` only when something is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git ccache
  libgit2-dev zlib1g-dev libyaml-dev libcli11-dev
  libcmark-gfm-dev libcmark-gfm-extensions-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libboost-dev libpcre2-dev
  gitlint pre-commit python3-jinja2 curl
  iproute2  # ss: the server tests read the listen backlog
  # The fuzzers: clang, and its libFuzzer and sanitizer runtimes (only a recommends of clang, which
  # --no-install-recommends below leaves out).
  clang libclang-rt-14-dev libfuzzer-14-dev
)

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

# Node.js and npm run the real-client server tests; any installation will do (a machine may
# carry a newer Node.js than Debian's), so Debian's are added only when none is present.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  missing+=(nodejs npm)
fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
