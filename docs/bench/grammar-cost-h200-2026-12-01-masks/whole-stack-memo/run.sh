set -u
root=$PWD; bin=$root/.gpu/bin
export LD_LIBRARY_PATH=$bin:$bin/fallback:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
source tests/engine/server/serve_wait.sh
dir=$(mktemp -d); cp .gpu/qwen3-tokenizer.json $dir/tokenizer.json
cat > $dir/config.json <<'JSON'
{"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 2048, "intermediate_size": 6144,
 "num_hidden_layers": 28, "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128,
 "vocab_size": 151936, "max_position_embeddings": 40960, "rms_norm_eps": 1e-06, "rope_theta": 1000000,
 "tie_word_embeddings": true, "torch_dtype": "bfloat16", "bos_token_id": 151643, "eos_token_id": 151645,
 "hidden_act": "silu", "attention_bias": false}
JSON
start_serve $bin/vt $OUT/serve.log --backend cuda --model $dir --load-format dummy --max-num-seqs 64 --max-model-len 512
run() {  # kind extra length
  $bin/vt bench serve --base-url http://127.0.0.1:$served_port --num-prompts 256 --concurrency 64 --input-len 32 \
    --output-len $3 --vocab-size 150000 --extra-body "$2" --json > $OUT/$1.json 2>/dev/null
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], f"{d["output_tok_s"]:.0f} tok/s TPOT {d["tpot_ms"]["median"]:.3f} ITL {d["itl_ms"]["median"]:.3f} p90 {d["itl_ms"]["p90"]:.3f} p99 {d["itl_ms"]["p99"]:.3f} tokens {d["output_tokens"]}")' $OUT/$1.json $1
}
J='{"ignore_eos": false, "response_format": {"type": "json_object"}}'
F='{"ignore_eos": false}'
for i in 1 2; do run json$i "$J" 256; done
run free160 "$F" 160
kill $served_pid
