#!/usr/bin/env bash
# json_schema (the evidence script's nested schema) against free requests replaying its lengths, c = 64,
# 1024 requests, after a discarded warm-up, and the schema run again after the free one.
set -uo pipefail
default_parts=all; source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" > /dev/null
source tests/engine/server/serve_wait.sh
schema='{"type": "object", "properties": {
  "id": {"type": "integer"}, "name": {"type": "string", "maxLength": 24},
  "level1": {"type": "object", "properties": {
    "tags": {"type": "array", "items": {"enum": ["alpha", "beta", "gamma"]}, "maxItems": 3},
    "level2": {"type": "object", "properties": {"score": {"type": "number"}, "ok": {"type": "boolean"},
      "note": {"type": "string"}}, "required": ["score", "ok", "note"]}},
    "required": ["tags", "level2"]}},
  "required": ["id", "name", "level1"]}'
body="{\"ignore_eos\": false, \"response_format\": {\"type\": \"json_schema\", \"json_schema\": {\"name\": \"nested\", \"schema\": $schema}}}"
dir=$(mktemp -d); cp .gpu/qwen3-tokenizer.json "$dir/tokenizer.json"
cat > "$dir/config.json" <<'JSON'
{"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 2048, "intermediate_size": 6144,
 "num_hidden_layers": 28, "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128,
 "vocab_size": 151936, "max_position_embeddings": 40960, "rms_norm_eps": 1e-06, "rope_theta": 1000000,
 "tie_word_embeddings": true, "torch_dtype": "bfloat16", "bos_token_id": 151643, "eos_token_id": 151645,
 "hidden_act": "silu", "attention_bias": false}
JSON
start_serve .gpu/bin/vt "$OUT/ev/schema-serve.log" --backend cuda --model "$dir" --load-format dummy --max-num-seqs 64 --max-model-len 512 || exit 1
bench() {  # bench OUT N BODY [more args]
  local o=$1 n=$2 b=$3; shift 3
  timeout -k 5 100 .gpu/bin/vt bench serve --base-url "http://127.0.0.1:$served_port" --num-prompts $n --concurrency 64 \
    --input-len 32 --output-len 256 --vocab-size 150000 --extra-body "$b" "$@" --json > "$o.json" 2> "$o.err"
}
o="$OUT/ev/schema-c64"
bench "$o-warmup" 256 "$body"
bench "$o-schema" 1024 "$body"
bench "$o-free" 1024 '{"ignore_eos": true}' --output-lens-from "$o-schema.json"
bench "$o-schema2" 1024 "$body"
kill "$served_pid"; wait "$served_pid" 2>/dev/null
python3 - "$o" <<'PY'
import json,sys
j=json.load(open(sys.argv[1]+'-schema.json')); f=json.load(open(sys.argv[1]+'-free.json')); j2=json.load(open(sys.argv[1]+'-schema2.json'))
print(f"json_schema c=64: schema {j['output_tok_s']:.0f} free {f['output_tok_s']:.0f} schema2 {j2['output_tok_s']:.0f} tok/s; cost {100*(1-j['output_tok_s']/f['output_tok_s']):.2f}% (schema2 {100*(1-j2['output_tok_s']/f['output_tok_s']):.2f}%)  "
      f"TPOT {j['tpot_ms']['median']:.3f}/{f['tpot_ms']['median']:.3f}/{j2['tpot_ms']['median']:.3f} ms  ITL p99 {j['itl_ms']['p99']:.2f}/{f['itl_ms']['p99']:.2f}/{j2['itl_ms']['p99']:.2f}  tokens {j['output_tokens']}/{f['output_tokens']}/{j2['output_tokens']} ok {j['requests_ok']}/{f['requests_ok']}/{j2['requests_ok']}")
PY
grep -c 'graph' "$OUT/ev/schema-serve.log"; head -3 "$OUT/ev/schema-serve.log"
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
