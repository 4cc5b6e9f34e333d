# Twenty-third session's GPU jobs. Usage: bash docs/bench/session23-2026-12-06/gpu.sh PARTS
#   final    issue #17's end-to-end table and issue #16's 8k decode with bin/vt, two rounds (runs first)
#   gates    every GPU gate binary of this commit's build (attention, engine, forward ops, prefill GEMM,
#            smoke, W4A16)
#   probe    kv_stream_probe (kv_stream_probe.cu beside this script, built by the command in its header):
#            the persist arm's per-warp loads against a TMA producer ring, loads only; the persist arm
#            itself and cuDNN's SDPA (tools/sdpa_decode_anchor.py) on the same shapes
# A run starts only while the job has 60 s left of its 560 (`room`), so the output is always packed.
source "$(dirname "$0")/../gpu_job_lib.sh"
gpu_job_setup s23
parts=${1:-gates,final}
room() { (( SECONDS + 60 < 560 )) || { echo "no room at $SECONDS s: $*" | tee -a $o/gpu.txt; false; }; }
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
  if [[ $parts == *final* ]]; then
    room final || return 0
    e2e_table vt
    room long || return 0
    long_decode vt
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
run_parts
echo "parts took $SECONDS s" | tee -a $o/gpu.txt
gpu_job_pack s23
