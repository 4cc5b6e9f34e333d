# Twenty-sixth session's GPU jobs. Usage: bash docs/bench/session26-2026-12-07/gpu.sh PARTS
#   last     the twenty-fifth session's landed build (bin/vt_head, 0a42d26: the merge kernel reading the
#            context first, the schedule's divisions in 32 bits) against bin/vt_prev (be743e5's two
#            kernel files on 0a42d26: `git checkout be743e5 -- kernels/cuda/attention/decode_merge.cu
#            kernels/cuda/attention/work_schedule.h`, `vt` built and copied, then `git checkout HEAD --`
#            the two): every GPU gate of this build, `vt bench attention --dependent-launch` of both
#            (persist, batches 1, 8, 64, 48-16,400 keys), then rounds (LAST_ROUNDS, 1 2 by default) of
#            qwen3-1.7b short c = 1, 8, 8k decode-only c = 1, 8 and `vt serve` c = 64 at its own
#            max_model_len with bin/vt_prev, bin/vt_head, bin/vt_argmax (the sliced argmax: c431757 and
#            its fix 007c1ab, on 628e0ae) and bin/vt (also the norm and QKV-prepare kernels' reads
#            before the dependent-launch wait, 2ea0742)
# The pack (/tmp/pack.sh-style: bin/ of stripped binaries in .gpu/pack.tar.xz, carried as .gpu):
# bin/vt and the vt_gpu_*_tests from main; bin/vt_head `vt` built at 0a42d26 (`git checkout 0a42d26`,
# build, copy, `git checkout main`); bin/vt_argmax `vt` built on main with `git checkout c431757 --
# kernels/cuda/ops/forward_ops.cu kernels/cuda/ops/qkv_prepare.cu` (then `git checkout main --` the
# two); bin/vt_prev as `last` says, on 0a42d26.
#   table    issue #17's end-to-end table with bin/vt_head and bin/vt (both of this session's changes)
#            in turn, two rounds, then issue #16's qwen3-1.7b 8k decode-only with both, and the argmax kernels of
#            a few qwen3-1.7b decode steps of each (c = 1, 8, 64) under ncu
#   one      what one window must hold, most needed first: every GPU gate, the end-to-end table of
#            bin/vt_head and bin/vt in turn (two rounds), one round of `last`'s decode and serve runs
#            with its four binaries, then `last`'s attention A/B
#   gates    every GPU gate binary of this build
#   final    issue #17's end-to-end table and issue #16's 8k decode with bin/vt, two rounds
#   h200only with it, a GPU other than an H200 runs only the parts in H100_PARTS (none by default)
# A run starts only while the job has 60 s left of its JOB_LIMIT (560 by default; `room`, in
# ../gpu_job_lib.sh), so the output is always packed.
source "$(dirname "$0")/../gpu_job_lib.sh"
gpu_job_setup s26
parts=${1:-gates,final}
run_parts() {
  if [[ $parts == *one* ]]; then
    gpu_gates
    e2e_table vt_head vt || return 0
    decode_ab one "vt_prev vt_head vt_argmax vt" 1 serve || return 0
    persist_ab one "vt_prev vt_head" || return 0
  fi
  if [[ $parts == *last* ]]; then
    gpu_gates $LAST_GATES
    persist_ab last "vt_prev vt_head" || return 0
    decode_ab last "vt_prev vt_head vt_argmax vt" "${LAST_ROUNDS:-1 2}" serve || return 0
  fi
  if [[ $parts == *table* ]]; then
    local bin
    e2e_table vt_head vt || return 0
    for bin in vt_head vt; do
      room table 8k || return 0
      echo "qwen3-1.7b 8k decode-only $bin: $(decode_8k $bin qwen3-1.7b 1,8 e2e)" | tee -a $o/e2e.txt
    done
    for bin in vt_head vt; do
      room table ncu || return 0
      timeout -k 5 150 ncu --graph-profiling node --metrics gpu__time_duration.sum,dram__bytes_read.sum --csv \
        --page raw -k regex:Argmax $b/$bin bench decode ${short/128/3} --model preset:qwen3-1.7b \
        --concurrency 1,8,64 > $o/argmax-$bin.csv 2>$o/argmax-$bin.err
      echo "ncu argmax $bin rc $?"
      grep -i argmax $o/argmax-$bin.csv | tail -3
    done
  fi
  if [[ $parts == *gates* ]]; then
    gpu_gates
  fi
  if [[ $parts == *final* ]]; then
    gpu_final
  fi
}
gpu_job_run s26
