#!/usr/bin/env bash
# Grammar cost A/B (issue #15): the base binary (a3dda38) against this one, json_object vs free
# requests replaying each json request's length, c = 64 three rounds alternating, c = 1 once; and the
# json_object mask cost on this host's CPU.
set -uo pipefail
default_parts=all; source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" > /dev/null
source tests/engine/server/serve_wait.sh
cp .gpu/bin/vt .gpu/bin/vt-new
# The cuda-gencode job's cuobjdump step (this development machine has no cuobjdump): the SMs embedded in the CUDA library.
(export PATH=/usr/local/cuda/bin:$PATH; cuobjdump --list-elf .gpu/lib/libvt_kernels_cuda.a > "$OUT/ev/libvt_kernels_cuda.elf.txt" 2> "$OUT/ev/cuobjdump.err"; echo "cuobjdump rc=$? $(wc -l < "$OUT/ev/libvt_kernels_cuda.elf.txt") lines; $(cuobjdump --version | tail -1)")
export VT_DEFAULT_MODEL="$PWD/assets/models/fortune-qwen3-7m" VT_SOURCE_DIR="$PWD"
true || timeout 150 .gpu/bin/vt_gpu_engine_tests --gtest_filter='CudaEngine.GrammarMasks*:CudaEngine.Penalties*:CudaEngine.Seeded*:*Sampl*:*Mask*' > "$OUT/ev/engine.log" 2>&1; echo "engine rc=$?"
grep -E '^\[  (FAILED|PASSED|SKIPPED) |Failure' "$OUT/ev/engine.log" | head
true || timeout 100 .gpu/bin/vt_gpu_forward_ops_tests > "$OUT/ev/ops.log" 2>&1; echo "forward ops rc=$?"; grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure" "$OUT/ev/ops.log" | head
echo '{"type":"object"}' > "$OUT/ev/object.json"
.gpu/bin/vt bench grammar --tokenizer .gpu/qwen3-tokenizer.json --schema "$OUT/ev/object.json" --steps 800 --documents 64 --seed 3 2>&1 | tail -2
nproc; lscpu | grep 'Model name'
dir=$(mktemp -d); cp .gpu/qwen3-tokenizer.json "$dir/tokenizer.json"
cat > "$dir/config.json" <<'JSON'
{"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 2048, "intermediate_size": 6144,
 "num_hidden_layers": 28, "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128,
 "vocab_size": 151936, "max_position_embeddings": 40960, "rms_norm_eps": 1e-06, "rope_theta": 1000000,
 "tie_word_embeddings": true, "torch_dtype": "bfloat16", "bos_token_id": 151643, "eos_token_id": 151645,
 "hidden_act": "silu", "attention_bias": false}
