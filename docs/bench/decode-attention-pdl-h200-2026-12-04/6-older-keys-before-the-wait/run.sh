# Older keys read before the dependent-launch wait (vt), against the schedule-only build (vt_sched, b4bc5b2) and 713aecc (vt_head).
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
t0=$(date +%s)
timeout -k 5 120 "$bin/vt_gpu_attention_tests" --gtest_filter='PersistentDependentLaunch.*' > "$out/suite-attention-new.log" 2>&1
echo "new test rc=$? $(grep -E '^\[  PASSED|^\[  FAILED|Failure' "$out/suite-attention-new.log" | tr '\n' ' ')"
att() {  # label binary [flags]
  local label=$1 b=$2; shift 2
  timeout -k 5 150 "$bin/$b" bench attention --arms persist --shapes qwen3-1.7b,llama3-8b --batches 1,2,4,8 \
    --contexts 4096,8192,16384 --json "$@" > "$out/att-$label.json" 2> "$out/att-$label.err"
  python3 -c "
import json; j=json.load(open('$out/att-$label.json'))
print('$label', ' '.join('%s/B%d/%d=%.1f' % (r['shape'][:5], r['batch'], r['context'], r.get('us',0)) for r in j['rows']))" 2>&1 | tail -1
}
for round in 1 2; do
  att new-pdl-$round vt --dependent-launch; att sched-pdl-$round vt_sched --dependent-launch
  att new-$round vt; att head-$round vt_head
done
timeout -k 5 120 python3 tools/sdpa_decode_anchor.py --shapes qwen3-1.7b,llama3-8b --batches 1,2,4,8 --contexts 4096,8192,16384 \
  > "$out/sdpa.txt" 2>&1; tail -30 "$out/sdpa.txt"
summ() { python3 -c "
import json,sys; j=json.load(open('$1'))
for r in j['results']: print('$2', 'c=%d'%r['concurrency'], 'tok/s %.1f'%r['output_tokens_per_s'], 'TPOT %.3f'%r['tpot_ms']['median'], 'ITL %.3f'%r['decode_itl_ms']['median'])" 2>&1 | tail -3; }
dec() {  # label binary args...
  local label=$1 b=$2; shift 2
  timeout -k 5 150 "$bin/$b" bench decode --backend cuda --load-format dummy --json "$@" > "$out/$label-$b.json" 2> "$out/$label-$b.err"
  summ "$out/$label-$b.json" "$label $b"
}
for round in 1 2; do for v in vt vt_sched; do
  dec q32-c1-r$round $v --model preset:qwen3-1.7b --input-len 32 --output-len 128 --concurrency 1
  dec l32-c1-r$round $v --model preset:llama3-8b --input-len 32 --output-len 128 --concurrency 1
  dec q8k-c1-r$round $v --model preset:qwen3-1.7b --input-len 8192 --output-len 64 --concurrency 1
  dec q8k-c4-r$round $v --model preset:qwen3-1.7b --input-len 8192 --output-len 64 --concurrency 4 \
    --max-num-batched-tokens $((4*8192)) --max-prefill-beside-decodes $((4*8192))
done; done
for s in attention engine; do
  t0=$(date +%s)
  timeout -k 5 200 "$bin/vt_gpu_${s}_tests" > "$out/suite-$s.log" 2>&1; echo "suite $s rc=$? $(grep -E '^\[  PASSED|^\[  FAILED' "$out/suite-$s.log" | tr '\n' ' ') ($(( $(date +%s) - t0 )) s)"
done
VT_ATTN_TEST_QUICK=1 timeout -k 5 150 compute-sanitizer --tool memcheck "$bin/vt_gpu_attention_tests" \
  --gtest_filter='PersistentDependentLaunch.*:*PersistentGivesTheGqaBits/d128_q16kv2_bs32' > "$out/memcheck.log" 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' "$out/memcheck.log" | tr '\n' ' ')"
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
