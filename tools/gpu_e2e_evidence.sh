#!/usr/bin/env bash
# CUDA-backend evidence on a GPU machine, in one job (issue #10): the end-to-end GPU gates,
# compute-sanitizer memcheck on a short generation, and `vt bench decode` on dummy qwen3-1.7b and
# llama3-8b (bf16 and GPTQ int4) with the A/Bs the issue asks for (graphs vs eager, each decode arm
# vs block).
# Writes logs and JSON under OUT_DIR and prints a summary.
#
# Usage: bash tools/gpu_e2e_evidence.sh BIN_DIR OUT_DIR [PARTS]
#   PARTS: comma-separated gates,memcheck,qwen,llama (default all four; a device call is limited to
#   10 minutes, so split them over two calls if one does not fit).
#   BIN_DIR holds, from a -DVT_CUDA=ON build: vt, the vt_gpu_*_tests, and libcpp-httplib.so*
#   (vt serve links it; the GPU machine has no Debian -dev libraries).
# Packing BIN_DIR here (it travels with `run`'s carry):
#   mkdir -p .gpu && cp build-cuda/engine/vt build-cuda/tests/gpu/vt_gpu_*_tests \
#     /usr/lib/x86_64-linux-gnu/libcpp-httplib.so.0.11* .gpu/
set -uo pipefail
shopt -s nullglob
bin=$(cd "$1" && pwd)
out=$(mkdir -p "$2" && cd "$2" && pwd)
parts=",${3:-gates,memcheck,qwen,llama},"
want() { [[ $parts == *",$1,"* ]]; }
root=$(cd "$(dirname "$0")/.." && pwd)
export LD_LIBRARY_PATH="$bin:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export VT_DEFAULT_MODEL="$root/assets/models/fortune-qwen3-7m"
export VT_SOURCE_DIR="$root"  # the test binaries were configured at another path

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$out/gpu.txt"
cat "$out/gpu.txt"

# Every GPU suite in BIN: the kernels (attention, forward ops and sampling, prefill, W4A16) and the
# engine gates; a failing kernel suite explains a failing engine gate.
for suite in "$bin"/vt_gpu_*_tests; do
  want gates || break
  name=$(basename "$suite")
  "$suite" > "$out/$name.log" 2>&1
  echo "$name rc=$?"
  grep -E '^\[  (FAILED|PASSED) |^\[ logits' "$out/$name.log"
done

if want memcheck; then
  compute-sanitizer --tool memcheck --leak-check full "$bin/vt" generate --backend cuda --gpu-memory-utilization 0.2 \
    --prompt-ids 1,2,3,4,5,6,7,8 --max-tokens 8 > "$out/memcheck.log" 2>&1
  echo "memcheck rc=$?"; grep -E 'ERROR SUMMARY|LEAK SUMMARY' "$out/memcheck.log"
fi

bench() {  # name, input tokens, output tokens, then more vt bench decode arguments
  local name=$1 input=$2 output=$3; shift 3
  "$bin/vt" bench decode --backend cuda --load-format dummy --input-len "$input" --output-len "$output" --json "$@" \
    > "$out/$name.json" 2> "$out/$name.err"
  echo "bench $name rc=$?"; head -c 1500 "$out/$name.json"; echo
}
models=()
rows=()
if want qwen; then
  bench qwen3-1.7b 32 128 --model preset:qwen3-1.7b --concurrency 1,2,4,8,16 --plot "$out/qwen3-1.7b.svg"
  bench qwen3-1.7b-graphs-ab 32 128 --model preset:qwen3-1.7b --concurrency 1,8 \
    --ab 'VT_CUDA_GRAPHS=0' 'VT_CUDA_GRAPHS=1' --ab-rounds 2
  for arm in warp warp2 gqa; do
    bench "qwen3-1.7b-$arm-ab" 32 128 --model preset:qwen3-1.7b --concurrency 1,8 \
      --ab 'VT_ATTN_DECODE=block' "VT_ATTN_DECODE=$arm" --ab-rounds 2
  done
  # Prefill-heavy (2,048 prompt tokens, 16 out): the tensor-core prefill kernel against decode queries.
  bench qwen3-1.7b-prefill-ab 2048 16 --model preset:qwen3-1.7b --concurrency 1,8 \
    --ab 'VT_ATTN_PREFILL=decode' 'VT_ATTN_PREFILL=tc' --ab-rounds 2
  models+=(qwen3-1.7b)
  rows+=("qwen3-1.7b bf16=$out/qwen3-1.7b.json")
fi
if want llama; then
  bench llama3-8b 32 128 --model preset:llama3-8b --concurrency 1,2,4,8 --plot "$out/llama3-8b.svg"
  bench llama3-8b-gptq 32 128 --model preset:llama3-8b-gptq --concurrency 1,2,4,8 --plot "$out/llama3-8b-gptq.svg"
  models+=(llama3-8b)
  rows+=("llama3-8b bf16=$out/llama3-8b.json" "llama3-8b W4A16=$out/llama3-8b-gptq.json")
fi

# The side-by-side anchor: transformers generate on the same shapes, in the same job.
if [ ${#models[@]} -gt 0 ]; then
  PYTHONUNBUFFERED=1 python3 "$root/tools/hf_generate_anchor.py" --models "$(IFS=,; echo "${models[*]}")" \
    --batches 1,8 > "$out/hf_generate.json" 2> "$out/hf_generate.err"
  echo "hf anchor rc=$?"
  python3 "$root/tools/decode_table.py" "$out/hf_generate.json" "${rows[@]}" | tee "$out/table.md"
fi