JSON
run_json() {  # run_json OUT N
  timeout -k 5 120 .gpu/bin/vt bench serve --base-url "http://127.0.0.1:$served_port" --num-prompts $2 --concurrency 64 \
    --input-len 32 --output-len 256 --vocab-size 150000 --extra-body '{"ignore_eos": false, "response_format": {"type": "json_object"}}' \
    --json > "$1.json" 2> "$1.err"
}
pair() {  # pair BIN ROUND C N: a warm-up json run (discarded), json, free replaying json's lengths, json again
  local b=$1 r=$2 c=$3 n=$4 o="$OUT/ev/$1-r$2-c$3"
  run_json "$o-warmup" 256
  run_json "$o-json" $n
  timeout -k 5 120 .gpu/bin/vt bench serve --base-url "http://127.0.0.1:$served_port" --num-prompts $n --concurrency $c \
    --input-len 32 --output-len 256 --output-lens-from "$o-json.json" --vocab-size 150000 --extra-body '{"ignore_eos": true}' \
    --json > "$o-free.json" 2> "$o-free.err"
  run_json "$o-json2" $n
  python3 - "$o" "$b r$r c=$c" <<'PY'
import json,sys
j=json.load(open(sys.argv[1]+'-json.json')); f=json.load(open(sys.argv[1]+'-free.json')); j2=json.load(open(sys.argv[1]+'-json2.json'))
print(f"{sys.argv[2]}: json {j['output_tok_s']:.0f} free {f['output_tok_s']:.0f} json2 {j2['output_tok_s']:.0f} tok/s; cost {100*(1-j['output_tok_s']/f['output_tok_s']):.2f}% (json2 {100*(1-j2['output_tok_s']/f['output_tok_s']):.2f}%)  "
      f"TPOT {j['tpot_ms']['median']:.3f}/{f['tpot_ms']['median']:.3f}/{j2['tpot_ms']['median']:.3f} ms  ITL med {j['itl_ms']['median']:.3f}/{f['itl_ms']['median']:.3f}/{j2['itl_ms']['median']:.3f} p99 {j['itl_ms']['p99']:.2f}/{f['itl_ms']['p99']:.2f}/{j2['itl_ms']['p99']:.2f}  "
      f"tokens {j['output_tokens']}/{f['output_tokens']}/{j2['output_tokens']} ok {j['requests_ok']}/{f['requests_ok']}/{j2['requests_ok']}")
PY
}
for r in 1 2; do
  for b in vt-base vt-new; do
    [ $SECONDS -gt 230 ] && break 2
    start_serve ".gpu/bin/$b" "$OUT/ev/$b-r$r-serve.log" --backend cuda --model "$dir" --load-format dummy --max-num-seqs 64 --max-model-len 512 || continue
    pair $b $r 64 1024
    kill "$served_pid"; wait "$served_pid" 2>/dev/null
  done
done
# Kernel times of the masking and the draw (ncu, those kernels only), json_object at c = 64.
if [ $SECONDS -lt 200 ]; then
timeout 110 ncu --kernel-name regex:'MaskRows|SampleRows|ArgmaxRows' --launch-skip 200 --launch-count 60 --csv --metrics gpu__time_duration.sum \
  .gpu/bin/vt-new serve --port 0 --backend cuda --model "$dir" --load-format dummy --max-num-seqs 64 --max-model-len 512 > "$OUT/ev/ncu.csv" 2> "$OUT/ev/ncu.err" &
ncu_pid=$!
for i in $(seq 90); do port=$(cat "$OUT/ev/ncu.err" "$OUT/ev/ncu.csv" 2>/dev/null | sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\).*|\1|p' | head -1); [ -n "$port" ] && curl -sf "http://127.0.0.1:$port/health" > /dev/null && break; sleep 1; done
echo "ncu server port=$port"
timeout 60 .gpu/bin/vt bench serve --base-url "http://127.0.0.1:$port" --num-prompts 128 --concurrency 64 --input-len 32 --output-len 64 --vocab-size 150000 \
  --extra-body '{"ignore_eos": false, "response_format": {"type": "json_object"}}' --json > "$OUT/ev/ncu-bench.json" 2> "$OUT/ev/ncu-bench.err"
pkill -f 'vt-new serve'; for i in $(seq 20); do kill -0 $ncu_pid 2>/dev/null || break; sleep 1; done; kill -9 $ncu_pid 2>/dev/null; wait
fi
python3 - "$OUT/ev/ncu.csv" <<'PY'
import csv,io,sys,collections
import os
t=open(sys.argv[1]).read() if os.path.exists(sys.argv[1]) else ''; i=t.find('"ID"')
d=collections.defaultdict(list)
if i>=0:
  for r in csv.DictReader(io.StringIO(t[i:])):
    if r.get("Metric Name")!="gpu__time_duration.sum": continue
    v=float(r["Metric Value"].replace(",","")); u=r.get("Metric Unit","")
    us=v/1000 if u=="nsecond" else v if u=="usecond" else v*1000
    d[r["Kernel Name"].split("(")[0][:60]].append(us)
for k,v in d.items(): v.sort(); print(f"{k}: n={len(v)} median {v[len(v)//2]:.1f} us max {v[-1]:.1f}")
PY
which perf gdb py-spy 2>&1 | head -3
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
