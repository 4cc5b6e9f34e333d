#!/usr/bin/env bash
# The commit-msg hook in the three forms `vt-gate hooks install` writes (default: #! vt-gate; --shim;
# --direct), for one copy of the binary, executed as git executes hooks, interleaved:
# `perf stat -r 100 HOOK MSG` (elapsed, mean of 100) per form per round. Run from the repository root
# after building vt-gate; MSG is the last commit's message. Usage: run.sh ROUNDS LABEL
set -euo pipefail
forms=/tmp/hookforms
rm -rf "$forms" /tmp/hf-scratch && mkdir -p "$forms"/{shim,interp,link}
cp "$(readlink -f build/governance/vt-gate)" "$forms/vt-gate"
git init -q /tmp/hf-scratch
for form in shim interp link; do
  flag=""; [ $form = shim ] && flag=--shim; [ $form = link ] && flag=--direct
  rm -f /tmp/hf-scratch/.git/hooks/*
  "$forms/vt-gate" --repo /tmp/hf-scratch hooks install $flag > /dev/null
  cp -P /tmp/hf-scratch/.git/hooks/commit-msg "$forms/$form/commit-msg"
done
git log -1 --format=%B > /tmp/hookmsg
for r in $(seq 1 "$1"); do
  line="$2 r$r load $(cut -d' ' -f1 /proc/loadavg):"
  for f in shim interp link; do
    ms=$(perf stat -r 100 "$forms/$f/commit-msg" /tmp/hookmsg 2>&1 >/dev/null | grep "seconds time elapsed" | awk '{printf "%.2f", $1*1000}')
    line="$line $f=$ms"
  done
  echo "$line"
done
# The loads: quiet; two busy loops (`sh -c 'while :; do :; done' &` twice); two nvcc compiles of
# kernels/cuda/attention/decode_persistent.cu for sm_80/86/89/90 at a time, in a loop.
