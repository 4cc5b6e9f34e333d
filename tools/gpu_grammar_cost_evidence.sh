#!/usr/bin/env bash
# What a grammar costs on a GPU (issue #15): `vt bench serve` against `vt serve --backend cuda`, the
# same requests free, with `response_format: json_object` and with a nested `json_schema`, at c = 1
# and 64, and free again cut at the json run's mean length (`free-at-json-length`: constrained requests
# end early at EOS, which changes the mix of prefills and decodes) and at each json request's own length
# (`free-at-json-lengths`, `vt bench serve --output-lens-from`: the same lengths in the same order, so
# tok/s and TPOT compare like for like), the same for the schema (`free-at-schema-lengths`), and each
# constrained kind again after its free replay (`json-again`, `schema-again`): a server's first runs are
# slower (a short cold json-first run measured the order as grammar cost), so every server first serves
# a discarded warm-up and each constrained run is compared with the free run on both sides of it.
# TPOT and ITL (medians) and tok/s are the comparison. JSON per run under OUT_DIR/MODEL_NAME.
#
# Usage: bash tools/gpu_grammar_cost_evidence.sh BIN_DIR OUT_DIR [MODELS]   (BIN_DIR packed as for
#   tools/gpu_e2e_evidence.sh). MODELS: comma-separated, of
#   embedded     the embedded model (its own 4,096-token tokenizer), real weights
#   qwen3-1.7b   dummy weights of Qwen3-1.7B's shapes with Qwen3's 151,669-token tokenizer, read
#                from $QWEN3_TOKENIZER (a tokenizer.json)
# GRAMMAR_ROUNDS=N (default 1) runs the c = 64 sequence N times against the same server, round r > 1
# under OUT_DIR/MODEL_NAME/round<r>/: whether a cost is the grammar's or the run order's shows as the
# spread between rounds. GRAMMAR_CONCURRENCY (default "1 64") picks the concurrencies; VT (default
# BIN_DIR/vt) the server binary, for an A/B of two builds.
set -uo pipefail
default_parts=embedded,qwen3-1.7b
source "$(dirname "$0")/gpu_evidence_common.sh" "$1" "$2" "${3:-}"
source "$root/tests/engine/server/serve_wait.sh"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"

nested_schema='{"type": "object", "properties": {
  "id": {"type": "integer"}, "name": {"type": "string", "maxLength": 24},
  "level1": {"type": "object", "properties": {
    "tags": {"type": "array", "items": {"enum": ["alpha", "beta", "gamma"]}, "maxItems": 3},
    "level2": {"type": "object", "properties": {"score": {"type": "number"}, "ok": {"type": "boolean"},
      "note": {"type": "string"}}, "required": ["score", "ok", "note"]}},
    "required": ["tags", "level2"]}},
  "required": ["id", "name", "level1"]}'

# measure NAME VOCAB SERVE_ARGS...: one server, every kind at c = 1 and 64.
measure() {
  local name=$1 vocab=$2
  shift 2
  mkdir -p "$out/$name"
  start_serve "${VT:-$bin/vt}" "$out/$name/serve.log" --backend cuda "$@" --max-num-seqs 64 --max-model-len 512 || return
  local json_body='{"ignore_eos": false, "response_format": {"type": "json_object"}}'
  local schema_body="{\"ignore_eos\": false, \"response_format\": {\"type\": \"json_schema\",
        \"json_schema\": {\"name\": \"nested\", \"schema\": $nested_schema}}}"
  timeout -k 5 240 "$bin/vt" bench serve --base-url "http://127.0.0.1:$served_port" --num-prompts 256 --concurrency 64 \
    --input-len 32 --output-len 256 --vocab-size "$vocab" --extra-body "$json_body" --json > "$out/$name/warm-up.json" 2>&1
  local rounds=${GRAMMAR_ROUNDS:-1} runs=() r c
  for c in ${GRAMMAR_CONCURRENCY:-1 64}; do
    runs+=("$c 1")
    if [ "$c" = 64 ]; then for ((r = 2; r <= rounds; ++r)); do runs+=("64 $r"); done; fi
  done
  for run in "${runs[@]}"; do
    local c=${run% *} round=${run#* } dir="$out/$name"
    [ "$round" = 1 ] || { dir="$out/$name/round$round"; mkdir -p "$dir"; }
    local n=$((c == 1 ? 16 : 1024))
    for kind in free json schema free-at-json-length free-at-json-lengths json-again free-at-schema-lengths schema-again; do
      local extra='{"ignore_eos": false}' length=256 replay=()
      [ $kind = json ] || [ $kind = json-again ] && extra=$json_body
      [ $kind = schema ] || [ $kind = schema-again ] && extra=$schema_body
      # Constrained requests end at EOS once their JSON is complete; free ones cut at the json run's mean
      # length see a like-for-like mix of prefills and decodes.
      [ $kind = free-at-json-length ] && length=$(python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); print(max(1, round(d["output_tokens"] / d["num_prompts"])))' \
        "$dir/json-c$c.json")
      # ... and free requests each cut at its counterpart's length in the json (schema) run (same seed,
      # same prompts, the same order): the same mix of lengths, so TPOT and tok/s compare too.
      if [ $kind = free-at-json-lengths ] || [ $kind = free-at-schema-lengths ]; then
        local of=${kind#free-at-}
        replay=(--output-lens-from "$dir/${of%-lengths}-c$c.json")  # the json or the schema run
        extra='{"ignore_eos": true}'  # each request runs to its counterpart's length, not to an EOS
      fi
      timeout -k 5 240 "$bin/vt" bench serve --base-url "http://127.0.0.1:$served_port" --num-prompts $n \
        --concurrency $c --input-len 32 --output-len "$length" "${replay[@]}" --vocab-size "$vocab" --extra-body "$extra" --json \
        > "$dir/$kind-c$c.json" 2> "$dir/$kind-c$c.err"
      echo "$name $kind c=$c round $round rc=$? $(python3 -c '
import json,sys; d=json.load(open(sys.argv[1]))
print(f"ok {d["requests_ok"]}/{d["num_prompts"]}, {d["output_tok_s"]:.0f} tok/s, TPOT median {d["tpot_ms"]["median"]:.3f} ms, ITL median {d["itl_ms"]["median"]:.3f} ms, tokens {d["output_tokens"]}")' "$dir/$kind-c$c.json" 2>/dev/null)"
    done
  done
  kill "$served_pid"
  wait "$served_pid" 2>/dev/null
}

if want embedded; then measure embedded 4000 --model "$root/assets/models/fortune-qwen3-7m"; fi
if want qwen3-1.7b; then
  dir=$(mktemp -d)
  cp "${QWEN3_TOKENIZER:?set QWEN3_TOKENIZER to Qwen3s tokenizer.json}" "$dir/tokenizer.json"
  cat > "$dir/config.json" <<'JSON'
{"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 2048, "intermediate_size": 6144,
 "num_hidden_layers": 28, "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128,
 "vocab_size": 151936, "max_position_embeddings": 40960, "rms_norm_eps": 1e-06, "rope_theta": 1000000,
 "tie_word_embeddings": true, "torch_dtype": "bfloat16", "bos_token_id": 151643, "eos_token_id": 151645,
 "hidden_act": "silu", "attention_bias": false}
JSON
  measure qwen3-1.7b 150000 --model "$dir" --load-format dummy
fi
