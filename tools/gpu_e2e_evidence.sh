#!/usr/bin/env bash
# CUDA-backend evidence on a GPU machine (issue #10): every GPU test suite, compute-sanitizer
# memcheck on a short generation, and `vt bench decode` on dummy qwen3-1.7b and llama3-8b (bf16 and
# GPTQ int4) with the A/Bs the issue asks for (graphs vs eager, each decode arm vs block, the
# tensor-core prefill vs decode queries), beside transformers `generate` in the same job.
# Logs and JSON go under OUT_DIR; stdout gets a compact summary.
#
# Usage: bash tools/gpu_e2e_evidence.sh BIN_DIR OUT_DIR [PARTS]
#   PARTS: comma-separated gates,memcheck,qwen,llama,ab (default all five). A device call is limited
#   to 10 minutes and brings back few files, so run two calls and archive OUT_DIR:
#     mkdir -p /tmp/ev && timeout -k 10 560 bash tools/gpu_e2e_evidence.sh .gpu /tmp/ev gates,memcheck; \
#       tar czf "$OUT/ev.tgz" -C /tmp ev
#     (then the same with qwen,llama,ab)
#   BIN_DIR holds, from a -DVT_CUDA=ON build: vt and the vt_gpu_*_tests (vt's HTTP server and client are
#   header-only Boost.Beast, so it needs no library the GPU machine lacks but cuBLAS). Packing it here:
#     rm -rf .gpu && mkdir -p .gpu && cp build-cuda/engine/vt build-cuda/tests/gpu/vt_gpu_*_tests .gpu/
set -uo pipefail
shopt -s nullglob
default_parts=gates,memcheck,qwen,llama,ab
source "$(dirname "$0")/gpu_evidence_common.sh" "$@"
export VT_DEFAULT_MODEL="$root/assets/models/fortune-qwen3-7m"
export VT_SOURCE_DIR="$root"  # the test binaries were configured at another path
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"

# Every GPU suite in BIN, the smoke test first (if it skips, nothing below ran on a GPU); the
# kernel suites explain a failing engine gate.
if want gates; then
  for suite in "$bin"/vt_gpu_smoke_tests "$bin"/vt_gpu_*_tests; do
    name=$(basename "$suite")
    [ -e "$out/$name.log" ] && continue
    limit=120
    [ "$name" = vt_gpu_engine_tests ] && limit=300
    timeout -k 5 "$limit" "$suite" > "$out/$name.log" 2>&1
    echo "$name rc=$?"
    grep -E '^\[  (FAILED|PASSED|SKIPPED) |^\[ logits' "$out/$name.log" | head -20
  done
fi

if want memcheck; then
  timeout -k 5 240 "$sanitizer" --tool memcheck --leak-check full "$bin/vt" generate --backend cuda \
    --gpu-memory-utilization 0.2 --prompt-ids 1,2,3,4,5,6,7,8 --max-tokens 8 > "$out/memcheck.log" 2>&1
  echo "memcheck rc=$?"; grep -E 'ERROR SUMMARY|LEAK SUMMARY' "$out/memcheck.log"
fi

# One line per run: tok/s per concurrency, or the median B/A ratio per concurrency of an A/B.
summarize() {
  python3 - "$1" <<'PY'
import json, sys
try:
    j = json.load(open(sys.argv[1]))
except Exception as e:
    sys.exit(f"  (no JSON: {e})")
if "a" in j:
    print("  " + "  ".join(f"c={r['concurrency']}: B/A {r['median_ratio']:.3f}" for r in j["results"]))
elif "results" in j:
    print("  " + "  ".join(f"c={r['concurrency']}: {r['output_tokens_per_s']:.0f} tok/s "
                           f"({100 * r['roofline_fraction']:.0f}% of roofline)" for r in j["results"]))
else:
    print("  " + json.dumps(j)[:400])
PY
}
bench() {  # name, input tokens, output tokens, then more vt bench decode arguments
  local name=$1 input=$2 output=$3; shift 3
  timeout -k 5 180 "$bin/vt" bench decode --backend cuda --load-format dummy --input-len "$input" \
    --output-len "$output" --json "$@" > "$out/$name.json" 2> "$out/$name.err"
  echo "bench $name rc=$?"
  summarize "$out/$name.json"
}
models=()
rows=()
if want qwen; then
  bench qwen3-1.7b 32 128 --model preset:qwen3-1.7b --concurrency 1,2,4,8,16 --plot "$out/qwen3-1.7b.svg"
  bench qwen3-1.7b-graphs-ab 32 128 --model preset:qwen3-1.7b --concurrency 1,8 \
    --ab 'VT_CUDA_GRAPHS=0' 'VT_CUDA_GRAPHS=1' --ab-rounds 2
  bench qwen3-1.7b-gemm-ab 32 128 --model preset:qwen3-1.7b --concurrency 1,8 \
    --ab 'VT_DENSE_GEMM=cublas' 'VT_DENSE_GEMM=auto' --ab-rounds 2
  models+=(qwen3-1.7b)
  rows+=("qwen3-1.7b bf16=$out/qwen3-1.7b.json")
fi
# Each decode arm against the block arm, and the tensor-core prefill against decode queries.
if want ab; then
  for arm in warp warp2 gqa; do
    bench "qwen3-1.7b-$arm-ab" 32 128 --model preset:qwen3-1.7b --concurrency 1,8 \
      --ab 'VT_ATTN_DECODE=block' "VT_ATTN_DECODE=$arm" --ab-rounds 2
  done
  # Prefill-heavy (2,048 prompt tokens, 16 out).
  bench qwen3-1.7b-prefill-ab 2048 16 --model preset:qwen3-1.7b --concurrency 1,8 \
    --ab 'VT_ATTN_PREFILL=decode' 'VT_ATTN_PREFILL=tc' --ab-rounds 2
fi
if want llama; then
  bench llama3-8b 32 128 --model preset:llama3-8b --concurrency 1,2,4,8 --plot "$out/llama3-8b.svg"
  bench llama3-8b-gemm-ab 32 128 --model preset:llama3-8b --concurrency 1,8 \
    --ab 'VT_DENSE_GEMM=cublas' 'VT_DENSE_GEMM=auto' --ab-rounds 2
  bench llama3-8b-gptq 32 128 --model preset:llama3-8b-gptq --concurrency 1,2,4,8 --plot "$out/llama3-8b-gptq.svg"
  models+=(llama3-8b)
  rows+=("llama3-8b bf16=$out/llama3-8b.json" "llama3-8b W4A16=$out/llama3-8b-gptq.json")
fi

# The side-by-side anchor: transformers generate on the same shapes, in the same job.
if [ ${#models[@]} -gt 0 ]; then
  PYTHONUNBUFFERED=1 timeout -k 5 240 "${python_env[@]}" python3 "$root/tools/hf_generate_anchor.py" \
    --models "$(IFS=,; echo "${models[*]}")" --batches 1,8 > "$out/hf_generate.json" 2> "$out/hf_generate.err"
  echo "hf anchor rc=$?"
  python3 "$root/tools/decode_table.py" "$out/hf_generate.json" "${rows[@]}" | tee "$out/table.md"
fi
