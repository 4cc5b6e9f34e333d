# Twenty-second session's GPU jobs. Usage: bash docs/bench/session22-2026-12-06/gpu.sh PARTS
#   h200     on an H200 only: issue #17's end-to-end table and issue #16's 8k decode with bin/vt_prev (HEAD)
#   final    the same with bin/vt (this commit's build) on whichever GPU comes
#   engine   the engine suite of this commit's build
#   slots    the whole-share variant taken only where a slot an SM stays free (bin/vt_whole2: llama3-8b's
#            o_proj, not its QKV) beside the first build (bin/vt_whole1: both) and HEAD (bin/vt_prev):
#            the kernel table of each (dependent launches, M = 1, 2), llama3-8b W4A16 c = 1, 2, two rounds
#   trig     the unsplit decode attention letting its successor launch early (bin/vt_trig,
#            attention-triggers-early.patch; bin/vt_trigwhole with the o_proj-only whole share on top)
#            against HEAD (bin/vt_prev) and the whole share alone (bin/vt_whole2): llama3-8b W4A16 c = 1, 2;
#            llama3-8b bf16 c = 1, 4 and qwen3-1.7b c = 1 (HEAD and vt_trig), two rounds
#   five     five-warp skinny CTAs where six fill a wave to more than 90% (bin/vt_five,
#            skinny-five-warps.patch; bin/vt_fivetrig with attention-triggers-early.patch on top) against
#            HEAD (bin/vt_prev) and the early trigger alone (bin/vt_trig): the N = 4096 GEMM table of HEAD
#            and vt_five (dependent launches, M = 1, 4), llama3-8b bf16 c = 1, 2, 4 and qwen3-1.7b c = 1, 4,
#            two rounds
#   pdl8     the twenty-first session's prepared run: steps of up to eight rows launched dependently
#            (bin/vt built with ../session21-2026-12-06/pdl-eight-rows.patch, VT_PDL_MAX_ROWS=8 against
#            its default): the engine gates with it, qwen3-1.7b c = 8, 16 and llama3-8b c = 8 (short
#            prompts), qwen3-1.7b 8k decode-only c = 8, two rounds
#   whole    the stacked W4A16 form's whole-share variant (bin/vt) against HEAD (bin/vt_prev): W4A16
#            and engine gates, the kernel table (dependent launches, M = 1, 2) of both, llama3-8b W4A16
#            c = 1, 2, two rounds
# A run starts only while the job has 60 s left of its 560 (`room`), so the output is always packed.
source "$(dirname "$0")/../gpu_job_lib.sh"
gpu_job_setup s22
parts=${1:-h200,pdl8}
room() { (( SECONDS + 60 < 560 )) || { echo "no room at $SECONDS s: $*" | tee -a $o/gpu.txt; false; }; }
run_parts() {
  [[ $parts == *engine* ]] && gtest engine 200 $b/vt_gpu_engine_tests
  local e2e_bin=
  [[ $parts == *h200* ]] && grep -q H200 $o/gpu.txt && e2e_bin=vt_prev
  [[ $parts == *final* ]] && e2e_bin=vt
  if [[ -n $e2e_bin ]]; then
    e2e_table $e2e_bin
    long_decode $e2e_bin
  fi
  if [[ $parts == *whole* ]]; then
    gtest w4a16 150 $b/vt_gpu_w4a16_tests
    gtest engine 200 $b/vt_gpu_engine_tests
    for bin in vt_prev vt; do w4a16_table $bin $bin --ms 1,2 --dependent-launch; done
    for round in 1 2; do room gptq round $round || return 0; gptq_decode whole 1,2 vt_prev vt; done
  fi
  if [[ $parts == *slots* ]]; then
    for bin in vt_prev vt_whole1 vt_whole2; do w4a16_table $bin $bin --ms 1,2 --dependent-launch; done
    for round in 1 2; do room gptq round $round || return 0; gptq_decode slots 1,2 vt_prev vt_whole1 vt_whole2; done
  fi
  if [[ $parts == *trig* ]]; then
    for round in 1 2; do room gptq round $round || return 0; gptq_decode trig 1,2 vt_prev vt_whole2 vt_trig vt_trigwhole; done
    room bf16 || return 0
    decode_rounds trig "vt_prev vt_trig" "llama3-8b 1,4" "qwen3-1.7b 1"
  fi
  if [[ $parts == *five* ]]; then
    for bin in vt_prev vt_five; do
      timeout -k 5 120 $b/$bin bench gemm --shapes 4096x4096,14336x4096,2048x4096 --ms 1,4 --dependent-launch \
        > $o/gemm-$bin.txt 2>&1
      echo "gemm $bin rc $?"; cat $o/gemm-$bin.txt
    done
    decode_rounds five "vt_prev vt_five vt_trig vt_fivetrig" "llama3-8b 1,2,4" "qwen3-1.7b 1,4"
  fi
  if [[ $parts == *pdl8* ]]; then
    VT_PDL_MAX_ROWS=8 gtest engine-pdl8 200 $b/vt_gpu_engine_tests
    for round in 1 2; do
      for rows in 4 8; do
        for mc in "qwen3-1.7b 8,16" "llama3-8b 8"; do
          set -- $mc
          room $1 rows $rows || return 0
          r=$(VT_PDL_MAX_ROWS=$rows timeout -k 5 150 $b/vt bench decode $short --model preset:$1 --concurrency $2 --json 2>>$o/pdl8.err | tok_s)
          echo "$1 rows $rows round $round: $r" | tee -a $o/pdl8.txt
        done
        room 8k rows $rows || return 0
        r=$(VT_PDL_MAX_ROWS=$rows decode_8k vt qwen3-1.7b 8 pdl8)
        echo "qwen3-1.7b 8k decode-only rows $rows round $round: $r" | tee -a $o/pdl8.txt
      done
    done
  fi
}
SECONDS=0
run_parts
echo "parts took $SECONDS s" | tee -a $o/gpu.txt
gpu_job_pack s22
