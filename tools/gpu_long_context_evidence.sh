#!/usr/bin/env bash
# Long-context evidence on a GPU machine (issue #16): `vt bench decode` with the CUDA defaults at
# prompt lengths 32, 1k, 8k, 32k and the model's maximum (40,896 + 64 output tokens = 40,960 positions)
# on qwen3-1.7b and 1k and 8k on llama3-8b (its preset's maximum is 8,192), c = 1 and 8, 64 output
# tokens; the prefill share beside running decodes swept at 8k, c = 8; the attention defaults of
# issue #10 (unsplit, prefill the decode way) at 8k for before/after; the transformers SDPA
# prefill forward of the same lengths in the same job; and (part `arms`) decode-only c = 8 TPOT with
# the gqa and the persistent decode arm at 8k and 32k (issue #17). JSON per run under OUT_DIR, a
# summary on stdout.
#
# Usage: bash tools/gpu_long_context_evidence.sh BIN_DIR OUT_DIR [PARTS]
#   PARTS: comma-separated table,budget,before,anchor,arms (default the first four). BIN_DIR is packed as for
#   tools/gpu_e2e_evidence.sh; the GPU gates are that script's `gates` part.
set -uo pipefail
default_parts=table,budget,before,anchor
source "$(dirname "$0")/gpu_evidence_common.sh" "$@"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"

# One line per level: tok/s, TTFT, TPOT, the inter-token latencies and the weights + KV roofline.
summarize() {
  python3 - "$1" <<'PY'
import json, sys
try:
    j = json.load(open(sys.argv[1]))
except Exception as e:
    sys.exit(f"  (no JSON: {e})")
med = lambda s: "-" if s["median"] is None else f"{s['median']:.2f}"
for r in j["results"]:
    tpot_roof = r["concurrency"] / r["roofline_tokens_per_s"] * 1e3
    print(f"  c={r['concurrency']}: {r['output_tokens_per_s']:.0f} tok/s, TTFT {med(r['ttft_ms'])} ms, "
          f"TPOT {med(r['tpot_ms'])} ms (roofline {tpot_roof:.2f}), ITL decode-only {med(r['decode_itl_ms'])} "
          f"p99 {r['decode_itl_ms']['p99'] or 0:.2f}, ITL with prefill {med(r['prefill_itl_ms'])} "
          f"p99 {r['prefill_itl_ms']['p99'] or 0:.2f}")
PY
}
bench() {  # name, model, input tokens, then more vt bench decode arguments
  local name=$1 model=$2 input=$3; shift 3
  timeout -k 5 300 "$bin/vt" bench decode --backend cuda --load-format dummy --model "preset:$model" \
    --input-len "$input" --output-len 64 --concurrency "${concurrency:-1,8}" --json "$@" > "$out/$name.json" 2> "$out/$name.err"
  echo "bench $name rc=$?"
  summarize "$out/$name.json"
}

if want table; then
  for input in 32 1024 8192 32768 40896; do bench "qwen3-1.7b-$input" qwen3-1.7b "$input"; done
  for input in 1024 8000; do bench "llama3-8b-$input" llama3-8b "$input"; done
fi
if want budget; then
  for share in 64 128 512 1024; do
    bench "qwen3-1.7b-8192-beside-$share" qwen3-1.7b 8192 --max-prefill-beside-decodes "$share"
  done
fi
if want before; then
  VT_ATTN_SPLIT=off VT_ATTN_PREFILL=decode bench qwen3-1.7b-8192-issue10-attention qwen3-1.7b 8192
fi
if want arms; then
  # Decode-only: all eight prompts prefill in one step, then every step decodes all eight.
  for spec in qwen3-1.7b:8192 llama3-8b:8000 qwen3-1.7b:32768; do
    model=${spec%%:*} input=${spec##*:}
    for arm in gqa persist; do
      VT_ATTN_DECODE=$arm concurrency=8 bench "$model-$input-decode-only-$arm" "$model" "$input" \
        --max-num-batched-tokens $((8 * input)) --max-prefill-beside-decodes $((8 * input))
    done
  done
fi
if want anchor; then
  PYTHONUNBUFFERED=1 timeout -k 5 240 "${python_env[@]}" python3 "$root/tools/hf_prefill_anchor.py" \
    > "$out/hf_prefill.json" 2> "$out/hf_prefill.err"
  echo "hf prefill anchor rc=$?"; cat "$out/hf_prefill.err" | grep '^hf prefill'
fi
