# Twenty-first session's GPU jobs. Usage: bash docs/bench/session21-2026-12-06/gpu.sh PARTS
#   skinny   the skinny GEMM's two accumulators (bin/vt_skinny, its gates *_skinny) against HEAD
#            (bin/vt_prev): skinny and decode-MLP gates, engine gates, qwen3-1.7b c = 1, 8 and
#            llama3-8b c = 1, two rounds
#   w4       the stacked W4A16 form's cursor kept in bounds (bin/vt_cur) and its activations read
#            directly (bin/vt, on top of it) against HEAD (bin/vt_prev): W4A16 gates of both, GPTQ
#            engine gates, the kernel table (dependent launches, M = 1, 2), llama3-8b W4A16 c = 1, 2
#            (two rounds)
#   h200     on an H200 only: issue #17's end-to-end table and issue #16's 8k decode with bin/vt_prev
#   (.gpu/pack.tar.xz: bin/vt and the vt_gpu_*_tests; vt_prev, vt_cur, vt_skinny,
#   vt_gpu_w4a16_tests_cur, vt_gpu_prefill_gemm_tests_skinny, vt_gpu_engine_tests_skinny)
source "$(dirname "$0")/../gpu_job_lib.sh"
gpu_job_setup s21
parts=${1:-skinny,w4}
if [[ $parts == *skinny* ]]; then
  gtest skinny-kernel 100 $b/vt_gpu_prefill_gemm_tests_skinny --gtest_filter='DecodeMlp.*:SkinnyGemm.*'
  gtest skinny-engine 150 $b/vt_gpu_engine_tests_skinny
  for round in 1 2; do
    for bin in vt_prev vt_skinny; do
      for mc in "qwen3-1.7b 1,8" "llama3-8b 1"; do
        set -- $mc
        r=$(timeout -k 5 150 $b/$bin bench decode $short --model preset:$1 --concurrency $2 --json 2>>$o/skinny.err | tok_s)
        echo "$1 $bin round $round: $r" | tee -a $o/skinny.txt
      done
    done
  done
fi
if [[ $parts == *w4* ]]; then
  gtest w4a16-cur 150 $b/vt_gpu_w4a16_tests_cur
  gtest w4a16 150 $b/vt_gpu_w4a16_tests
  gtest engine-gptq 150 $b/vt_gpu_engine_tests --gtest_filter='*Gptq*'
  for bin in vt_prev vt_cur vt; do w4a16_table $bin $bin --ms 1,2 --dependent-launch; done
  for round in 1 2; do gptq_decode w4 1,2 vt_prev vt_cur vt; done
fi
if [[ $parts == *h200* ]] && grep -q H200 $o/gpu.txt; then
  e2e_table vt_prev
  long_decode vt_prev
fi
gpu_job_pack s21
