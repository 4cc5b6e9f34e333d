#!/usr/bin/env bash
# Architecture-step evidence on a GPU machine (issue #18): every GPU test suite after the move, the
# host peak RSS (VmHWM) of loading dummy and real llama3-8b onto the GPU, and `vt bench decode`
# before and after the move from two binaries of this same job, alternated.
#
# Usage: bash tools/gpu_architecture_evidence.sh BIN_DIR OUT_DIR [PARTS] [BEFORE_VT]
#   PARTS: comma-separated tests,rss,realrss,bench (default tests,rss). BIN_DIR is packed as for
#   tools/gpu_e2e_evidence.sh; BEFORE_VT is the `vt` built from the commit before the move (rss and
#   bench run it beside BIN_DIR's).
set -uo pipefail
default_parts=tests,rss
before=${4:-}
source "$(dirname "$0")/gpu_evidence_common.sh" "$1" "$2" "${3:-}"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
export VT_SOURCE_DIR="$root" VT_DEFAULT_MODEL="$root/assets/models/fortune-qwen3-7m"

if want tests; then
  for t in "$bin"/vt_gpu_*_tests; do
    name=$(basename "$t")
    timeout -k 5 400 "$t" > "$out/$name.log" 2>&1
    echo "$name rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/$name.log" | tr '\n' ' ')"
  done
fi

# Peak host RSS of one short CUDA generation: `vt generate --json` reports getrusage's ru_maxrss,
# which is VmHWM.
peak_rss() {  # label, vt binary, then vt generate arguments
  local label=$1 vt=$2; shift 2
  timeout -k 5 300 "$vt" generate --backend cuda --prompt-ids 1,2,3 --max-tokens 4 --json "$@" \
    > "$out/rss-$label.json" 2> "$out/rss-$label.err"
  echo "rss $label rc=$? peak_rss_mb=$(python3 -c 'import json,sys; print(round(json.loads(open(sys.argv[1]).readline())["timings"]["peak_rss_mb"]))' "$out/rss-$label.json" 2>/dev/null)"
}
if want rss; then
  peak_rss llama3-8b-dummy-after "$bin/vt" --model preset:llama3-8b --load-format dummy
  peak_rss qwen3-1.7b-dummy-after "$bin/vt" --model preset:qwen3-1.7b --load-format dummy
  peak_rss embedded-after "$bin/vt"
  if [ -n "$before" ]; then
    peak_rss llama3-8b-dummy-before "$before" --model preset:llama3-8b --load-format dummy
    peak_rss qwen3-1.7b-dummy-before "$before" --model preset:qwen3-1.7b --load-format dummy
  fi
fi

# A real llama3-8b-shaped bf16 checkpoint (random values, written here with torch + safetensors),
# loaded from a file whose pages start out of the page cache.
if want realrss; then
  ckpt=/tmp/vt-llama3-8b-ckpt
  "${python_env[@]}" python3 "$root/tools/write_random_checkpoint.py" llama3-8b "$ckpt" > "$out/realrss-write.log" 2>&1
  echo "checkpoint written rc=$? $(du -sh "$ckpt" | cut -f1)"
  sync; echo 1 > /proc/sys/vm/drop_caches 2>/dev/null || true
  peak_rss llama3-8b-real-after "$bin/vt" --model "$ckpt"
  if [ -n "$before" ]; then peak_rss llama3-8b-real-before "$before" --model "$ckpt"; fi
fi

# Decode throughput before and after, alternated so drift hits both alike.
if want bench && [ -n "$before" ]; then
  for round in 1 2; do
    for side in before after; do
      vt=$bin/vt; [ $side = before ] && vt=$before
      for model in qwen3-1.7b llama3-8b; do
        timeout -k 5 300 "$vt" bench decode --backend cuda --load-format dummy --model "preset:$model" \
          --input-len 128 --output-len 128 --concurrency 1,8,64 --json \
          > "$out/bench-$model-$side-$round.json" 2> "$out/bench-$model-$side-$round.err"
        echo "bench $model $side round $round rc=$? $(python3 -c '
import json,sys
j=json.load(open(sys.argv[1]))
print(" ".join(f"c={r["concurrency"]}:{r["output_tokens_per_s"]:.0f}tok/s" for r in j["results"]))' "$out/bench-$model-$side-$round.json" 2>/dev/null)"
      done
    done
  done
fi
