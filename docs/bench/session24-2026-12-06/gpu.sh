# Twenty-fourth session's GPU jobs. Usage: bash docs/bench/session24-2026-12-06/gpu.sh PARTS
#   unsplit  the attention dependent at five to eight rows where its call is unsplit (bin/vt, ce1b1fb or
#            later) against the launches before it (bin/vt_attn: vt built with 8653be6's
#            engine/backends/cuda/decoder.cpp and ../session23-2026-12-06/pdl-attention-rows.patch, run
#            without VT_PDL_ATTN_MAX_ROWS): the engine gates, then two rounds of qwen3-1.7b c = 6, 8,
#            llama3-8b c = 8 and qwen3-1.7b 8k decode-only c = 8
#   short    the decode attention at short contexts: `vt bench attention` of the persist, gqa and solo
#            arms at batches 1 and 8, 48-256 keys, plain and dependent; ncu of the persist kernel there
#   steps    one qwen3-1.7b and one llama3-8b c = 1 decode step kernel by kernel under ncu
#            (tools/ncu_step_timeline.py)
#   pf       l2-prefetch.patch (bin/vt_pf): the persist arm's first item's older subtiles asked of the L2
#            before the dependent-launch wait, VT_ATTN_L2_PREFETCH = 0 (off), 1 (always), 2 (where every
#            CTA has at most one item): `vt bench attention --dependent-launch` at batches 1 and 8, then
#            qwen3-1.7b 8k decode-only c = 1 and short prompts c = 1, two rounds
#   s3       three-stages.patch (bin/vt_s3: three cp.async stages a warp in the persist arm at head_dim 128,
#            two CTAs an SM instead of three) against bin/vt: `vt bench attention` of both, plain and
#            dependent, batches 1, 8, 64 from 48 to 16,400 keys; then two rounds of qwen3-1.7b short c = 1, 8,
#            llama3-8b short c = 1 and qwen3-1.7b 8k decode-only c = 1, 8; the attention gates on vt_s3's
#            kernel are not in this build (its tests binary is HEAD's)
#   (stalls and mergectx, prepared here and never run, moved to ../session25-2026-12-06/gpu.sh)
#   gates    every GPU gate binary of this build (attention, engine, forward ops, prefill GEMM, smoke, W4A16)
#   final    issue #17's end-to-end table and issue #16's 8k decode with bin/vt, two rounds
#   h200only with it, a GPU other than an H200 runs only the parts in H100_PARTS (none by default)
# A run starts only while the job has 60 s left of its JOB_LIMIT (560 by default; `room`, in
# ../gpu_job_lib.sh), so the output is always packed.
source "$(dirname "$0")/../gpu_job_lib.sh"
gpu_job_setup s24
parts=${1:-gates,final}
# ab_decode LOG "BIN ..." QWEN_C LLAMA_C LONG_C: two rounds, each bin/BIN in turn: qwen3-1.7b short prompts
# at concurrencies QWEN_C, llama3-8b at LLAMA_C and qwen3-1.7b 8k decode-only at LONG_C, into $o/LOG.txt.
ab_decode() {
  local log=$1 round bin r
  for round in 1 2; do
    for bin in $2; do
      room $log $bin || return 0
      r=$(timeout -k 5 150 $b/$bin bench decode $short --model preset:qwen3-1.7b --concurrency $3 --json 2>>$o/$log.err | tok_s)
      echo "qwen3-1.7b $bin round $round: $r" | tee -a $o/$log.txt
      r=$(timeout -k 5 150 $b/$bin bench decode $short --model preset:llama3-8b --concurrency $4 --json 2>>$o/$log.err | tok_s)
      echo "llama3-8b $bin round $round: $r" | tee -a $o/$log.txt
      echo "qwen3-1.7b 8k decode-only $bin round $round: $(decode_8k $bin qwen3-1.7b $5 $log)" | tee -a $o/$log.txt
    done
  done
}
run_parts() {
  if [[ $parts == *unsplit* ]]; then
    gtest engine 200 $b/vt_gpu_engine_tests
    ab_decode unsplit "vt_attn vt" 6,8 8 8
  fi
  if [[ $parts == *short* ]]; then
    room short || return 0
    local dl
    for dl in "" --dependent-launch; do
      timeout -k 5 100 $b/vt bench attention --arms persist gqa solo --shapes qwen3-1.7b llama3-8b --batches 1 8 \
        --contexts 48 96 160 256 $dl > $o/short$dl.txt 2>&1
      echo "short $dl rc $?"; cat $o/short$dl.txt
    done
    timeout -k 5 150 ncu --clock-control none --graph-profiling node --metrics gpu__time_duration.sum \
      -k regex:'DecodePersistent|MergeChunks' $b/vt bench attention --arms persist --shapes qwen3-1.7b llama3-8b \
      --batches 1 8 --contexts 48 160 256 --launches 1 --reps 3 > $o/ncu-short.txt 2>&1
    echo "ncu short rc $?"
  fi
  if [[ $parts == *pf* ]]; then
    local mode round
    for mode in 0 1 2; do
      room pf bench || return 0
      VT_ATTN_L2_PREFETCH=$mode timeout -k 5 100 $b/vt_pf bench attention --arms persist --shapes qwen3-1.7b llama3-8b \
        --batches 1 8 --contexts 160 4100 8200 16400 --dependent-launch > $o/pf-att-$mode.txt 2>&1
      echo "pf attention mode $mode rc $?"; cat $o/pf-att-$mode.txt
    done
    for round in 1 2; do
      for mode in 0 1 2; do
        room pf e2e || return 0
        echo "qwen3-1.7b 8k c=1 mode $mode round $round: $(VT_ATTN_L2_PREFETCH=$mode decode_8k vt_pf qwen3-1.7b 1 pf)" | tee -a $o/pf.txt
        r=$(VT_ATTN_L2_PREFETCH=$mode timeout -k 5 150 $b/vt_pf bench decode $short --model preset:qwen3-1.7b --concurrency 1 --json 2>>$o/pf.err | tok_s)
        echo "qwen3-1.7b short mode $mode round $round: $r" | tee -a $o/pf.txt
      done
    done
  fi
  if [[ $parts == *s3* ]]; then
    local bin dl
    for bin in vt vt_s3; do
      for dl in "" --dependent-launch; do
        room s3 bench || return 0
        timeout -k 5 100 $b/$bin bench attention --arms persist --shapes qwen3-1.7b llama3-8b --batches 1 8 64 \
          --contexts 48 160 256 1024 4100 8200 16400 $dl > $o/s3-att-$bin$dl.txt 2>&1
        echo "s3 attention $bin $dl rc $?"; cat $o/s3-att-$bin$dl.txt
      done
    done
    ab_decode s3 "vt vt_s3" 1,8 1 1,8
  fi
  if [[ $parts == *steps* ]]; then
    room steps || return 0
    ncu_steps qwen3-1.7b
    room steps || return 0
    ncu_steps llama3-8b
  fi
  if [[ $parts == *gates* ]]; then
    gpu_gates
  fi
  if [[ $parts == *final* ]]; then
    gpu_final
  fi
}
gpu_job_run s24
