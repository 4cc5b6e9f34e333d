#!/usr/bin/env bash
# What a grammar costs on a GPU (issue #15): `vt bench serve` against `vt serve --backend cuda` on the
# embedded model (a real tokenizer, so structured outputs work), the same requests with and without
# `response_format: json_object`, at c = 1 and 64. EOS ends requests in both runs, so TPOT (per
# request, median) is the comparison; tok/s is reported too. JSON per run under OUT_DIR.
#
# Usage: bash tools/gpu_grammar_cost_evidence.sh BIN_DIR OUT_DIR   (BIN_DIR packed as for
#   tools/gpu_e2e_evidence.sh)
set -uo pipefail
default_parts=all
source "$(dirname "$0")/gpu_evidence_common.sh" "$1" "$2"
source "$root/tests/engine/server/serve_wait.sh"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
start_serve "$bin/vt" "$out/serve.log" --backend cuda --model "$root/assets/models/fortune-qwen3-7m" \
  --max-num-seqs 64 --max-model-len 512
for c in 1 64; do
  n=$((c == 1 ? 32 : 256))
  for kind in free json; do
    extra='{"ignore_eos": false}'
    [ $kind = json ] && extra='{"ignore_eos": false, "response_format": {"type": "json_object"}}'
    timeout -k 5 300 "$bin/vt" bench serve --base-url "http://127.0.0.1:$served_port" --num-prompts $n \
      --concurrency $c --input-len 32 --output-len 256 --vocab-size 4000 --extra-body "$extra" --json \
      > "$out/$kind-c$c.json" 2> "$out/$kind-c$c.err"
    echo "$kind c=$c rc=$? $(python3 -c '
import json,sys; d=json.load(open(sys.argv[1]))
print(f"ok {d["requests_ok"]}/{d["num_prompts"]}, {d["output_tok_s"]:.0f} tok/s, TPOT median {d["tpot_ms"]["median"]:.3f} ms, tokens {d["output_tokens"]}")' "$out/$kind-c$c.json" 2>/dev/null)"
  done
done
kill "$served_pid"; wait "$served_pid" 2>/dev/null
