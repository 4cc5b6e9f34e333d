# Twenty-first session's GPU jobs. Usage: bash docs/bench/session21-2026-12-06/gpu.sh PARTS
#   skinny   the skinny GEMM's two accumulators (bin/vt_skinny, its gates *_skinny) against HEAD
#            (bin/vt_prev): skinny and decode-MLP gates, engine gates, qwen3-1.7b c = 1, 8 and
#            llama3-8b c = 1, two rounds
#   w4       the stacked W4A16 form's cursor kept in bounds (bin/vt_cur) and its activations read
#            directly (bin/vt, on top of it) against HEAD (bin/vt_prev): W4A16 gates of both, GPTQ
#            engine gates, the kernel table (dependent launches, M = 1, 2), llama3-8b W4A16 c = 1, 2
#            (two rounds)
#   wcgates  the persist arm taking ranges from a work counter (bin/vt) against HEAD (bin/vt_prev):
#            attention and engine gates, the persist arm's kernel table at 4,096, 8,200, 16,400 keys
#   wce2e    the same two: qwen3-1.7b 8k decode-only c = 1, 8 (two rounds), llama3-8b 8k c = 8
#   (pdl-eight-rows.patch's run, prepared here and never run here: ../session22-2026-12-06/gpu.sh pdl8)
#   h200     on an H200 only: issue #17's end-to-end table and issue #16's 8k decode with bin/vt_prev
#   (.gpu/pack.tar.xz: bin/vt and the vt_gpu_*_tests; vt_prev, vt_cur, vt_skinny,
#   vt_gpu_w4a16_tests_cur, vt_gpu_prefill_gemm_tests_skinny, vt_gpu_engine_tests_skinny)
source "$(dirname "$0")/../gpu_job_lib.sh"
gpu_job_setup s21
parts=${1:-skinny,w4}
if [[ $parts == *skinny* ]]; then
  gtest skinny-kernel 100 $b/vt_gpu_prefill_gemm_tests_skinny --gtest_filter='DecodeMlp.*:SkinnyGemm.*'
  gtest skinny-engine 150 $b/vt_gpu_engine_tests_skinny
  decode_rounds skinny "vt_prev vt_skinny" "qwen3-1.7b 1,8" "llama3-8b 1"
fi
if [[ $parts == *w4* ]]; then
  gtest w4a16-cur 150 $b/vt_gpu_w4a16_tests_cur
  gtest w4a16 150 $b/vt_gpu_w4a16_tests
  gtest engine-gptq 150 $b/vt_gpu_engine_tests --gtest_filter='*Gptq*'
  for bin in vt_prev vt_cur vt; do w4a16_table $bin $bin --ms 1,2 --dependent-launch; done
  for round in 1 2; do gptq_decode w4 1,2 vt_prev vt_cur vt; done
fi
if [[ $parts == *wcgates* ]]; then
  gtest attention 240 $b/vt_gpu_attention_tests
  gtest engine 200 $b/vt_gpu_engine_tests
  for bin in vt_prev vt; do
    timeout -k 5 120 $b/$bin bench attention --arms persist --shapes qwen3-1.7b,llama3-8b,d256-16q2kv --batches 1,8,64 \
      --contexts 4096,8200,16400 > $o/attn-$bin.txt 2>&1
    echo "attention $bin rc $?"; cat $o/attn-$bin.txt
  done
fi
if [[ $parts == *wce2e* ]]; then
  for round in 1 2; do
    for bin in vt_prev vt; do
      echo "$bin round $round" >> $o/e2e.txt
      long_decode $bin
    done
  done
  for bin in vt_prev vt; do
    r=$(decode_8k $bin llama3-8b 8 e2e)
    echo "llama3-8b 8k decode-only $bin: $r" | tee -a $o/e2e.txt
  done
fi
if [[ $parts == *h200* ]] && grep -q H200 $o/gpu.txt; then
  e2e_table vt_prev
  long_decode vt_prev
fi
gpu_job_pack s21
