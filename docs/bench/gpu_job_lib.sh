# What the sessions' GPU job scripts (docs/bench/session*/gpu.sh, from the eighteenth on) share,
# sourced by them from the repository root on the device machine.
#
# gpu_job_setup NAME: unpacks .gpu/pack.tar.xz (bin/vt, the vt_gpu_*_tests, extras), sets b (the
# binaries) and o ($OUT/NAME, the job's output), records the GPU and the binaries' hashes there and
# exports what the binaries and tests read.
gpu_job_setup() {
  (cd .gpu && tar xJf pack.tar.xz) && chmod +x .gpu/bin/*
  b=.gpu/bin
  o=$OUT/$1
  mkdir -p "$o"
  nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee -a "$o/gpu.txt"
  (cd "$b" && sha256sum *) > "$o/binaries.sha256"
  export LD_LIBRARY_PATH=/usr/local/cuda/lib64 VT_DEFAULT_MODEL=$PWD/assets/models/fortune-qwen3-7m VT_SOURCE_DIR=$PWD
}

# room WHAT...: whether a run may start: only while the job has 60 s left of its JOB_LIMIT (560 s by
# default), so that its output is always packed; otherwise says so in $o/gpu.txt.
room() { (( SECONDS + 60 < ${JOB_LIMIT:-560} )) || { echo "no room at $SECONDS s: $*" | tee -a $o/gpu.txt; false; }; }

# gpu_job_run NAME: runs the session script's run_parts (its parts in $parts; with `h200only` among
# them, a GPU other than an H200 runs only those in H100_PARTS, none by default), then packs $o.
gpu_job_run() {
  SECONDS=0
  [[ $parts == *h200only* ]] && ! grep -q H200 $o/gpu.txt && parts=${H100_PARTS:-none}
  run_parts
  echo "parts took $SECONDS s" | tee -a $o/gpu.txt
  gpu_job_pack $1
}

# gpu_job_pack NAME: the job's output as one archive ($OUT/NAME.tgz): the device returns few files.
gpu_job_pack() {
  (cd "$OUT" && tar czf "$1.tgz" "$1" && rm -rf "$1")
}

# The end-to-end benchmark's short prompts (issue #17's table: dummy weights, 32 in / 128 out).
short="--backend cuda --load-format dummy --input-len 32 --output-len 128"

# Reads `vt bench decode --json` on stdin; prints each concurrency's output tokens/s.
tok_s() {
  python3 -c "import json,sys; d=json.load(sys.stdin); print(' '.join('c=%d %.1f' % (r['concurrency'], r['output_tokens_per_s']) for r in d['results']))"
}

# gtest NAME LIMIT BINARY [ARGS...]: runs one gate binary into $o/NAME.log within LIMIT seconds and
# prints its summary and first failures.
gtest() {
  local name=$1 limit=$2; shift 2
  timeout -k 5 $limit "$@" > $o/$name.log 2>&1
  echo "$name rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $o/$name.log | tr '\n' ' ')"
  grep -E "Failure|FAILED|rror" $o/$name.log | head -10
}

# e2e_table [BIN]: issue #17's end-to-end table with bin/BIN (vt by default), two rounds, into $o/e2e.txt.
e2e_table() {
  local bin=${1:-vt} round mc r
  for round in 1 2; do
    for mc in "qwen3-1.7b 1,8,64" "llama3-8b 1,8,64" "llama3-8b-gptq 1,8"; do
      set -- $mc
      r=$(timeout -k 5 150 $b/$bin bench decode $short --model preset:$1 --concurrency $2 --json 2>>$o/e2e.err | tok_s)
      echo "$1 round $round: $r" | tee -a $o/e2e.txt
    done
  done
}

# decode_rounds LOG "BIN ..." "MODEL CONCURRENCY" ...: two rounds of short-prompt decode, each bin/BIN in
# turn on each model preset at its concurrency list, appended to $o/LOG.txt.
decode_rounds() {
  local log=$1 bins=$2 round bin mc r
  shift 2
  local models=("$@")
  for round in 1 2; do
    for bin in $bins; do
      for mc in "${models[@]}"; do
        set -- $mc
        r=$(timeout -k 5 150 $b/$bin bench decode $short --model preset:$1 --concurrency $2 --json 2>>$o/$log.err | tok_s)
        echo "$1 $bin round $round: $r" | tee -a $o/$log.txt
      done
    done
  done
}

# The W4A16 benchmark's six shapes (llama3-8b's and llama3-70b's projections).
w4a16_shapes=4096x4096,4096x6144,4096x28672,14336x4096,8192x8192,8192x28672

# w4a16_table NAME BIN [ARGS...]: `vt bench w4a16 --forms auto` of bin/BIN on the six shapes with ARGS
# (--ms, --dependent-launch), into $o/w4-NAME.txt, and printed.
w4a16_table() {
  local name=$1 bin=$2; shift 2
  timeout -k 5 120 $b/$bin bench w4a16 --forms auto --shapes $w4a16_shapes "$@" > $o/w4-$name.txt 2>&1
  echo "bench $name rc $?"; cat $o/w4-$name.txt
}

# gptq_decode LOG CONCURRENCY BIN...: llama3-8b W4A16 decode (short prompts) with each bin/BIN in turn,
# appended to $o/LOG.txt.
gptq_decode() {
  local log=$1 conc=$2 bin r; shift 2
  for bin in "$@"; do
    r=$(timeout -k 5 150 $b/$bin bench decode $short --model preset:llama3-8b-gptq --concurrency $conc --json 2>>$o/$log.err | tok_s)
    echo "llama3-8b-gptq $bin: $r" | tee -a $o/$log.txt
  done
}

# decode_8k BIN MODEL CONCURRENCY LOG: MODEL's 8k decode-only steps with bin/BIN (dummy weights, every
# prompt prefilled first, 64 output tokens), stderr appended to $o/LOG.err; prints each concurrency's
# decode ITL and TPOT medians.
decode_8k() {
  timeout -k 5 150 $b/$1 bench decode --backend cuda --load-format dummy --model preset:$2 \
    --input-len 8192 --output-len 64 --concurrency $3 --max-num-batched-tokens 65536 \
    --max-prefill-beside-decodes 65536 --json 2>>$o/$4.err |
    python3 -c "import json,sys; d=json.load(sys.stdin); print(' '.join('c=%d itl %.3f tpot %.3f ms' % (r['concurrency'], r['decode_itl_ms']['median'], r['tpot_ms']['median']) for r in d['results']))"
}

# long_decode [BIN]: issue #16's qwen3-1.7b 8k decode-only steps (c = 1 and 8) with bin/BIN (vt by
# default), into $o/e2e.txt.
long_decode() {
  echo "qwen3-1.7b 8k decode-only: $(decode_8k ${1:-vt} qwen3-1.7b 1,8 e2e)" | tee -a $o/e2e.txt
}

# sanitize_persist LIMIT: compute-sanitizer racecheck and memcheck on the persist arm's gates, each
# within LIMIT seconds. ReadsOlderKeysBeforeTheKernelBeforeEnds needs overlapping launches: it fails
# under the sanitizer by design and is left out.
sanitize_persist() {
  local tool
  for tool in racecheck memcheck; do
    timeout -k 5 "$1" compute-sanitizer --tool $tool --error-exitcode 9 $b/vt_gpu_attention_tests \
      --gtest_filter='*PersistentGivesTheGqaBits*:PersistentAfterALateWriter.SeesEverything*' > $o/sanitizer-$tool.txt 2>&1
    echo "sanitizer $tool rc $? $(tail -1 $o/sanitizer-$tool.txt)"
  done
}

# ncu_steps MODEL: one c = 1 decode step of MODEL, node by node, into $o/steps-MODEL.csv and its table.
ncu_steps() {
  timeout -k 5 150 ncu --graph-profiling node --metrics gpu__time_duration.sum,dram__bytes_read.sum --csv \
    --page raw -k 'regex:Skinny|RmsNorm|Qkv|Persist|Merge|Silu|Argmax|Embedding|Gqa' \
    $b/vt bench decode ${short/128/3} --model preset:$1 --concurrency 1 > $o/steps-$1.csv 2>$o/steps-$1.err
  echo "ncu steps $1 rc $?"
  python3 tools/ncu_step_timeline.py $o/steps-$1.csv | tee $o/steps-$1.txt
}
# gpu_final: issue #17's end-to-end table and issue #16's 8k decode with bin/vt, while there is room.
gpu_final() {
  room final || return 0
  e2e_table vt
  room long || return 0
  long_decode vt
}

# gpu_gates [NAME...]: the GPU gate binaries NAME (every one of the pack by default), each within 200
# s, while `room` leaves time for one more.
gpu_gates() {
  local t
  for t in ${@:-attention engine forward_ops prefill_gemm smoke w4a16}; do
    room gates $t || return 0
    gtest $t 200 $b/vt_gpu_${t}_tests
  done
}
