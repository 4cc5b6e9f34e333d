# Eighteenth session's GPU jobs. Usage: bash docs/bench/session18-2026-12-06/gpu.sh PARTS
#   gates  the skinny GEMM / decode MLP kernel gates, the attention and engine gates
#   c4     llama3-8b c = 1-8 with the decode attention split auto / off / off on gqa / with dependent launches off
#   ncu    llama3-8b c = 4 decode steps kernel by kernel, split auto against off
#   w4a16  the W4A16 gates and the dependent-launch A/B (vt_base: before it)
#   slices the stacked form's K slices summed in the kernel: gates, sanitizers, kernel table, A/B against vt_pdl
#   trigger  dependents launched after each kernel's wait (vt) or when it ends (vt_notrigger; vt_attn_notrigger: the decode attention only)
#   short  contexts of up to 256 keys as one chunk, the unsplit attention's successor launched when it ends, against vt_head
#   e2e    the end-to-end table
#   (.gpu/pack.tar.xz: bin/vt and the vt_gpu_*_tests; extras such as bin/vt_base)
cd .gpu && tar xJf pack.tar.xz && cd .. && chmod +x .gpu/bin/*
b=.gpu/bin; o=$OUT/s18; mkdir -p $o
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee -a $o/gpu.txt
(cd $b && sha256sum *) > $o/binaries.sha256
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 VT_DEFAULT_MODEL=$PWD/assets/models/fortune-qwen3-7m VT_SOURCE_DIR=$PWD
parts=${1:-gates}
short="--backend cuda --load-format dummy --input-len 32 --output-len 128"
tok_s() { python3 -c "import json,sys; d=json.load(sys.stdin); print(' '.join('c=%d %.1f' % (r['concurrency'], r['output_tokens_per_s']) for r in d['results']))"; }
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
cd $OUT && tar czf s18.tgz s18 && rm -rf s18
