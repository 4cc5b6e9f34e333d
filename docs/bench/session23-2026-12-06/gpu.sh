# Twenty-third session's GPU jobs. Usage: bash docs/bench/session23-2026-12-06/gpu.sh PARTS
#   final    issue #17's end-to-end table and issue #16's 8k decode with bin/vt, two rounds (runs first)
#   unsplit  the attention dependent at five to eight rows where its call is unsplit (bin/vt, ce1b1fb or
#            later) against the launches before it (bin/vt_attn without VT_PDL_ATTN_MAX_ROWS): the engine
#            gates, qwen3-1.7b c = 6, 8 and 8k decode-only c = 8. bin/vt_attn is vt built with 8653be6's
#            engine/backends/cuda/decoder.cpp and pdl-attention-rows.patch applied to it
#   gates    every GPU gate binary of this commit's build (attention, engine, forward ops, prefill GEMM,
#            smoke, W4A16)
#   h200only with it, a GPU other than an H200 runs only the parts in H100_PARTS (ncu by default)
#   attn     the attention launched dependently in steps of up to eight rows (bin/vt_attn,
#            pdl-attention-rows.patch; VT_PDL_ATTN_MAX_ROWS=8 against 4): its token gate, qwen3-1.7b c = 8
#            short prompts and 8k decode-only, two rounds, then llama3-8b c = 8 short prompts while room is left
#   merge    the merge kernel's loads issued together (bin/vt) against HEAD (bin/vt_prev): attention gates,
#            ncu of both kernels, the kernel table plain and dependent, qwen3-1.7b 8k decode-only c = 1, 8
#            (two rounds), the engine gates
#   ncu      the persist kernel and its merge kernel timed apart by ncu (real clocks, cold caches)
#   probe    kv_stream_probe (kv_stream_probe.cu beside this script, built by the command in its header):
#            the persist arm's per-warp loads against a TMA producer ring, loads only; the persist arm
#            itself and cuDNN's SDPA (tools/sdpa_decode_anchor.py) on the same shapes
# A run starts only while the job has 60 s left of its JOB_LIMIT (560 by default; `room`), so the output
# is always packed.
source "$(dirname "$0")/../gpu_job_lib.sh"
gpu_job_setup s23
parts=${1:-gates,final}
limit=${JOB_LIMIT:-560}  # the device time the job may use, when less is left than a call's 600 s
room() { (( SECONDS + 60 < limit )) || { echo "no room at $SECONDS s: $*" | tee -a $o/gpu.txt; false; }; }
# ncu_attention BIN LOG: the persist kernel and its merge kernel of bin/BIN timed apart by ncu (real clocks,
# cold caches, every kernel of one launch a shape), qwen3-1.7b and llama3-8b, batches 1, 8, 64, into $o/LOG.txt.
ncu_attention() {
  timeout -k 5 150 ncu --clock-control none --graph-profiling node --metrics gpu__time_duration.sum \
    -k regex:'DecodePersistent|MergeChunks' $b/$1 bench attention --arms persist --shapes qwen3-1.7b llama3-8b \
    --batches 1 8 64 --contexts 4100 8200 16400 --launches 1 --reps 3 > $o/$2.txt 2>&1
  echo "ncu $1 rc $?"
}
run_parts() {
  if [[ $parts == *probe* ]]; then
    timeout -k 5 120 $b/kv_stream_probe > $o/probe.txt 2>&1
    echo "probe rc $?"; cat $o/probe.txt
    timeout -k 5 120 $b/vt bench attention --arms persist --shapes qwen3-1.7b --batches 1 8 64 \
      --contexts 4100 8200 16400 > $o/persist.txt 2>&1
    echo "persist rc $?"; cat $o/persist.txt
    timeout -k 5 120 python3 tools/sdpa_decode_anchor.py --shapes qwen3-1.7b --batches 1,8,64 \
      --contexts 4100,8200,16400 > $o/sdpa.txt 2>&1
    echo "sdpa rc $?"; cat $o/sdpa.txt
  fi
  if [[ $parts == *ncu* ]]; then  # the persist kernel and the merge kernel apart (1b-h100-ncu/)
    ncu_attention vt ncu-real-clocks
  fi
  if [[ $parts == *merge* ]]; then  # the merge kernel's loads issued together (bin/vt) against HEAD (bin/vt_prev)
    gtest attention 200 $b/vt_gpu_attention_tests
    local bin round
    for bin in vt_prev vt; do
      ncu_attention $bin ncu-$bin
      for dl in "" --dependent-launch; do
        timeout -k 5 100 $b/$bin bench attention --arms persist --shapes qwen3-1.7b llama3-8b --batches 1 8 64 \
          --contexts 4100 8200 16400 $dl > $o/att-$bin$dl.txt 2>&1
        echo "attention $bin $dl rc $?"; cat $o/att-$bin$dl.txt
      done
    done
    for round in 1 2; do
      for bin in vt_prev vt; do
        room merge 8k || return 0
        echo "qwen3-1.7b 8k $bin round $round: $(decode_8k $bin qwen3-1.7b 1,8 merge8k)" | tee -a $o/merge8k.txt
      done
    done
    room engine || return 0
    gtest engine 200 $b/vt_gpu_engine_tests
  fi
  if [[ $parts == *final* ]]; then
    room final || return 0
    e2e_table vt
    room long || return 0
    long_decode vt
  fi
  if [[ $parts == *attn* ]]; then  # the attention dependent up to eight rows (bin/vt_attn, VT_PDL_ATTN_MAX_ROWS)
    VT_PDL_ATTN_MAX_ROWS=8 gtest engine-attn8 150 $b/vt_gpu_engine_tests --gtest_filter='*DependentLaunch*'
    local rows round r
    attn_short() {  # MODEL ROWS ROUND
      r=$(VT_PDL_ATTN_MAX_ROWS=$2 timeout -k 5 150 $b/vt_attn bench decode $short --model preset:$1 --concurrency 8 --json 2>>$o/attn.err | tok_s)
      echo "$1 attention rows $2 round $3: $r" | tee -a $o/attn.txt
    }
    for round in 1 2; do
      for rows in 4 8; do
        room attn qwen3-1.7b || return 0
        attn_short qwen3-1.7b $rows $round
        room attn 8k || return 0
        r=$(VT_PDL_ATTN_MAX_ROWS=$rows decode_8k vt_attn qwen3-1.7b 8 attn)
        echo "qwen3-1.7b 8k decode-only attention rows $rows round $round: $r" | tee -a $o/attn.txt
      done
    done
    for round in 1 2; do
      for rows in 4 8; do
        room attn llama3-8b || return 0
        attn_short llama3-8b $rows $round
      done
    done
  fi
  if [[ $parts == *unsplit* ]]; then  # the rule kept (bin/vt) against HEAD's launches (bin/vt_attn, default)
    gtest engine 200 $b/vt_gpu_engine_tests
    local bin r
    for bin in vt_attn vt; do
      room unsplit $bin || return 0
      r=$(timeout -k 5 150 $b/$bin bench decode $short --model preset:qwen3-1.7b --concurrency 6,8 --json 2>>$o/unsplit.err | tok_s)
      echo "qwen3-1.7b $bin: $r" | tee -a $o/unsplit.txt
      echo "qwen3-1.7b 8k decode-only $bin: $(decode_8k $bin qwen3-1.7b 8 unsplit)" | tee -a $o/unsplit.txt
    done
  fi
  if [[ $parts == *gates* ]]; then
    local t
    for t in attention engine forward_ops prefill_gemm smoke w4a16; do
      room gates $t || return 0
      gtest $t 200 $b/vt_gpu_${t}_tests
    done
  fi
}
SECONDS=0
# h200only: on any other GPU only the ncu part runs (the rest was measured on an H100 already).
[[ $parts == *h200only* ]] && ! grep -q H200 $o/gpu.txt && parts=${H100_PARTS:-ncu}
run_parts
echo "parts took $SECONDS s" | tee -a $o/gpu.txt
gpu_job_pack s23
