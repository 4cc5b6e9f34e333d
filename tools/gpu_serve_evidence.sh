#!/usr/bin/env bash
# Served throughput on a GPU machine (issue #14): `vt bench serve` against `vt serve --backend cuda`
# (streamed /v1/completions over HTTP, token-id prompts) beside `vt bench decode` of the same shapes in
# the same job, on dummy qwen3-1.7b and llama3-8b at c = 1, 8, 64, 256. JSON per run under OUT_DIR.
#
# Usage: bash tools/gpu_serve_evidence.sh BIN_DIR OUT_DIR [PARTS]
#   PARTS: comma-separated model names (default qwen3-1.7b,llama3-8b), and `mix`: issue #16's mix on
#   qwen3-1.7b, 8 clients with 8k-token prompts beside 8 with 128-token prompts (c = 16), against two
#   decode-only TPOTs: 16 clients with short prompts alone, and the engine's decode-only steps with the
#   8 long requests alone (`vt bench decode`, all 8 decoding), a lower bound of the mix's own
#   decode-only step: it carries those 8 and 8 more. BIN_DIR packed as for tools/gpu_e2e_evidence.sh.
set -uo pipefail
default_parts=qwen3-1.7b,llama3-8b
source "$(dirname "$0")/gpu_evidence_common.sh" "$@"
source "$root/tests/engine/server/serve_wait.sh"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
input=128 output=128 levels="1 8 64 256"

for model in qwen3-1.7b llama3-8b; do
  want "$model" || continue
  # The engine alone: the same shapes, all c requests at once, and the server's step budget (8192).
  timeout -k 5 300 "$bin/vt" bench decode --backend cuda --load-format dummy --model "preset:$model" \
    --input-len $input --output-len $output --concurrency 1,8,64,256 --max-num-batched-tokens 8192 --json \
    > "$out/decode-$model.json" 2> "$out/decode-$model.err"
  echo "decode $model rc=$?"
  # The same through HTTP: the server sized for 256 running requests of this length, greedy as
  # `vt bench decode` is (an OpenAI request without a temperature samples at 1.0: a different step).
  start_serve "$bin/vt" "$out/serve-$model.log" --backend cuda --load-format dummy --model "preset:$model" \
    --max-num-seqs 256 --max-model-len $((input + output))
  for c in $levels; do
    n=$((c * 4 > 64 ? c * 4 : 64))
    timeout -k 5 300 "$bin/vt" bench serve --base-url "http://127.0.0.1:$served_port" --num-prompts $n \
      --concurrency $c --input-len $input --output-len $output --vocab-size 32000 \
      --extra-body '{"temperature":0}' --json > "$out/serve-$model-c$c.json" 2> "$out/serve-$model-c$c.err"
    echo "serve $model c=$c rc=$?"
  done
  kill "$served_pid"; wait "$served_pid" 2>/dev/null
done

if want mix; then
  start_serve "$bin/vt" "$out/serve-mix.log" --backend cuda --load-format dummy --model preset:qwen3-1.7b \
    --max-num-seqs 16 --max-model-len 8448
  base="http://127.0.0.1:$served_port"
  timeout -k 5 300 "$bin/vt" bench serve --base-url "$base" --num-prompts 64 --concurrency 16 --input-len 128 \
    --output-len 64 --vocab-size 32000 --json > "$out/mix-short-alone.json" 2> "$out/mix-short-alone.err"
  echo "mix: short alone rc=$?"
  timeout -k 5 300 "$bin/vt" bench serve --base-url "$base" --num-prompts 24 --concurrency 8 --input-len 8192 \
    --output-len 64 --vocab-size 32000 --seed 1 --json > "$out/mix-long.json" 2> "$out/mix-long.err" &
  long=$!
  timeout -k 5 300 "$bin/vt" bench serve --base-url "$base" --num-prompts 48 --concurrency 8 --input-len 128 \
    --output-len 64 --vocab-size 32000 --seed 2 --json > "$out/mix-short.json" 2> "$out/mix-short.err"
  echo "mix: short beside long rc=$?"
  wait $long; echo "mix: long rc=$?"
  kill "$served_pid"; wait "$served_pid" 2>/dev/null
  timeout -k 5 300 "$bin/vt" bench decode --backend cuda --load-format dummy --model preset:qwen3-1.7b \
    --input-len 8192 --output-len 64 --concurrency 8 --max-num-batched-tokens 65536 \
    --max-prefill-beside-decodes 65536 --json > "$out/mix-long-decode-only.json" 2> "$out/mix-long-decode-only.err"
  echo "mix: long decode-only rc=$?"
  python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
alone = json.load(open(f"{out}/mix-short-alone.json"))["tpot_ms"]["median"]
long_only = json.load(open(f"{out}/mix-long-decode-only.json"))["results"][0]["decode_itl_ms"]["median"]
for name in ("mix-short", "mix-long"):
    d = json.load(open(f"{out}/{name}.json"))
    t = d["tpot_ms"]
    print(f"{name}: ok {d['requests_ok']}/{d['num_prompts']}, TPOT median {t['median']:.2f} p99 {t['p99']:.2f} ms, "
          f"ITL p99 {d['itl_ms']['p99']:.2f} ms, TTFT median {d['ttft_ms']['median']:.1f} ms; "
          f"TPOT p99 / short-only decode TPOT {t['p99'] / alone:.2f}, / the long requests' decode-only step "
          f"{t['p99'] / long_only:.2f}")
print(f"decode-only: short prompts alone (c = 16, served) TPOT median {alone:.2f} ms; "
      f"the 8 long requests alone (engine, all decoding) step median {long_only:.2f} ms")
PY
fi

python3 - "$out" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
print("| model | c | decode tok/s | served tok/s | served / decode | decode TTFT p50 | served TTFT p50 | served failed |")
print("|---|---|---|---|---|---|---|---|")
for model in ("qwen3-1.7b", "llama3-8b"):
    try:
        decode = {r["concurrency"]: r for r in json.load(open(f"{out}/decode-{model}.json"))["results"]}
    except Exception:
        continue
    for c in (1, 8, 64, 256):
        path = f"{out}/serve-{model}-c{c}.json"
        if not os.path.exists(path) or c not in decode:
            continue
        try:
            s = json.load(open(path))
        except Exception:
            continue
        d = decode[c]
        print(f"| {model} | {c} | {d['output_tokens_per_s']:.0f} | {s['output_tok_s']:.0f} | "
              f"{s['output_tok_s'] / d['output_tokens_per_s']:.3f} | {d['ttft_ms']['median']:.1f} ms | "
              f"{s['ttft_ms']['median']:.1f} ms | {s['requests_failed']} |")
PY
