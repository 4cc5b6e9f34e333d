# Twenty-fifth session's GPU jobs. Usage: bash docs/bench/session25-2026-12-06/gpu.sh PARTS
#   sw       the persist and solo arms' address arithmetic cut (bin/vt: f9359de's swizzled addresses as an
#            XOR and an add from each lane's first, the persist arm's next page id read an iteration
#            ahead, each lane's ldmatrix rows computed once a kernel) against bin/vt_base (c93029c):
#            the attention gates of bin/vt, `vt bench attention` of both (persist and solo, batches
#            1, 8, 64, 48-16,400 keys, plain and dependent), then two rounds of qwen3-1.7b short
#            c = 1, 8 and 8k decode-only c = 1, 8
#   last     the session's landed build (bin/vt: the merge kernel reading the context first, the
#            schedule's divisions in 32 bits) against bin/vt_prev (be743e5): every GPU gate of bin/vt,
#            `vt bench attention --dependent-launch` of both (persist, batches 1, 8, 64, 48-16,400
#            keys), two rounds of qwen3-1.7b short c = 1, 8 and 8k decode-only c = 1, 8, and two of
#            `vt serve` at its own max_model_len with `vt bench serve` c = 64 (LAST_GATES: the gates
#            to run, all by default; LAST_ROUNDS: the rounds, 1 2 by default). bin/vt_prev: the two
#            kernel files as be743e5 had them (`git checkout be743e5 -- kernels/cuda/attention/
#            decode_merge.cu kernels/cuda/attention/work_schedule.h`), `vt` built and copied, then
#            `git checkout HEAD -- ` the two and rebuilt
#   mergectx ../session24-2026-12-06/merge-context-first.patch (bin/vt_mc) against bin/vt_base where the merge
#            kernel meets requests of one chunk: `vt serve` at the model's own max_model_len (graphs
#            planned split) with 32-token prompts at c = 64 (`vt bench serve`, two rounds), then
#            `vt bench attention` batches 1 and 8 (4-16k keys, plain and dependent) for what reading the
#            context first costs split calls (MC_ROUNDS serve rounds, 1 2 by default; MC_MODES launch
#            modes, plain --dependent-launch by default)
#   stalls   where the persist kernel's warps wait at batch 1 and 48-256 keys: ncu's warp-state and
#            instruction sections
#   steps    one qwen3-1.7b and one llama3-8b c = 1 decode step kernel by kernel under ncu
#   sass     the persist kernel's SASS (head_dim 128 and 256) from bin/vt, for counting its loop's
#            instructions (this machine has no cuobjdump)
#   gates    every GPU gate binary of this build (attention, engine, forward ops, prefill GEMM, smoke, W4A16)
#   final    issue #17's end-to-end table and issue #16's 8k decode with bin/vt, two rounds
#   h200only with it, a GPU other than an H200 runs only the parts in H100_PARTS (none by default)
# A run starts only while the job has 60 s left of its JOB_LIMIT (560 by default; `room`, in
# ../gpu_job_lib.sh), so the output is always packed.
source "$(dirname "$0")/../gpu_job_lib.sh"
gpu_job_setup s25
parts=${1:-gates,final}
run_parts() {
  if [[ $parts == *last* ]]; then
    gpu_gates $LAST_GATES
    persist_ab last "vt_prev vt" || return 0
    decode_ab last "vt_prev vt" "${LAST_ROUNDS:-1 2}" serve || return 0
  fi
  if [[ $parts == *sw* ]]; then
    gtest attention 200 $b/vt_gpu_attention_tests
    local dl
    for dl in "" --dependent-launch; do
      attention_ab sw "$dl" "vt_base vt" --arms persist solo --shapes qwen3-1.7b llama3-8b --batches 1 8 64 \
        --contexts 48 160 256 4100 16400 $dl || return 0
    done
    decode_ab sw "vt_base vt" "1 2" || return 0
  fi
  if [[ $parts == *mergectx* ]]; then
    local bin round dl
    for round in ${MC_ROUNDS:-1 2}; do
      for bin in vt_base vt_mc; do
        room mergectx $bin || return 0
        serve_c64 mc $bin
      done
    done
    for dl in ${MC_MODES:-plain --dependent-launch}; do
      dl=${dl/plain/}
      attention_ab mc "$dl" "vt_base vt_mc" --arms persist --shapes qwen3-1.7b llama3-8b --batches 1 8 \
        --contexts 4100 8200 16400 $dl || return 0
    done
  fi
  if [[ $parts == *stalls* ]]; then
    room stalls || return 0
    timeout -k 5 150 ncu --graph-profiling node --section WarpStateStats --section InstructionStats \
      --section LaunchStats --section Occupancy -k regex:DecodePersistent $b/vt bench attention --arms persist \
      --shapes qwen3-1.7b --batches 1 --contexts 48 160 256 --launches 1 --reps 1 > $o/stalls.txt 2>&1
    echo "stalls rc $?"
  fi
  if [[ $parts == *steps* ]]; then
    room steps || return 0
    ncu_steps qwen3-1.7b
    room steps || return 0
    ncu_steps llama3-8b
  fi
  if [[ $parts == *sass* ]]; then
    room sass || return 0
    local f cuobjdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
    for f in $($cuobjdump -sass $b/vt 2>/dev/null | grep -o 'Function : [^ ]*DecodePersistentKernel[^ ]*' | cut -d' ' -f3); do
      $cuobjdump -sass -fun $f $b/vt > $o/sass-$(echo $f | grep -o 'ILi[0-9]*').txt 2>&1
    done
    echo "sass: $(ls $o | grep sass | tr '\n' ' ')"
  fi
  if [[ $parts == *gates* ]]; then
    gpu_gates
  fi
  if [[ $parts == *final* ]]; then
    gpu_final
  fi
}
gpu_job_run s25
