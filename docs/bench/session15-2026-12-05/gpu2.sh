# Fifteenth session's second H200 job: the gates on the build without the L2 prefetch (5728737), the
# W4A16 stacked form at 3 CTAs an SM (stack-3-ctas.patch, 77-78 registers, no spill) against the
# committed 4 (64 registers, 8 bytes spilled) in one job, and the end-to-end table at HEAD.
# Usage: bash docs/bench/session15-2026-12-05/gpu2.sh [gates,w4a16,e2e]   (.gpu/pack.tar.xz: bin/vt, bin/vt_stack3)
cd .gpu && tar xJf pack.tar.xz && cd .. && chmod +x .gpu/bin/*
b=.gpu/bin; o=$OUT/g2; mkdir -p $o
nvidia-smi --query-gpu=name --format=csv,noheader | tee $o/gpu.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 VT_DEFAULT_MODEL=$PWD/assets/models/fortune-qwen3-7m VT_SOURCE_DIR=$PWD
parts=${1:-gates,w4a16,e2e}
if [[ $parts == *gates* ]]; then
  for t in prefill_gemm engine; do
    timeout -k 5 240 $b/vt_gpu_${t}_tests > $o/$t.log 2>&1; echo "$t rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $o/$t.log | tr '\n' ' ')"
  done
fi
if [[ $parts == *w4a16* ]]; then
  shapes="4096x4096 4096x6144 4096x28672 14336x4096 8192x8192 8192x28672"
  for r in 1 2; do for v in vt vt_stack3; do
    echo "== $v r$r" >> $o/w4a16-kernel.txt
    timeout -k 5 120 $b/$v bench w4a16 --forms stack --ms 1 2 --shapes $shapes >> $o/w4a16-kernel.txt 2>&1
  done; done
  for r in 1 2; do for v in vt vt_stack3; do
    echo "== $v r$r" >> $o/w4a16-e2e.txt
    timeout -k 5 150 $b/$v bench decode --backend cuda --load-format dummy --model preset:llama3-8b-gptq --input-len 32 \
      --output-len 128 --concurrency 1 2 2>&1 | tail -3 >> $o/w4a16-e2e.txt
  done; done
  cat $o/w4a16-e2e.txt
fi
if [[ $parts == *e2e* ]]; then
  for m in qwen3-1.7b llama3-8b; do
    timeout -k 5 200 $b/vt bench decode --backend cuda --load-format dummy --json --model preset:$m --input-len 32 \
      --output-len 128 --concurrency 1 8 64 > $o/e2e-$m.json 2> $o/e2e-$m.err
    python3 -c "
import json; d=json.load(open('$o/e2e-$m.json'))
print('$m', ', '.join('c=%d %.1f tok/s' % (r['concurrency'], r['output_tokens_per_s']) for r in d['results']))" || tail -3 $o/e2e-$m.err
  done
fi
