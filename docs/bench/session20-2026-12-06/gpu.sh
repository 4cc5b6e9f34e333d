# Twentieth session's GPU jobs. Usage: bash docs/bench/session20-2026-12-06/gpu.sh PARTS
#   ring      the stacked W4A16 form's weight ring (bin/vt) against HEAD's registers (bin/vt_prev): both
#             builds' W4A16 gates, the GPTQ engine gates, the kernel table (dependent and plain launches),
#             ncu of the gate/up shape, llama3-8b W4A16 c = 1, 2 (two rounds)
#   pf        the first block's steps past the register loads prefetched into the L2, at most 16 KB (bin/vt),
#             8 KB (bin/vt_p16) and 64 KB (bin/vt_p128), against HEAD (bin/vt_prev): W4A16 and GPTQ engine
#             gates, the kernel table, llama3-8b W4A16 c = 1, 2 (two rounds for vt and vt_prev)
#   pfshort   the same prefetch only where it covers the rest of the first block (8 KB at most; bin/vt) against
#             HEAD (bin/vt_prev): the kernel table, llama3-8b W4A16 c = 1, 2 (two rounds)
#   bias      the bias MMAs first in a step (bin/vt), the short prefetch (bin/vt_short) and both (vt_both) against HEAD
#             (bin/vt_prev): W4A16 and GPTQ engine gates, SASS of the step, the kernel table, llama3-8b W4A16
#             c = 1, 2 (two rounds)
#   skinny    the skinny GEMM's two accumulators (bin/vt) against the bias-first build (bin/vt_prev):
#             qwen3-1.7b and llama3-8b c = 1 (two rounds), the skinny GEMM, decode MLP and engine gates
#   e2eprev   issue #17's end-to-end table (two rounds) and issue #16's qwen3-1.7b 8k decode with bin/vt_prev
#   sanitize  compute-sanitizer memcheck and racecheck on the stacked form's gates (bin/vt_gpu_w4a16_tests)
#   (.gpu/pack.tar.xz: bin/vt and the vt_gpu_*_tests; extras as each part names them: vt_prev,
#   vt_gpu_w4a16_tests_prev, vt_p16, vt_p128, vt_short, vt_both)
source "$(dirname "$0")/../gpu_job_lib.sh"
gpu_job_setup s20
parts=${1:-ring}
if [[ $parts == *ring* ]]; then
  gtest w4a16-prev 150 $b/vt_gpu_w4a16_tests_prev
  gtest w4a16 150 $b/vt_gpu_w4a16_tests
  gtest engine-gptq 150 $b/vt_gpu_engine_tests --gtest_filter='*Gptq*'
  for bin in vt_prev vt; do
    w4a16_table $bin--dependent-launch $bin --ms 1,2 --dependent-launch
    w4a16_table $bin $bin --ms 1,2
  done
  for bin in vt_prev vt; do
    timeout -k 5 100 ncu --clock-control none --metrics gpu__time_duration.sum,launch__grid_size,launch__occupancy_limit_shared_mem,launch__occupancy_limit_registers \
      --csv --page raw $b/$bin bench w4a16 --forms stack --ms 1 --shapes 4096x28672,4096x4096 --launches 2 --reps 2 > $o/ncu-$bin.csv 2>&1
    echo "ncu $bin rc $?"; grep W4A16 $o/ncu-$bin.csv | cut -c1-400 | tail -4
  done
  for round in 1 2; do gptq_decode ring 1,2 vt_prev vt; done
fi
if [[ $parts == *pf* && $parts != *pfshort* ]]; then
  gtest w4a16 150 $b/vt_gpu_w4a16_tests
  gtest engine-gptq 150 $b/vt_gpu_engine_tests --gtest_filter='*Gptq*'
  for bin in vt_prev vt vt_p16 vt_p128; do w4a16_table $bin $bin --ms 1,2 --dependent-launch; done
  for bin in vt_prev vt; do w4a16_table $bin-plain $bin --ms 1; done
  gptq_decode pf 1,2 vt_prev vt vt_p16 vt_p128 vt_prev vt
fi
if [[ $parts == *pfshort* ]]; then
  for bin in vt_prev vt; do w4a16_table $bin $bin --ms 1,2 --dependent-launch; done
  gptq_decode pf 1,2 vt_prev vt vt_prev vt
fi
if [[ $parts == *bias* ]]; then
  gtest w4a16 150 $b/vt_gpu_w4a16_tests
  gtest engine-gptq 150 $b/vt_gpu_engine_tests --gtest_filter='*Gptq*'
  # (As run in job 3 with `-fun W4A16StackKernel`, which matches no mangled name: both files came back
  # empty and were not kept.) The kernel's section of the whole dump:
  for bin in vt vt_prev; do
    cuobjdump -sass $b/$bin 2>/dev/null | awk '/Function :/ { f = /W4A16StackKernel/ } f' |
      grep -E 'HMMA|LOP3|LDG|LDS|BAR' > $o/sass-$bin.txt
  done
  echo "sass lines: $(wc -l < $o/sass-vt.txt) / $(wc -l < $o/sass-vt_prev.txt)"
  for bin in vt_prev vt vt_short vt_both; do w4a16_table $bin $bin --ms 1,2 --dependent-launch; done
  gptq_decode bias 1,2 vt_prev vt vt_short vt_both vt_prev vt vt_short vt_both
fi
if [[ $parts == *skinny* ]]; then
  decode_rounds skinny "vt_prev vt" "qwen3-1.7b 1" "llama3-8b 1"
  gtest kernel 100 $b/vt_gpu_prefill_gemm_tests --gtest_filter='DecodeMlp.*:SkinnyGemm.*'
  gtest engine 120 $b/vt_gpu_engine_tests
fi
if [[ $parts == *e2eprev* ]]; then
  e2e_table vt_prev
  long_decode vt_prev
fi
if [[ $parts == *sanitize* ]]; then
  for tool in memcheck racecheck; do
    timeout -k 5 200 compute-sanitizer --tool $tool --error-exitcode 9 $b/vt_gpu_w4a16_tests \
      --gtest_filter='W4A16.StackedFormSplitAlongK:W4A16.DependentLaunches*:W4A16.PerChannel*' > $o/sanitizer-$tool.txt 2>&1
    echo "$tool rc $? $(tail -1 $o/sanitizer-$tool.txt)"
  done
fi
gpu_job_pack s20
