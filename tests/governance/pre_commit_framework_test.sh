#!/bin/sh
# The hooks of .pre-commit-hooks.yaml run by the real pre-commit framework in
# a scratch repository: commit-msg, pre-commit and pre-push stages. The hook
# definitions are copied verbatim into a `repo: local` config, so pre-commit
# clones nothing (no network) and the entries tested are the shipped ones.
# Usage: pre_commit_framework_test.sh VT_GATE_BINARY SOURCE_DIR
set -eu
if ! command -v pre-commit >/dev/null 2>&1; then
  echo "SKIP: pre-commit is not installed (Debian package pre-commit; ci/install-deps.sh installs it)"
  exit 77
fi
vt_gate=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
hooks_yaml=$(cd "$2" && pwd)/.pre-commit-hooks.yaml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The entries call `vt-gate` from PATH; pre-commit keeps its cache and git its config inside the scratch dir.
mkdir "$work/bin" "$work/home"
ln -s "$vt_gate" "$work/bin/vt-gate"
export PATH="$work/bin:$PATH" HOME="$work/home" PRE_COMMIT_HOME="$work/cache" GIT_CONFIG_NOSYSTEM=1
git config --global user.name Ada
git config --global user.email ada@example.org
git config --global init.defaultBranch main

fail() {
  echo "FAIL: $*"
  exit 1
}

git init -q --bare "$work/origin.git"
git init -q "$work/repo"
cd "$work/repo"
git remote add origin "$work/origin.git"
# A local base: on the first push (it includes the root) pre-commit passes no range and the
# remote has no refs yet, so the base tells vt-gate which commits are new (else: skip, exit 3).
cat >.vt-gate.yaml <<'YAML'
base: main
trailers:
  required:
    - key: AI-Assisted
      values: ["true", "false"]
preflight:
  gates: [trailers]
YAML
{
  printf 'repos:\n  - repo: local\n    hooks:\n'
  sed -e '/^#/d' -e 's/^/      /' "$hooks_yaml"
} >.pre-commit-config.yaml
pre-commit install -t commit-msg -t pre-commit -t pre-push >/dev/null || fail "pre-commit install"

good='add the config

AI-Assisted: false'
git add -A
git commit -q -m "$good" >"$work/log" 2>&1 || { cat "$work/log"; fail "a commit with good trailers was rejected"; }
grep -q "vt-gate trailers (commit message).*Passed" "$work/log" || { cat "$work/log"; fail "commit-msg hook did not run"; }
grep -q "vt-gate preflight --staged.*Passed" "$work/log" || { cat "$work/log"; fail "pre-commit hook did not run"; }

echo one >one.txt
git add one.txt
if git commit -q -m "no trailers here" >"$work/log" 2>&1; then
  cat "$work/log"
  fail "a commit without the required trailer was accepted"
fi
grep -q "required:AI-Assisted" "$work/log" || { cat "$work/log"; fail "the rejection does not name the rule"; }
[ "$(git rev-list --count HEAD)" = 1 ] || fail "the rejected commit landed"

# First push of main: it includes the root commit, so pre-commit passes branch names, not a range.
git push -q origin main >"$work/log" 2>&1 || { cat "$work/log"; fail "pushing good commits was rejected"; }
grep -q "vt-gate trailers (pushed commits).*Passed" "$work/log" || { cat "$work/log"; fail "pre-push hook did not run"; }
git fetch -q origin

# A branch with a bad commit (hooks bypassed), pushed while HEAD is on main: only the pushed
# range (PRE_COMMIT_FROM_REF..PRE_COMMIT_TO_REF) holds it, not base..HEAD.
git checkout -q -b feature
git commit -q --no-verify -m "sneaked past the hooks"
bad=$(git rev-parse --short=12 HEAD)
git checkout -q main
if git push -q origin feature >"$work/log" 2>&1; then
  cat "$work/log"
  fail "pushing a branch with a commit that lacks the trailer was accepted"
fi
grep -q "$bad" "$work/log" || { cat "$work/log"; fail "the push rejection does not name commit $bad"; }

# A good commit pushed on top of the remote's main: a FROM..TO range, checked and accepted.
git commit -q -m "$good" --allow-empty
git push -q origin main >"$work/log" 2>&1 || { cat "$work/log"; fail "pushing a good commit onto main was rejected"; }
grep -q "vt-gate trailers (pushed commits).*Passed" "$work/log" || { cat "$work/log"; fail "pre-push hook did not run"; }
echo "ok: commit-msg, pre-commit and pre-push stages through pre-commit $(pre-commit --version | cut -d' ' -f2)"
