# Thirty-fourth session's GPU jobs. Usage: bash docs/bench/session34-2026-12-07/gpu.sh [PARTS]
# The pack (.gpu/pack.tar.xz, carried as .gpu): bin/vt, bin/vt_gpu_w4a16_tests and
# bin/vt_gpu_engine_tests at 7b06eb2 (the session's start, whose W4A16 kernels are the thirty-third
# session's kept build), and bin/vt_slots with bin/vt_gpu_w4a16_tests_slots, built with
# ../session33-2026-12-07/tile-stage-slots.patch applied to 7b06eb2. Job 2 (ncu,long,suites) adds
# the other five vt_gpu_*_tests; part clamp needs bin/vt_clamp and bin/vt_gpu_w4a16_tests_clamp.
#   gates     the kept build's W4A16 gates, the GPTQ engine gates and compute-sanitizer memcheck on
#             the tiled-form, dependent-launch and shape tests (the thirty-third session's `gates`
#             part, not run there); racecheck on them, without the 8192 x 28672 shape, runs last, with
#             the time the job has left
#   long      on an H200 only: qwen3-1.7b 8k decode-only c = 1 and 8 in three rounds (issue #16)
#   slots     ../session33-2026-12-07/tile-stage-slots.patch against bin/vt (its PREDICTIONS.md item 5)
#   ncu       ncu of the stacked form at M = 1 (8192 x 8192, 8192 x 28672, 4096 x 4096) and the tiled
#             form at M = 16 (8192 x 28672), one call each, and the two forms' SASS where the machine
#             has cuobjdump (PREDICTIONS.md item 3, for an H200 and an H100)
#   clamp     prepared for a later session: stack-clamped-rows.patch (PREDICTIONS.md item 6) against
#             bin/vt, with bin/vt_clamp and bin/vt_gpu_w4a16_tests_clamp built with it (stack_probe)
#   suites    the other GPU suites at 7b06eb2 (attention, engine, forward ops, prefill + GEMM, smoke;
#             the pack then also holds their binaries), each within 200 s while the job has room
# Each part's runs start only while the job has at least 60 s left of its JOB_LIMIT (../gpu_job_lib.sh).
source "$(dirname "$0")/../gpu_job_lib.sh"
gpu_job_setup s34
parts=,${1:-gates},
tiled_tests='*Tile*:*Dependent*:*Shape*'

# ncu_w4a16 FORM SHAPE M: one call of bin/vt's W4A16 FORM at SHAPE and M under ncu, into $o/ncu-FORM-SHAPE-mM.txt.
ncu_w4a16() {
  room ncu $1 $2 || return 1
  timeout -k 5 $(capped 120) ncu --clock-control none --kernel-name regex:W4A16 --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section InstructionStats --section MemoryWorkloadAnalysis --section SourceCounters \
    $b/vt bench w4a16 --forms $1 --shapes $2 --ms $3 --launches 2 --reps 2 > $o/ncu-$1-$2-m$3.txt 2>&1
  echo "ncu $1 $2 m$3 rc $?"
}

run_parts() {
  if [[ $parts == *,gates,* ]]; then
    room gates && gtest w4a16 $(capped 150) $b/vt_gpu_w4a16_tests
    room gates && gtest engine-gptq $(capped 150) $b/vt_gpu_engine_tests --gtest_filter='*Gptq*'
    room memcheck && sanitize $(capped 150) vt_gpu_w4a16_tests "$tiled_tests" memcheck
  fi
  if [[ $parts == *,ncu,* ]]; then
    ncu_w4a16 stack 8192x8192 1 && ncu_w4a16 stack 8192x28672 1 && ncu_w4a16 stack 4096x4096 1 &&
      ncu_w4a16 tile 8192x28672 16
    $(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump) -sass $b/vt 2>/dev/null | awk '/Function : .*W4A16(Stack|Tile)Kernel/{p=1} /Function : /&&!/W4A16(Stack|Tile)/{p=0} p' \
      > $o/sass-w4a16.txt
    echo "sass lines $(wc -l < $o/sass-w4a16.txt)"
  fi
  [[ $parts == *,long,* ]] && long_rounds long vt
  if [[ $parts == *,suites,* ]]; then
    gpu_gates attention engine forward_ops prefill_gemm smoke
  fi
  if [[ $parts == *,slots,* ]]; then
    tile_probe slots 9,16,32,48,64
  fi
  if [[ $parts == *,clamp,* ]]; then
    stack_probe clamp
  fi
  if [[ $parts == *,gates,* ]]; then
    room racecheck && sanitize $(capped 280) vt_gpu_w4a16_tests "$tiled_tests-*k8192_n28672" racecheck
  fi
  return 0
}
gpu_job_run s34
