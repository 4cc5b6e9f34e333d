# Thirty-third session's GPU jobs. Usage: bash docs/bench/session33-2026-12-07/gpu.sh [PARTS]
# Job 1 (1-h200-table-probes/, an H200): `gpu.sh table,final,reduce,scales` with the pack below.
# Job 2 (`gpu.sh gates`, not run: no machine was lent after job 1): the kept build (HEAD's kernels) as
# bin/vt, bin/vt_gpu_w4a16_tests and bin/vt_gpu_engine_tests.
# The pack (.gpu/pack.tar.xz, carried as .gpu): bin/vt (c94936a, the session's start), and for each
# probe NAME bin/vt_NAME with bin/vt_gpu_w4a16_tests_NAME, built with the probe's patch on c94936a
# (git apply the patch, build vt and vt_gpu_w4a16_tests, keep them under the probe's names, git
# checkout kernels/).
#   table   on an H200 only: issue #17's end-to-end table and issue #16's 8k and 32k decode with
#           bin/vt, then its W4A16 table (vt's forms against cuBLAS; M <= 8 launched dependently, as
#           decode steps of up to eight rows run) (PREDICTIONS.md item 1)
#   final   on an H200 only: llama3-8b c = 1 in two more rounds (issue #17's nearest goal)
#   scales  ../session32-2026-12-07/tile-group-scales.patch: a 128-row group's scales loaded once
#           (PREDICTIONS.md item 2)
#   reduce  reduce-dependent.patch: the K-slice reduction always a dependent launch (item 3)
#   slots   prepared, not run: tile-stage-slots.patch on HEAD (bin/vt at HEAD beside bin/vt_slots and
#           bin/vt_gpu_w4a16_tests_slots): as many activation stages as the weight ring is deep
#           (item 5)
#   long    prepared, on an H200 only: qwen3-1.7b 8k decode-only c = 1 and 8 with bin/vt in three
#           rounds (issue #16's c = 8 goal, 3.5 ms, was 0.7-1.5% away in job 1's one run)
#   gates   the kept build (the group-scales change committed; bin/vt, bin/vt_gpu_w4a16_tests and
#           bin/vt_gpu_engine_tests): the W4A16 and GPTQ engine gates, compute-sanitizer memcheck on
#           the tiled-form, dependent-launch and shape tests, racecheck on them but 8192 x 28672
# Each probe part runs the probe's W4A16 gates, `vt bench w4a16 --forms tile --ms 9,16,32,48,64` of
# bin/vt and the probe in two turned orders, and llama3-8b W4A16 c = 16, 32, 64 in two (tile_probe).
# Each part's runs start only while the job has at least 60 s left of its JOB_LIMIT (../gpu_job_lib.sh).
source "$(dirname "$0")/../gpu_job_lib.sh"
gpu_job_setup s33
parts=,${1:-reduce},
run_parts() {
  if [[ $parts == *,gates,* ]]; then
    room gates && gtest w4a16 $(capped 150) $b/vt_gpu_w4a16_tests
    room gates && gtest engine-gptq $(capped 150) $b/vt_gpu_engine_tests --gtest_filter='*Gptq*'
    room memcheck && sanitize $(capped 150) vt_gpu_w4a16_tests '*Tile*:*Dependent*:*Shape*' memcheck
    room racecheck && sanitize $(capped 280) vt_gpu_w4a16_tests '*Tile*:*Dependent*:*Shape*-*k8192_n28672' racecheck
  fi
  if [[ $parts == *,table,* ]] && grep -q H200 $o/gpu.txt; then
    gpu_final
    room 32k && echo "qwen3-1.7b 32k decode-only vt: $(decode_8k vt qwen3-1.7b 1 e2e 32768)" | tee -a $o/e2e.txt
    room w4a16 && w4a16_table h200-m1-8 vt --ms 1,2,8 --dependent-launch
    room w4a16 && w4a16_table h200-m9-128 vt --ms 9,16,32,64,128
  fi
  if [[ $parts == *,long,* ]] && grep -q H200 $o/gpu.txt; then
    local round
    for round in 1 2 3; do
      room long && long_run long vt $round
    done
  fi
  if [[ $parts == *,final,* ]] && grep -q H200 $o/gpu.txt; then
    decode_orders final "llama3-8b 1" vt vt || return 0
  fi
  local probe
  for probe in reduce scales slots; do
    if [[ $parts == *,$probe,* ]]; then
      tile_probe $probe 9,16,32,48,64 || return 0
    fi
  done
}
gpu_job_run s33
