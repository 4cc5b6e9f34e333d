# Twenty-seventh session's GPU jobs: the twenty-fifth and twenty-sixth sessions' landed changes, never
# yet run on a GPU. Usage: bash docs/bench/session27-2026-12-07/gpu.sh [PARTS] (gates,table by default)
# The pack (.gpu/pack.tar.xz, carried as .gpu) is the twenty-sixth session's (its gpu.sh header says
# how each binary is built): bin/vt and the vt_gpu_*_tests of fdc973b; bin/vt_head 0a42d26 (the
# twenty-fifth session's end); bin/vt_argmax fdc973b without 2ea0742's two kernel hunks (the sliced
# argmax alone); bin/vt_prev 0a42d26 with be743e5's decode_merge.cu and work_schedule.h.
#   gates  every GPU gate binary of bin/vt's tree, then compute-sanitizer racecheck and memcheck on
#          the argmax and QKV-prepare kernel tests (the kernels the twenty-sixth session changed)
#   table  issue #17's end-to-end table of bin/vt_head and bin/vt in turn, two rounds, then issue
#          #16's qwen3-1.7b 8k decode-only of both
#   ab     one round of qwen3-1.7b short c = 1, 8, 8k decode-only c = 1, 8 and `vt serve` c = 64 with
#          bin/vt_prev, vt_head, vt_argmax and vt, then the persist attention A/B of vt_prev and vt_head
#   split  two rounds of qwen3-1.7b short c = 1, 8 with bin/vt_head, vt_argmax, vt_norm (vt_argmax
#          plus 2ea0742's norm half: the add + RMSNorm weight read before the wait), vt_qkv (vt_argmax
#          plus 2ea0742's QKV-prepare half) and vt_both (fdc973b's vt: both halves)
# From `split` on, the pack's bin/vt and gate binaries are edff2bf's (2ea0742 reverted), bin/vt_prev
# is left out and fdc973b's bin/vt is bin/vt_both. On edff2bf or later: bin/vt_norm is `vt` built
# after `git show edff2bf -- kernels/cuda/ops/forward_ops.cu | git apply -R`, bin/vt_qkv after the
# same with kernels/cuda/ops/qkv_prepare.cu (`git checkout --` the file after each), and bin/vt_argmax
# is edff2bf's own `vt`.
#   ncu    the argmax kernels of a few qwen3-1.7b and llama3-8b decode steps (c = 1, 8, 64) of
#          bin/vt_head and bin/vt_argmax under ncu
# Each part's runs start only while the job has 60 s left of its JOB_LIMIT (../gpu_job_lib.sh).
source "$(dirname "$0")/../gpu_job_lib.sh"
gpu_job_setup s27
parts=,${1:-gates,table},
run_parts() {
  local bin model
  if [[ $parts == *,gates,* ]]; then
    gpu_gates engine forward_ops attention prefill_gemm smoke w4a16
    room sanitizer || return 0
    sanitize 90 vt_gpu_forward_ops_tests 'Argmax.*:QkvPrepare.*'
  fi
  if [[ $parts == *,table,* ]]; then
    table_and_long_decode table vt_head vt || return 0
  fi
  if [[ $parts == *,ab,* ]]; then
    decode_ab ab "vt_prev vt_head vt_argmax vt" 1 serve || return 0
    persist_ab ab "vt_prev vt_head" || return 0
  fi
  if [[ $parts == *,split,* ]]; then
    decode_rounds split "vt_head vt_argmax vt_norm vt_qkv vt_both" "qwen3-1.7b 1,8" || return 0
  fi
  if [[ $parts == *,ncu,* ]]; then
    for bin in vt_head vt_argmax; do
      for model in qwen3-1.7b llama3-8b; do
        room ncu || return 0
        ncu_decode argmax-$bin-$model $bin $model 1,8,64 Argmax
        grep -i argmax $o/argmax-$bin-$model.csv | cut -c1-400 | tail -6
      done
    done
  fi
}
gpu_job_run s27
