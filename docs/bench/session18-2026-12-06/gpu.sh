# Eighteenth session's GPU jobs. Usage: bash docs/bench/session18-2026-12-06/gpu.sh PARTS
#   gates  the skinny GEMM / decode MLP kernel gates, the attention and engine gates
#   c4     llama3-8b c = 1-8 with the decode attention split auto / off / off on gqa / with dependent launches off
#   ncu    llama3-8b c = 4 decode steps kernel by kernel, split auto against off
#   w4a16  the W4A16 gates and the dependent-launch A/B (vt_base: before it)
#   slices the stacked form's K slices summed in the kernel: gates, sanitizers, kernel table, A/B against vt_pdl
#   trigger  dependents launched after each kernel's wait (vt) or when it ends (vt_notrigger; vt_attn_notrigger: the decode attention only)
#   short  contexts of up to 256 keys as one chunk, the unsplit attention's successor launched when it ends, against vt_head
#   long   issue #16's qwen3-1.7b 8k decode, chunks of 512 / 1024 keys against auto, and the kernel at batch 8
#   chunks 16 chunks a long context (vt) against 32 (vt_prev): kernel sweep and issue #16's decode-only steps
#   workers the persist arm's items shared by as many CTAs as there are items (vt) against vt_prev
#   e2e    the end-to-end table
#   (.gpu/pack.tar.xz: bin/vt and the vt_gpu_*_tests; extras such as bin/vt_base)
source "$(dirname "$0")/../gpu_job_lib.sh"
gpu_job_setup s18
parts=${1:-gates}
# Issue #16's decode-only steps (every prompt prefilled first, 64 output tokens), vt_prev against vt,
# two rounds: decode ITL median and p99 and TPOT median, into $o/$1.txt.
long_decode_ab() {
  local log=$o/$1 full="--max-num-batched-tokens 65536 --max-prefill-beside-decodes 65536" mc r
  for round in 1 2; do
    for bin in vt_prev vt; do
      for mc in "qwen3-1.7b 8192 1" "qwen3-1.7b 8192 8" "qwen3-1.7b 32768 1" "llama3-8b 8000 8"; do
        set -- $mc
        r=$(timeout -k 5 150 $b/$bin bench decode --backend cuda --load-format dummy --model preset:$1 --input-len $2 \
          --output-len 64 --concurrency $3 $full --json 2>>$log.err | python3 -c "import json,sys
r = json.load(sys.stdin)['results'][0]
print('itl %.3f p99 %.3f tpot %.3f ms' % (r['decode_itl_ms']['median'], r['decode_itl_ms']['p99'], r['tpot_ms']['median']))")
        echo "$1 $2 c=$3 $bin round $round: $r" | tee -a $log.txt
      done
    done
  done
}
if [[ $parts == *gates* ]]; then
  timeout -k 5 240 $b/vt_gpu_prefill_gemm_tests --gtest_filter='DecodeMlp.*:SkinnyGemm.*' > $o/kernel.log 2>&1
  echo "kernel rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $o/kernel.log | tr '\n' ' ')"
  grep -E "Failure|FAILED|error" $o/kernel.log | head -20
  timeout -k 5 200 $b/vt_gpu_attention_tests > $o/attention.log 2>&1
  echo "attention rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $o/attention.log | tr '\n' ' ')"
  timeout -k 5 300 $b/vt_gpu_engine_tests > $o/engine.log 2>&1
  echo "engine rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $o/engine.log | tr '\n' ' ')"
  grep -E "Failure|FAILED|error" $o/engine.log | head -20
fi
if [[ $parts == *c4* ]]; then
  for e in VT_ATTN_SPLIT=auto VT_ATTN_SPLIT=off "VT_ATTN_SPLIT=off VT_ATTN_DECODE=gqa" "VT_ATTN_SPLIT=auto VT_PDL=0" \
    "VT_ATTN_SPLIT=off VT_PDL=0" VT_ATTN_SPLIT=auto; do
    r=$(env $e timeout -k 5 120 $b/vt bench decode $short --model preset:llama3-8b --concurrency 1,2,4,8 --json 2>>$o/c4.err | tok_s)
    echo "llama3-8b 32/128 $e: $r" | tee -a $o/c4.txt
    r=$(env $e timeout -k 5 120 $b/vt bench decode --backend cuda --load-format dummy --input-len 32 --output-len 100 \
      --model preset:llama3-8b --concurrency 4 --json 2>>$o/c4.err | tok_s)
    echo "llama3-8b 32/100 $e: $r" | tee -a $o/c4.txt
  done
fi
if [[ $parts == *ncu* ]]; then
  for sp in auto off; do
    VT_ATTN_SPLIT=$sp timeout -k 5 200 ncu --clock-control none --graph-profiling node \
      --metrics gpu__time_duration.sum,dram__bytes_read.sum,launch__grid_size,launch__block_size --csv --page raw \
      $b/vt bench decode --backend cuda --load-format dummy --input-len 136 --output-len 4 --model preset:llama3-8b --concurrency 4 > $o/ncu-c4-$sp.csv 2> $o/ncu-c4-$sp.err
    echo "ncu $sp rc=$?"
    python3 tools/ncu_step_timeline.py $o/ncu-c4-$sp.csv --copy-gb-s 4018 > $o/c4-$sp-timeline.txt 2>&1
    head -30 $o/c4-$sp-timeline.txt
  done
  gzip $o/ncu-c4-*.csv
fi
if [[ $parts == *w4a16* ]]; then
  timeout -k 5 300 $b/vt_gpu_w4a16_tests > $o/w4a16-tests.log 2>&1
  echo "w4a16 tests rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $o/w4a16-tests.log | tr '\n' ' ')"
  grep -E "Failure|FAILED" $o/w4a16-tests.log | head -20
  for round in 1 2; do
    for bin in vt_base vt; do
      r=$(timeout -k 5 150 $b/$bin bench decode $short --model preset:llama3-8b-gptq --concurrency 1,2,4,8 --json 2>>$o/w4a16-e2e.err | tok_s)
      echo "llama3-8b-gptq $bin round $round: $r" | tee -a $o/w4a16-e2e.txt
    done
  done
fi
if [[ $parts == *slices* ]]; then  # the stacked form's slices summed in the kernel (vt) against a second kernel (vt_pdl)
  timeout -k 5 300 $b/vt_gpu_w4a16_tests > $o/w4a16-tests.log 2>&1
  echo "w4a16 tests rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $o/w4a16-tests.log | tr '\n' ' ')"
  grep -E "Failure|FAILED" $o/w4a16-tests.log | head -20
  for tool in memcheck racecheck; do
    timeout -k 5 200 compute-sanitizer --tool $tool --error-exitcode 9 $b/vt_gpu_w4a16_tests \
      --gtest_filter='W4A16.Stacked*:W4A16.DependentLaunches*' > $o/sanitizer-$tool.txt 2>&1
    echo "sanitizer $tool rc $? $(tail -1 $o/sanitizer-$tool.txt)"
  done
  for bin in vt_pdl vt; do
    timeout -k 5 120 $b/$bin bench w4a16 --forms stack --ms 1,2 \
      --shapes 4096x4096,4096x6144,4096x28672,14336x4096,8192x8192,8192x28672 > $o/w4a16-$bin.txt 2>&1
    echo "bench $bin rc $?"; cat $o/w4a16-$bin.txt
  done
  for round in 1 2; do
    for bin in vt_base vt_pdl vt; do
      r=$(timeout -k 5 150 $b/$bin bench decode $short --model preset:llama3-8b-gptq --concurrency 1,2,4 --json 2>>$o/slices-e2e.err | tok_s)
      echo "llama3-8b-gptq $bin round $round: $r" | tee -a $o/slices-e2e.txt
    done
  done
fi
if [[ $parts == *trigger* ]]; then  # dependents launched right after the wait (vt) or at the end of every kernel / of the attention's
  for m in qwen3-1.7b llama3-8b; do
    for sp in auto off; do
      for bin in vt vt_notrigger vt_attn_notrigger; do
        r=$(VT_ATTN_SPLIT=$sp timeout -k 5 100 $b/$bin bench decode $short --model preset:$m --concurrency 1,2,4 --json 2>>$o/trigger.err | tok_s)
        echo "$m split=$sp $bin: $r" | tee -a $o/trigger.txt
      done
    done
  done
fi
if [[ $parts == *short* ]]; then  # contexts of up to 256 keys as one chunk, the unsplit attention's successor launched when it ends (vt) against vt_head
  for round in 1 2; do
    for m in qwen3-1.7b llama3-8b; do
      for bin in vt_head vt; do
        r=$(timeout -k 5 150 $b/$bin bench decode $short --model preset:$m --concurrency 1,2,4,8,64 --json 2>>$o/short.err | tok_s)
        echo "$m $bin round $round: $r" | tee -a $o/short.txt
      done
    done
  done
fi
if [[ $parts == *long* ]]; then  # issue #16's qwen3-1.7b 8k decode at c = 1 and 8 with fixed chunks of 512 / 1024 keys against auto
  itl() { python3 -c "import json,sys; d=json.load(sys.stdin); print(' '.join('c=%d tpot %.3f itl %.3f ms' % (r['concurrency'], r['tpot_ms']['median'], r['decode_itl_ms']['median']) for r in d['results']))"; }
  for round in 1 2; do
    for sp in auto 512 1024; do
      r=$(VT_ATTN_SPLIT=$sp timeout -k 5 150 $b/vt bench decode --backend cuda --load-format dummy --model preset:qwen3-1.7b \
        --input-len 8192 --output-len 64 --concurrency 1,8 --json 2>>$o/long.err | itl)
      echo "qwen3-1.7b 8k split=$sp round $round: $r" | tee -a $o/long.txt
    done
  done
  timeout -k 5 120 $b/vt bench attention --arms persist --split auto --batches 8 --contexts 4096,8192,16384 \
    --shapes qwen3-1.7b,llama3-8b --dependent-launch > $o/attn-b8-auto.txt 2>&1
  for sp in 512 1024; do
    timeout -k 5 120 $b/vt bench attention --arms persist --split $sp --batches 8 --contexts 4096,8192,16384 \
      --shapes qwen3-1.7b,llama3-8b --dependent-launch > $o/attn-b8-$sp.txt 2>&1
  done
  tail -n +1 $o/attn-b8-*.txt | grep -v '^$' | head -40
fi
if [[ $parts == *chunks* ]]; then  # 16 chunks a long context (vt) against 32 (vt_prev): the kernel, and issue #16's decode-only steps
  for bin in vt_prev vt; do
    timeout -k 5 150 $b/$bin bench attention --arms persist --split auto --batches 1,4,8,16 \
      --contexts 2048,3072,4096,8192,16384,32768 --shapes qwen3-1.7b,llama3-8b --dependent-launch --json \
      > $o/chunks-$bin.json 2>> $o/chunks.err; echo "attention $bin rc $?"
  done
  python3 - $o <<'PY'
import json, sys
o = sys.argv[1]
t = {}
for bin in ["vt_prev", "vt"]:
    for r in json.load(open(f"{o}/chunks-{bin}.json"))["rows"]:
        t.setdefault((r["shape"], r["batch"], r["context"]), {})[bin] = (r["us"], r["chunks"])
print("shape B ctx: 32 chunks us (chunks) / 16 chunks us (chunks) / ratio")
for k, v in t.items():
    a, b = v["vt_prev"], v["vt"]
    print(*k, "%.2f (%d)" % a, "%.2f (%d)" % b, "%.3f" % (b[0] / a[0]))
PY
  long_decode_ab chunks-e2e
fi
if [[ $parts == *workers* ]]; then  # the persist arm's items shared by as many CTAs as there are items (vt) against vt_prev
  long_decode_ab workers-e2e
  for bin in vt_prev vt; do
    for m in qwen3-1.7b llama3-8b; do
      r=$(timeout -k 5 150 $b/$bin bench decode $short --model preset:$m --concurrency 1,4,64 --json 2>>$o/workers-e2e.err | tok_s)
      echo "$m 32/128 $bin: $r" | tee -a $o/workers-e2e.txt
    done
  done
fi
if [[ $parts == *sanitize* ]]; then  # the persist arm's gates under compute-sanitizer
  # (The job of 10-h100-sanitize/ ran with an 80 s limit and also the late-writer test that needs
  # overlapping launches, which fails under the sanitizer by design.)
  sanitize_persist 300
fi
if [[ $parts == *e2e* ]]; then  # issue #17's end-to-end table at HEAD
  e2e_table
fi
gpu_job_pack s18
