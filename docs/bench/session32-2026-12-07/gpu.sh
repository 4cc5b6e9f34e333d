# Thirty-second session's GPU jobs. Usage: bash docs/bench/session32-2026-12-07/gpu.sh [PARTS]
# Job 1 (1-h100-smem/) ran ../session31-2026-12-07/gpu.sh smem,table (no H200 came: the table part
# skipped). This script's pack for job 2 (.gpu/pack.tar.xz, carried as .gpu): bin/vt_head (51194f1's
# vt; its kernels are HEAD's but for w4a16_tile.cu), and bin/vt, bin/vt_gpu_w4a16_tests and
# bin/vt_gpu_engine_tests built with the tiled form's activation staging at fixed addresses (12f6d40).
#   stage   (job 2, 2-h100-stage/) the W4A16 gates and the GPTQ engine gates of the new build, `vt bench
#           w4a16 --forms tile --ms 9,16,32,48,64` of vt_head and vt in two turned orders, llama3-8b
#           W4A16 c = 16, 32, 64 in two (PREDICTIONS.md item 3)
#   final   (not run: the session's last call was refused for too little device time; bin/vt and
#           bin/vt_gpu_w4a16_tests at 12f6d40) on an H200, llama3-8b c = 1 in two
#           rounds (issue #17's nearest goal, PREDICTIONS.md item 2); on another card, racecheck on
#           the W4A16 shape test at 8192 x 8192 (job 3's run stopped there)
#   table   on an H200 only: issue #17's end-to-end table and issue #16's 8k decode with bin/vt
#   scales  prepared for the next session, not run (this session's device time was spent): a pack of
#           bin/vt (HEAD) and bin/vt_scales with bin/vt_gpu_w4a16_tests_scales (tile-group-scales.patch
#           on HEAD: a 128-row group's scales loaded once, with its first step); the W4A16 gates of
#           that build, `vt bench w4a16 --forms tile --ms 9,16,32,48,64` of both in two turned orders,
#           llama3-8b W4A16 c = 16, 32, 64 in two (PREDICTIONS.md item 4). To build the pack: git
#           apply the patch, build vt and vt_gpu_w4a16_tests, keep them as vt_scales and
#           vt_gpu_w4a16_tests_scales, git checkout kernels/, build vt again, pack the three as bin/
# Job 3 (3-h100-sanitizer/) was two inline commands on job 2's warm machine, after gpu_job_setup:
# `sanitize 110 vt_gpu_w4a16_tests '*Tile*:*Tiled*:*Shape*'` (../gpu_job_lib.sh; its racecheck stopped
# at the limit in the fourth shape test), then compute-sanitizer --tool racecheck alone on
# W4A16.DependentLaunchesWaitForTheActivations, W4A16.TiledFormSplitAlongK and
# W4A16.DequantisedGemmMatchesTheReference (racecheck-tiled-gates.txt).
# Each part's runs start only while the job has at least 60 s left of its JOB_LIMIT (../gpu_job_lib.sh).
source "$(dirname "$0")/../gpu_job_lib.sh"
gpu_job_setup s32
parts=,${1:-stage},
run_parts() {
  if [[ $parts == *,stage,* ]]; then
    room gates && gtest w4a16 150 $b/vt_gpu_w4a16_tests
    room gates && gtest engine-gptq 150 $b/vt_gpu_engine_tests --gtest_filter='*Gptq*'
    w4a16_orders stage 9,16,32,48,64 "vt_head vt" "vt vt_head" || return 0
    gptq_orders e2e-stage 16,32,64 "vt_head vt" "vt vt_head" || return 0
  fi
  if [[ $parts == *,final,* ]]; then  # the last 300 s of the session's device time
    if grep -q H200 $o/gpu.txt; then
      decode_orders final "llama3-8b 1" vt vt || return 0
    else
      room final racecheck || return 0
      sanitize 150 vt_gpu_w4a16_tests '*k8192_n8192' racecheck
    fi
  fi
  if [[ $parts == *,scales,* ]]; then
    tile_probe scales 9,16,32,48,64 || return 0
  fi
  if [[ $parts == *,table,* ]] && grep -q H200 $o/gpu.txt; then
    gpu_final
  fi
}
gpu_job_run s32
