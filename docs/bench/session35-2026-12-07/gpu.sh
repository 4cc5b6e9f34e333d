# Thirty-fifth session's GPU jobs. Usage: bash docs/bench/session35-2026-12-07/gpu.sh [PARTS]
# The pack (.gpu/pack.tar.xz, carried as .gpu), every binary built from 2d08479 (the session's start):
# bin/vt and the six vt_gpu_*_tests; bin/vt_clamp with bin/vt_gpu_w4a16_tests_clamp, built with
# ../session34-2026-12-07/stack-clamped-rows.patch applied; bin/vt_lean with
# bin/vt_gpu_w4a16_tests_lean, built with this folder's stack-lean-steps.patch (which holds the
# clamped rows too) applied.
#   long    on an H200 only: qwen3-1.7b 8k decode-only c = 1 and 8 in three rounds (issue #16)
#   probes  stack_probe of lean, then of clamp, each against bin/vt (PREDICTIONS.md items 3 and 5)
#   lean    stack_probe of lean alone (PREDICTIONS.md item 7, for an H200: lean is HEAD's kernel since f5e6c16)
#   pairs   prepared for a later session, with its own pack (bin/vt and bin/vt_gpu_w4a16_tests at a
#           commit with f5e6c16's kernel, bin/vt_pairs and bin/vt_gpu_w4a16_tests_pairs built with
#           this folder's stack-run-pairs.patch applied to it): stack_probe pairs (PREDICTIONS.md item 8)
#   suites  all six GPU suites at 2d08479, each within 200 s while the job has room
# The thirty-fourth session's ncu part runs from its own script: ../session34-2026-12-07/gpu.sh ncu.
source "$(dirname "$0")/../gpu_job_lib.sh"
gpu_job_setup s35
parts=,${1:-probes},

run_parts() {
  [[ $parts == *,long,* ]] && long_rounds long vt
  if [[ $parts == *,probes,* || $parts == *,lean,* ]]; then
    stack_probe lean
    [[ $parts == *,probes,* ]] && stack_probe clamp
  fi
  [[ $parts == *,pairs,* ]] && stack_probe pairs
  if [[ $parts == *,suites,* ]]; then
    gpu_gates
  fi
  return 0
}
gpu_job_run s35
