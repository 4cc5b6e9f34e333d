# Thirty-first session's GPU jobs. Usage: bash docs/bench/session31-2026-12-07/gpu.sh [PARTS]
# Job 1 (1-h100-wgmma/): the pack (.gpu/pack.tar.xz, carried as .gpu) held bin/vt, bin/vt_gpu_w4a16_tests
# and bin/vt_gpu_engine_tests built at f8baf2b (the W4A16 tiled form on warpgroup MMAs, reverted after
# this job; tile-wgmma.patch applies it to bb61691); bin/vt_warp is bin/vt with VT_W4A16_TILE_MMA=warp
# (the warp-MMA build of the tiled form). Job 2 (2-h100-ncu/) was one inline command on the same warm
# machine: gpu_job_setup s31b, then for each form (the M = 16 call):
#   ncu --clock-control none --kernel-name regex:'W4A16(Tile|Wgmma)' --launch-skip 3 --launch-count 1 \
#     --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis \
#     --section SchedulerStats bin/vt bench w4a16 --forms tile|wgmma --shapes 8192x28672 --ms 16,64 \
#     --launches 2 --reps 2
#   wgmma   the W4A16 gates, the GPTQ engine gates, `vt bench w4a16 --forms tile,wgmma` with cuBLAS
#           beside, llama3-8b W4A16 decode at c = 16, 32, 64 in two turned orders, then
#           compute-sanitizer on the new kernel's gates (PREDICTIONS.md items 1-2)
#   probe   (job 3; its $OUT/s31 kept as 3-probe/) bin/vt (bb61691's code), bin/vt_nodq, bin/vt_nosync
#           and bin/vt_cluster (tile-no-dequant.patch, tile-no-barrier.patch, tile-cluster-reduce.patch
#           on it; the last with its bin/vt_gpu_w4a16_tests_cluster): the cluster build's W4A16 gates,
#           `vt bench w4a16 --forms tile --ms 16,64` of the four, llama3-8b W4A16 c = 16, 32 with vt
#           and vt_cluster in two turned orders, ncu's stall reasons, instruction
#           statistics and source counters of bin/vt's tiled form at M = 16 and 64 (4096 x 28672), and
#           the form's SASS (PREDICTIONS.md items 3-4; 3-probe/ keeps only the 16-row kernel's SASS,
#           without the encodings, as tile-sass-16rows.txt)
#   smem    prepared for the next session (this session's device time was spent; the thirty-second ran
#           it, its $OUT/s31 kept as ../session32-2026-12-07/1-h100-smem/): a pack of
#           bin/vt (HEAD) and bin/vt_smem with bin/vt_gpu_w4a16_tests_smem (tile-smem-weights.patch on
#           HEAD: the tiled form's weights through shared memory by cp.async, 5-8 stages); the smem
#           build's W4A16 gates, `vt bench w4a16 --forms tile --ms 9,16,32,64` of both in two turned
#           orders, llama3-8b W4A16 c = 16, 32, 64 in two (PREDICTIONS.md item 5). To build the pack:
#           git apply tile-smem-weights.patch, build vt and vt_gpu_w4a16_tests, keep them as vt_smem and
#           vt_gpu_w4a16_tests_smem, git checkout kernels/, build vt again, pack the three as bin/
#   table   on an H200 only: issue #17's end-to-end table and issue #16's 8k decode with bin/vt
# Each part's runs start only while the job has at least 60 s left of its JOB_LIMIT (../gpu_job_lib.sh).
source "$(dirname "$0")/../gpu_job_lib.sh"
gpu_job_setup s31
parts=,${1:-wgmma},
run_parts() {
  if [[ $parts == *,wgmma,* ]]; then
    wrap vt_warp VT_W4A16_TILE_MMA=warp
    room gates && gtest w4a16 150 $b/vt_gpu_w4a16_tests
    room gates && gtest engine-gptq 150 $b/vt_gpu_engine_tests --gtest_filter='*Gptq*'
    room bench || return 0
    w4a16_forms forms vt tile,wgmma --ms 9,16,32,48,64,128
    gptq_orders e2e 16,32,64 "vt_warp vt" "vt vt_warp" || return 0
    room sanitizer || return 0
    sanitize 90 vt_gpu_w4a16_tests 'W4A16.WarpgroupTiledFormSplitAlongK:W4A16.DependentLaunchesWaitForTheActivations'
  fi
  if [[ $parts == *,probe,* ]]; then
    room gates && gtest w4a16-cluster 120 $b/vt_gpu_w4a16_tests_cluster
    for bin in vt vt_nodq vt_nosync vt_cluster; do
      room probe || return 0
      w4a16_forms $bin $bin tile --ms 16,64
    done
    for m in 16 64; do
      room probe ncu || return 0
      timeout -k 5 120 ncu --clock-control none --kernel-name regex:W4A16Tile --launch-skip 3 --launch-count 1 \
        --section SpeedOfLight --section Occupancy --section WarpStateStats --section InstructionStats \
        --section SourceCounters --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
        $b/vt bench w4a16 --forms tile --shapes 4096x28672 --ms $m --launches 2 --reps 2 > $o/ncu-tile-m$m.txt 2>&1
      echo "ncu m$m rc $?"
      grep -E "Duration|DRAM Throughput|Eligible Warps|Issued Warp|Executed Instructions  |issue_stalled" $o/ncu-tile-m$m.txt
    done
    gptq_orders e2e 16,32 "vt vt_cluster" "vt_cluster vt" || return 0
    local dump=/usr/local/cuda/bin/cuobjdump
    [ -x $dump ] && $dump -sass -arch sm_90 $b/vt | awk '/Function : .*W4A16TileKernel/{p=1} /Function : /&&!/W4A16TileKernel/{p=0} p' \
      > $o/tile-sass.txt; echo "sass lines $(wc -l < $o/tile-sass.txt)"
  fi
  if [[ $parts == *,smem,* ]]; then
    tile_probe smem 9,16,32,64 || return 0
  fi
  if [[ $parts == *,table,* ]] && grep -q H200 $o/gpu.txt; then
    gpu_final
  fi
}
gpu_job_run s31
