#!/bin/sh
# ci/gates.sh, the gate step of ci/test.sh, run as CI runs it against a scratch clone: which vt-gate
# command it chooses (preflight here, `ci github` under GitHub Actions; gencode required with CUDA
# units in the build, left to the cuda-gencode job without), and that a push event's bad commit turns
# it red while the same clone's plain preflight (base already moved by the push) would pass.
# The build directory is a stand-in: its vt-gate is the real binary behind a wrapper that logs its
# arguments, and its compile database is written here.
# Usage: ci_gates_script_test.sh VT_GATE_BINARY SOURCE_DIR
set -eu
# Under GitHub Actions these are set for every step: the cases below set them themselves.
unset GITHUB_EVENT_PATH GITHUB_EVENT_NAME GITHUB_ACTIONS
vt_gate=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
gates_sh=$(cd "$2" && pwd)/ci/gates.sh
# ci/test.sh runs the step after ctest, its status the run's.
grep -qx 'bash ci/gates.sh "$build_dir"' "$2/ci/test.sh" || { echo "FAIL: ci/test.sh does not run ci/gates.sh"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" GIT_CONFIG_NOSYSTEM=1
mkdir "$HOME"
git config --global user.name Ada
git config --global user.email ada@example.org
git config --global init.defaultBranch main

fail() {
  echo "FAIL: $*"
  [ -f "$work/log" ] && cat "$work/log"
  exit 1
}

mkdir -p "$work/build/governance"
cat >"$work/build/governance/vt-gate" <<WRAP
#!/bin/sh
echo "\$*" >>"$work/args"
exec "$vt_gate" "\$@"
WRAP
chmod +x "$work/build/governance/vt-gate"
no_cuda="[{\"directory\": \"$work/clone\", \"file\": \"$work/clone/main.cpp\", \"command\": \"c++ -c main.cpp\"}]"
with_cuda="[{\"directory\": \"$work/clone\", \"file\": \"$work/clone/kernels/cuda/a.cu\",
  \"command\": \"nvcc -gencode=arch=compute_90,code=sm_90 -c kernels/cuda/a.cu\"}]"

# Upstream history, then a clone as actions/checkout leaves it (origin/main at the pushed tip).
git init -q "$work/upstream"
cd "$work/upstream"
cat >.vt-gate.yaml <<'YAML'
base: origin/main
trailers:
  required:
    - key: AI-Assisted
      values: ["true", "false"]
gencode:
  features: kernels/cuda/features.yaml
preflight:
  gates: [trailers, gencode]
YAML
mkdir -p kernels/cuda
cat >kernels/cuda/features.yaml <<'YAML'
features:
  decode: [90]
sources:
  "*.cu": decode
YAML
git add .vt-gate.yaml kernels
git commit -q -m "the config

AI-Assisted: false"
root=$(git rev-parse HEAD)
echo one >one.txt
git add one.txt
git commit -q -m "a good change

AI-Assisted: true"
good=$(git rev-parse HEAD)
echo two >two.txt
git add two.txt
git commit -q -m "a change without its trailer"
bad=$(git rev-parse HEAD)
git clone -q "$work/upstream" "$work/clone"
cd "$work/clone"

run() {  # expected-status: runs ci/gates.sh in the clone, output in $work/log, arguments in $work/args
  rm -f "$work/args"
  set +e
  bash "$gates_sh" "$work/build" >"$work/log" 2>&1
  status=$?
  set -e
  [ "$status" = "$1" ] || fail "ci/gates.sh exited $status, expected $1"
}
push_event() {  # before after
  printf '{"ref": "refs/heads/main", "before": "%s", "after": "%s", "created": false, "forced": false, "deleted": false}\n' \
    "$1" "$2" >"$work/event.json"
}

# A build without its compile database is an error, never a build without CUDA units.
run 2
grep -q "compile_commands.json is missing" "$work/log" || fail "the missing compile database was not named"
[ ! -f "$work/args" ] || fail "vt-gate ran without a compile database: '$(cat "$work/args")'"

# Outside Actions, a build without CUDA: preflight, gencode not required; the pushed bad commit is
# already under origin/main, so the plain preflight sees no new commit: green (the hole CI closes).
echo "$no_cuda" >"$work/build/compile_commands.json"
run 0
grep -q "no CUDA units" "$work/log" || fail "the missing CUDA units were not reported"
[ "$(cat "$work/args")" = "preflight --compile-commands $work/build/compile_commands.json" ] ||
  fail "outside Actions without CUDA: ran '$(cat "$work/args")'"

# With CUDA units, preflight must verify every gate (a skip fails).
echo "$with_cuda" >"$work/build/compile_commands.json"
run 0
[ "$(cat "$work/args")" = "preflight --fail-on-skip --compile-commands $work/build/compile_commands.json" ] ||
  fail "outside Actions with CUDA: ran '$(cat "$work/args")'"

# Under Actions, a push of the good commit alone, checked out as actions/checkout does (the gates
# that read the tree refuse any other checkout): `ci github` over before..after, green.
export GITHUB_EVENT_NAME=push GITHUB_EVENT_PATH="$work/event.json"
git checkout -q "$good"
push_event "$root" "$good"
run 0
[ "$(cat "$work/args")" = "--format github ci github --compile-commands $work/build/compile_commands.json" ] ||
  fail "under Actions with CUDA: ran '$(cat "$work/args")'"
short() { echo "$1" | cut -c1-12; }
grep -q "1 commits in $(short "$root")..$(short "$good"), push to refs/heads/main" "$work/log" ||
  fail "the push's one commit was not checked"

# The push that brought the bad commit: red, the commit and the rule named as GitHub annotations.
echo "$no_cuda" >"$work/build/compile_commands.json"
git checkout -q "$bad"
push_event "$root" "$bad"
run 1
[ "$(cat "$work/args")" = "--format github ci github --except gencode --compile-commands $work/build/compile_commands.json" ] ||
  fail "under Actions without CUDA: ran '$(cat "$work/args")'"
grep -q "^::error" "$work/log" || fail "no GitHub error annotation"
grep -q "required%3AAI-Assisted" "$work/log" || fail "the failed rule is not named"
grep -q "commit $(short "$bad")" "$work/log" || fail "the bad commit is not named"
echo "ok: ci/gates.sh chooses preflight or ci github and fails a pushed commit CI must see"
