# Twenty-ninth session's GPU jobs. Usage: bash docs/bench/session29-2026-12-07/gpu.sh [PARTS]
# The first two jobs ran the twenty-eighth session's script (`gpu.sh ngates`, `gpu.sh next`; raw output
# in 1-h100-ngates/ and 2-h100-next/). From `c64` on the pack (.gpu/pack.tar.xz, carried as .gpu) holds
# bin/vt (13d3787), bin/vt_head (8cbbdc1, the twenty-eighth session's start), bin/vt_aa (aa587f6, the
# o_proj weights before the wait) and bin/vt_cc (cce8f31, the early o_proj launch in one-row steps).
#   c64   qwen3-1.7b short prompts at c = 16 and 64 with the four binaries, three rounds, the order
#         turned each round (PREDICTIONS.md item 3: where `next`'s c = 64 -1.4% comes from)
# From `w4` on the pack is item 4's build: bin/vt and bin/vt_gpu_engine_tests with the int4 o_proj
# counted as preloading (its unsplit attention lets it launch early in one-row steps), bin/vt_head
# 13d3787's `vt`.
#   w4    the engine gates; then llama3-8b-gptq c = 1, 2 and, as controls (no path changed),
#         llama3-8b bf16 and qwen3-1.7b c = 1, each with bin/vt_head and bin/vt, three rounds in turned
#         orders
# From `w4b` on the pack is the review's build (3521864): bin/vt, bin/vt_gpu_engine_tests and
# bin/vt_gpu_w4a16_tests; bin/vt_head 13d3787's `vt`.
#   w4b   the engine and W4A16 gates; then llama3-8b-gptq c = 1 with bin/vt_head and bin/vt, three
#         rounds in turned orders
# From `fg` on the pack is item 7's probe build (3521864 with skinny-first-group.patch, never
# committed): bin/vt, bin/vt_gpu_prefill_gemm_tests and bin/vt_gpu_engine_tests, in which
# VT_SKINNY_FIRST_GROUP=1 lets a skinny share of several groups (llama3-8b's o_proj) load its first
# group before the wait, and so launch early after a one-row attention; bin/vt_fg is bin/vt with it.
#   fg    the SkinnyGemm and engine gates with the switch set; then llama3-8b c = 1, 2 (three rounds)
#         and qwen3-1.7b c = 1 (two) with bin/vt and bin/vt_fg in turned orders
# From `fg2` on the pack is item 8's probe build (skinny-first-group-80.patch: the same form with
# __launch_bounds__ asking for its CTAs an SM, which ptxas answers with 80 registers): bin/vt and
# bin/vt_gpu_prefill_gemm_tests.
#   fg2   the SkinnyGemm gates with the switch set; llama3-8b c = 1, 2 with bin/vt and bin/vt_fg, two
#         rounds in turned orders
# Also prepared for the next session, not run here (PREDICTIONS.md item 9; fg2 and mb both ran in the
# thirtieth session, from ../session30-2026-12-07/gpu.sh): skinny-min-blocks.patch on
# HEAD, every skinny form's __launch_bounds__ asking for its CTAs an SM (ptxas: the six-warp form 76 -> 80
# registers, the one-group forms 72 -> 78, the eight-warp form 80 as before); bin/vt the patched build's
# `vt` and vt_gpu_prefill_gemm_tests, bin/vt_head HEAD's `vt`.
#   mb    the prefill + GEMM gates; `vt bench gemm --dependent-launch` of qwen3-1.7b's and llama3-8b's
#         layer shapes with both binaries; two rounds of qwen3-1.7b and llama3-8b c = 1, 8 in turned
#         orders
# A last job: the twenty-eighth session's `gpu.sh next` again with w4b's pack (bin/vt_head 13d3787):
# the end-to-end table of this session's code (PREDICTIONS.md item 6, `7-h100-next/`).
# Each part's runs start only while the job has 60 s left of its JOB_LIMIT (../gpu_job_lib.sh).
source "$(dirname "$0")/../gpu_job_lib.sh"
gpu_job_setup s29
parts=,${1:-c64},
run_parts() {
  if [[ $parts == *,c64,* ]]; then
    decode_orders c64 "qwen3-1.7b 16,64" "vt_head vt_aa vt_cc vt" "vt vt_cc vt_aa vt_head" "vt_aa vt_head vt vt_cc" || return 0
  fi
  if [[ $parts == *,w4,* ]]; then
    gpu_gates engine
    decode_orders w4 "llama3-8b-gptq 1,2" "vt_head vt" "vt vt_head" "vt_head vt" || return 0
    decode_orders w4 "llama3-8b 1" "vt_head vt" "vt vt_head" || return 0
    decode_orders w4 "qwen3-1.7b 1" "vt_head vt" "vt vt_head" || return 0
  fi
  if [[ $parts == *,w4b,* ]]; then
    gpu_gates engine w4a16
    decode_orders w4b "llama3-8b-gptq 1" "vt_head vt" "vt vt_head" "vt_head vt" || return 0
  fi
  if [[ $parts == *,fg,* ]]; then
    wrap vt_fg VT_SKINNY_FIRST_GROUP=1
    room fg gates && VT_SKINNY_FIRST_GROUP=1 gtest prefill_gemm-fg 100 $b/vt_gpu_prefill_gemm_tests --gtest_filter='SkinnyGemm.*'
    room fg gates && VT_SKINNY_FIRST_GROUP=1 gtest engine-fg 200 $b/vt_gpu_engine_tests
    decode_orders fg "llama3-8b 1,2" "vt vt_fg" "vt_fg vt" "vt vt_fg" || return 0
    decode_orders fg "qwen3-1.7b 1" "vt vt_fg" "vt_fg vt" || return 0
  fi
  if [[ $parts == *,fg2,* ]]; then
    wrap vt_fg VT_SKINNY_FIRST_GROUP=1
    room fg2 gates && VT_SKINNY_FIRST_GROUP=1 gtest prefill_gemm-fg2 100 $b/vt_gpu_prefill_gemm_tests --gtest_filter='SkinnyGemm.*'
    decode_orders fg2 "llama3-8b 1,2" "vt vt_fg" "vt_fg vt" || return 0
  fi
  if [[ $parts == *,mb,* ]]; then
    gpu_gates prefill_gemm
    for bin in vt_head vt; do
      room mb gemm || return 0
      gemm_table $bin
    done
    decode_orders mb "qwen3-1.7b 1,8" "vt_head vt" "vt vt_head" || return 0
    decode_orders mb "llama3-8b 1,8" "vt_head vt" "vt vt_head" || return 0
  fi
}
gpu_job_run s29
