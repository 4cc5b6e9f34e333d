#!/bin/bash
# Interleaved rounds: the commit-msg hook (interpreter form), a static no-op binary, git interpret-trailers.
cd /work/main
out=${1:-/tmp/hookbench.txt}
for round in $(seq 1 ${2:-6}); do
  load=$(cut -d' ' -f1 /proc/loadavg)
  hook=$(perf stat -r 40 .git/hooks/commit-msg /tmp/MSG 2>&1 >/dev/null | awk '/seconds time elapsed/{print $1*1000}')
  noop=$(perf stat -r 40 /tmp/noop 2>&1 >/dev/null | awk '/seconds time elapsed/{print $1*1000}')
  git_it=$(perf stat -r 40 git interpret-trailers --parse /tmp/MSG 2>&1 >/dev/null | awk '/seconds time elapsed/{print $1*1000}')
  echo "round $round load $load hook_ms $hook noop_ms $noop git_interpret_trailers_ms $git_it" | tee -a "$out"
done
