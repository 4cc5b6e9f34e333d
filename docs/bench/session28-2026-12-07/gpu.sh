# Twenty-eighth session's GPU jobs. Usage: bash docs/bench/session28-2026-12-07/gpu.sh [PARTS]
# The pack (.gpu/pack.tar.xz, carried as .gpu): bin/vt and the vt_gpu_*_tests built from the probe
# build (8cbbdc1 with skinny-preload-late-trigger.patch's first form, PREDICTIONS.md item 1), whose `VT_SKINNY_PRELOAD=1` loads the skinny GEMM's weights
# before the dependent-launch wait; bin/vt_pre (written here) is bin/vt with the switch set.
#   steps    (with the twenty-seventh session's pack, bin/vt = edff2bf) one decode step kernel by kernel
#            under ncu: qwen3-1.7b and llama3-8b at c = 1, qwen3-1.7b at c = 64 with cuBLAS's kernels
#            (`2-h100-step-timelines/`, run as one inline command with these calls)
#   gates    the engine, forward-ops and prefill + GEMM gates with the switch set
#   gemm     `vt bench gemm --dependent-launch` of qwen3-1.7b's shapes, off and on
#   preload  two rounds of qwen3-1.7b short c = 1, 8 with bin/vt and bin/vt_pre, then the 8k
#            decode-only of both
# From `late` on the pack's build also has `VT_NORM_LATE_TRIGGER` and `VT_SKINNY_PRELOAD_N`
# (PREDICTIONS.md item 2), each a wrapper below:
#   lgates   the engine and forward-ops gates with both switches set
#   late     two rounds of qwen3-1.7b short c = 1, 8 with bin/vt, vt_pre, vt_late, vt_prelate and
#            vt_preo, then the 8k decode-only of vt, vt_prelate and vt_preo
#   late2    two rounds of qwen3-1.7b and llama3-8b short c = 1, 8 with bin/vt, vt_late and vt_lateo,
#            then the 8k decode-only of the three (`5-h100-late-oproj/`, run as one inline command
#            with these calls)
# From `final` on the pack is the committed build (PREDICTIONS.md item 3): bin/vt and the
# vt_gpu_*_tests at this session's o_proj commit, bin/vt_head 8cbbdc1's `vt` (the session's start).
#   fgates   the prefill + GEMM, forward-ops, engine and smoke gates, then compute-sanitizer racecheck
#            and memcheck on SkinnyGemm.*
#   final    two rounds of qwen3-1.7b short c = 1, 8 and llama3-8b c = 1, 8 with bin/vt_head and
#            bin/vt, then two rounds of both binaries' qwen3-1.7b 8k decode-only c = 1, 8
#   l32k     qwen3-1.7b 32k decode-only c = 1 with bin/vt_head and bin/vt, three rounds, and the
#            persist arm at batch 1 on 4-32k keys (`7-h100-32k/`, run as two inline commands with
#            these calls, the first holding round 1)
# From `early` on the pack is item 4's build: bin/vt and the gate binaries with the unsplit attention
# letting a preloading o_proj launch early, bin/vt_head aa587f6's `vt`.
#   egates   the engine and attention gates
#   early    two rounds of qwen3-1.7b short c = 1, 2, 4, 8 and llama3-8b c = 1, 8 with bin/vt_head and
#            bin/vt, then one round of both binaries' qwen3-1.7b 8k decode-only c = 1, 8
# From `fgates2` on the pack is item 5's build (cce8f31, the session's last code commit run on a GPU): bin/vt and the gate
# binaries, bin/vt_head aa587f6's `vt`.
#   fgates2  the prefill + GEMM and engine gates
#   final2   two rounds of qwen3-1.7b short c = 1, 2, 4, 8 and llama3-8b c = 1, 8 with bin/vt_head and
#            bin/vt, then one round of both binaries' qwen3-1.7b 8k decode-only c = 1, 8
# For the next session (not run here): bin/vt and every vt_gpu_*_tests at this session's last commit,
# bin/vt_head 8cbbdc1's `vt` (the session's start):
#   ngates   every GPU gate suite, then compute-sanitizer on the SkinnyGemm tests
#   next     issue #17's end-to-end table (two rounds, c = 1 / 8 / 64, W4A16) and issue #16's 8k
#            decode-only of bin/vt_head and bin/vt: on an H200, the goals' own numbers (a call of its own:
#            with the gates it would pass one call's 600 s)
# Each part's runs start only while the job has 60 s left of its JOB_LIMIT (../gpu_job_lib.sh).
source "$(dirname "$0")/../gpu_job_lib.sh"
gpu_job_setup s28
wrap vt_pre VT_SKINNY_PRELOAD=1
wrap vt_late VT_NORM_LATE_TRIGGER=1
wrap vt_prelate "VT_SKINNY_PRELOAD=1 VT_NORM_LATE_TRIGGER=1"
wrap vt_preo "VT_SKINNY_PRELOAD=1 VT_SKINNY_PRELOAD_N=,2048,"
wrap vt_lateo "VT_NORM_LATE_TRIGGER=1 VT_SKINNY_PRELOAD=1 VT_SKINNY_PRELOAD_N=,2048,"
parts=,${1:-gates,gemm,preload},
run_parts() {
  local bin t
  if [[ $parts == *,steps,* ]]; then
    ncu_steps qwen3-1.7b
    ncu_steps llama3-8b
    ncu_decode steps64-qwen vt qwen3-1.7b 64 'Skinny|RmsNorm|Qkv|Persist|Merge|Silu|Argmax|Embedding|Gqa|gemm|Gemm|sm90'
    python3 tools/ncu_step_timeline.py $o/steps64-qwen.csv | tee $o/steps64-qwen.txt
  fi
  if [[ $parts == *,gates,* ]]; then
    for t in prefill_gemm forward_ops engine; do
      room gates $t || return 0
      VT_SKINNY_PRELOAD=1 gtest $t-pre 200 $b/vt_gpu_${t}_tests
    done
  fi
  if [[ $parts == *,gemm,* ]]; then
    for t in 0 1; do
      room gemm || return 0
      VT_SKINNY_PRELOAD=$t timeout -k 5 100 $b/vt bench gemm --shapes 2048x2048,2048x4096,2048x12288,6144x2048,2048x151936 \
        --ms 1 8 --dependent-launch > $o/gemm-pre$t.txt 2>&1
      echo "gemm preload $t rc $?"; cat $o/gemm-pre$t.txt
    done
  fi
  if [[ $parts == *,preload,* ]]; then
    short_and_8k preload "vt vt_pre" "vt vt_pre" "qwen3-1.7b 1,8" || return 0
  fi
  if [[ $parts == *,lgates,* ]]; then
    for t in forward_ops engine; do
      room lgates $t || return 0
      VT_SKINNY_PRELOAD=1 VT_NORM_LATE_TRIGGER=1 gtest $t-prelate 200 $b/vt_gpu_${t}_tests
    done
  fi
  if [[ $parts == *,late,* ]]; then
    short_and_8k late "vt vt_pre vt_late vt_prelate vt_preo" "vt vt_prelate vt_preo" "qwen3-1.7b 1,8" || return 0
  fi
  if [[ $parts == *,late2,* ]]; then
    short_and_8k late2 "vt vt_late vt_lateo" "vt vt_late vt_lateo" "qwen3-1.7b 1,8" "llama3-8b 1,8" || return 0
  fi
  if [[ $parts == *,fgates,* ]]; then
    gpu_gates prefill_gemm forward_ops engine smoke
    room sanitizer || return 0
    sanitize 90 vt_gpu_prefill_gemm_tests 'SkinnyGemm.*'
  fi
  if [[ $parts == *,final,* ]]; then
    decode_rounds final "vt_head vt" "qwen3-1.7b 1,8" "llama3-8b 1,8" || return 0
    for t in 1 2; do
      for bin in vt_head vt; do
        room final 8k || return 0
        long_run final $bin $t
      done
    done
  fi
  if [[ $parts == *,egates,* ]]; then
    gpu_gates engine attention
  fi
  if [[ $parts == *,early,* ]]; then
    short_and_8k early "vt_head vt" "vt_head vt" "qwen3-1.7b 1,2,4,8" "llama3-8b 1,8" || return 0
  fi
  if [[ $parts == *,fgates2,* ]]; then
    gpu_gates prefill_gemm engine
  fi
  if [[ $parts == *,final2,* ]]; then
    short_and_8k final2 "vt_head vt" "vt_head vt" "qwen3-1.7b 1,2,4,8" "llama3-8b 1,8" || return 0
  fi
  if [[ $parts == *,ngates,* ]]; then
    gpu_gates
    room sanitizer || return 0
    sanitize 90 vt_gpu_prefill_gemm_tests 'SkinnyGemm.*'
  fi
  if [[ $parts == *,next,* ]]; then
    table_and_long_decode next vt_head vt || return 0
  fi
  if [[ $parts == *,l32k,* ]]; then
    for t in 1 2 3; do
      for bin in vt_head vt; do
        room l32k || return 0
        echo "qwen3-1.7b 32k $bin round $t: $(decode_32k $bin)" | tee -a $o/32k.txt
      done
    done
    timeout 100 $b/vt bench attention --arms persist --shapes qwen3-1.7b --batches 1 \
      --contexts 4100 8200 16400 32800 --dependent-launch > $o/att-b1.txt 2>&1
    cat $o/att-b1.txt
  fi
}
# short_and_8k LOG "BIN..." "BIN8K..." "MODEL CONCURRENCY"...: decode_rounds of each BIN, then one
# qwen3-1.7b 8k decode-only (c = 1, 8) of each BIN8K, lines into $o/LOG.txt; returns 1 where `room` stops it.
short_and_8k() {
  local log=$1 bins=$2 long_bins=$3 bin
  shift 3
  decode_rounds $log "$bins" "$@" || return 1
  for bin in $long_bins; do
    room $log 8k || return 1
    echo "qwen3-1.7b 8k decode-only $bin: $(decode_8k $bin qwen3-1.7b 1,8 $log)" | tee -a $o/$log.txt
  done
}
# decode_32k BIN: qwen3-1.7b's 32k decode-only c = 1 with bin/BIN; prints the ITL and TPOT medians.
decode_32k() {
  timeout -k 5 150 $b/$1 bench decode --backend cuda --load-format dummy --model preset:qwen3-1.7b \
    --input-len 32768 --output-len 64 --concurrency 1 --max-num-batched-tokens 65536 \
    --max-prefill-beside-decodes 65536 --json 2>>$o/32k.err |
    python3 -c "import json,sys; d=json.load(sys.stdin); print(' '.join('c=%d itl %.3f tpot %.3f ms' % (r['concurrency'], r['decode_itl_ms']['median'], r['tpot_ms']['median']) for r in d['results']))"
}
gpu_job_run s28
