# Thirtieth session's GPU jobs. Usage: bash docs/bench/session30-2026-12-07/gpu.sh [PARTS]
# The pack (.gpu/pack.tar.xz, carried as .gpu) holds bin/vt_head (dbbc896, this session's start) and the
# twenty-ninth session's two prepared probes, each built on dbbc896 and never committed:
#   bin/vt_mb, bin/vt_gpu_prefill_gemm_tests_mb    skinny-min-blocks.patch (every skinny form's
#                                                   __launch_bounds__ asks for its CTAs an SM)
#   bin/vt_fg2, bin/vt_gpu_prefill_gemm_tests_fg2  skinny-first-group-80.patch (llama3-8b's o_proj form
#                                                   loads its first group before the wait, 80 registers,
#                                                   with VT_SKINNY_FIRST_GROUP=1)
# The `probes` part writes bin/vt_fg, bin/vt_fg2 with that switch set.
# (patches in ../session29-2026-12-07/; PREDICTIONS.md items 1-3.)
#   probes  each probe's GEMM gates (fg2's SkinnyGemm ones with the switch set); `vt bench gemm` of the
#           layer shapes with vt_head and vt_mb; llama3-8b c = 1, 2 with vt_head, vt_mb, vt_fg in three
#           turned orders; qwen3-1.7b c = 1, 8 with vt_head and vt_mb in two
#           (job 1, on an H100: 1-h100-probes/)
#   table   on an H200 only: issue #17's end-to-end table and issue #16's 8k decode with vt_head
#           (PREDICTIONS.md item 4)
#   steps   one c = 1 decode step of vt_head, node by node under ncu: qwen3-1.7b, then llama3-8b
#           (PREDICTIONS.md item 5, written for qwen3-1.7b only). Job 2 (`table,steps`, on an H100,
#           so no table) ran the qwen3-1.7b half into 2-h100-steps/; job 3, the next call while that
#           machine was still warm, ran the llama3-8b half as one inline command (gpu_job_setup s30b,
#           bin/vt from vt_head, ncu_steps llama3-8b) into 3-h100-steps-llama/
# Each part's runs start only while the job has at least 60 s left of its JOB_LIMIT (../gpu_job_lib.sh).
source "$(dirname "$0")/../gpu_job_lib.sh"
gpu_job_setup s30
parts=,${1:-probes},
run_parts() {
  if [[ $parts == *,probes,* ]]; then
    wrap vt_fg VT_SKINNY_FIRST_GROUP=1 vt_fg2
    room probes gates && gtest prefill_gemm-mb 100 $b/vt_gpu_prefill_gemm_tests_mb
    room probes gates && VT_SKINNY_FIRST_GROUP=1 gtest prefill_gemm-fg2 100 $b/vt_gpu_prefill_gemm_tests_fg2 --gtest_filter='SkinnyGemm.*'
    for bin in vt_head vt_mb; do
      room probes gemm || return 0
      gemm_table $bin
    done
    decode_orders probes "llama3-8b 1,2" "vt_head vt_mb vt_fg" "vt_fg vt_head vt_mb" "vt_mb vt_fg vt_head" || return 0
    decode_orders probes "qwen3-1.7b 1,8" "vt_head vt_mb" "vt_mb vt_head" || return 0
  fi
  if [[ $parts == *,table,* ]] && grep -q H200 $o/gpu.txt; then
    room table || return 0
    e2e_table vt_head || return 0
    room long || return 0
    long_decode vt_head
  fi
  if [[ $parts == *,steps,* ]]; then
    cp $b/vt_head $b/vt  # ncu_steps profiles bin/vt
    for model in qwen3-1.7b llama3-8b; do
      room steps $model || return 0
      ncu_steps $model
    done
  fi
}
gpu_job_run s30
