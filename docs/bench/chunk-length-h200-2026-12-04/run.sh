#!/usr/bin/env bash
# Session run 1: (a) the W4A16 suite and memcheck on the tiled/dequant tests (owed from ab5f80b/53121d4);
# (b) decode attention chunk-length sweep (persist arm) with fixed chunks against auto;
# (c) qwen3-1.7b 8k decode-only c=8 and c=1 with fixed chunks against auto.
default_parts=all
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout -k 5 240 "$bin/vt_gpu_w4a16_tests" > "$out/w4a16_tests.log" 2>&1; echo "w4a16 rc=$?"; tail -3 "$out/w4a16_tests.log"
timeout -k 5 240 compute-sanitizer --tool memcheck "$bin/vt_gpu_w4a16_tests" --gtest_filter='*Tile*:*Dequant*' > "$out/w4a16_memcheck.log" 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|PASSED|FAILED" "$out/w4a16_memcheck.log" | tail -3
for split in auto 256 512 1024; do
  timeout -k 5 120 "$bin/vt" bench attention --arms persist --split $split --shapes qwen3-1.7b llama3-8b \
    --batches 1 8 64 --contexts 4096 8192 16384 --json > "$out/att-split-$split.json" 2> "$out/att-split-$split.err"
  echo "att split=$split rc=$?"
done
python3 - "$out" <<'PY'
import json, sys, os
d = sys.argv[1]; rows = {}
for s in ["auto", "256", "512", "1024"]:
    try: j = json.load(open(f"{d}/att-split-{s}.json"))
    except Exception as e: print(s, "no json", e); continue
    res = j["results"] if isinstance(j, dict) and "results" in j else j
    for r in res:
        k = (r.get("shape"), r.get("batch"), r.get("context"))
        rows.setdefault(k, {})[s] = r
for k, v in sorted(rows.items(), key=lambda kv: (kv[0][0] or "", kv[0][1] or 0, kv[0][2] or 0)):
    print(k, {s: (round(r.get("us", r.get("median_us", 0)), 1) if isinstance(r, dict) else r) for s, r in v.items()})
PY
head -c 1500 "$out/att-split-auto.json"; echo
for split in auto 512 1024; do
  for c in 8 1; do
    VT_ATTN_SPLIT=$split timeout -k 5 200 "$bin/vt" bench decode --backend cuda --load-format dummy --model preset:qwen3-1.7b \
      --input-len 8192 --output-len 64 --concurrency $c --max-num-batched-tokens $((8*8192)) --max-prefill-beside-decodes $((8*8192)) \
      --json > "$out/e2e-q8k-c$c-split-$split.json" 2> "$out/e2e-q8k-c$c-split-$split.err"
    python3 -c "
import json,sys; j=json.load(open('$out/e2e-q8k-c$c-split-$split.json'))
for r in j['results']: print('split $split c=$c', 'tok/s %.0f'%r['output_tokens_per_s'], 'decode ITL med', r['decode_itl_ms']['median'], 'p99', r['decode_itl_ms']['p99'], 'roof TPOT %.2f'%(r['concurrency']/r['roofline_tokens_per_s']*1e3))" || tail -3 "$out/e2e-q8k-c$c-split-$split.err"
  done
done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
