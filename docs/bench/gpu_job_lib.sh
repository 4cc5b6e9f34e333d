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

# wrap NAME SETTINGS [TARGET]: bin/NAME runs bin/TARGET (vt by default) with the environment SETTINGS.
wrap() { printf '#!/bin/sh\n%s exec "$(dirname "$0")/%s" "$@"\n' "$2" "${3:-vt}" > $b/$1 && chmod +x $b/$1; }

# job_left: the seconds the job has before the last 60 s of its JOB_LIMIT (560 s by default), which
# are kept so that its output is always packed.
job_left() { echo $(( ${JOB_LIMIT:-560} - 60 - SECONDS )); }

# room WHAT...: whether a run may start: only while job_left is above 0; otherwise says so in
# $o/gpu.txt.
room() { (( $(job_left) > 0 )) || { echo "no room at $SECONDS s: $*" | tee -a $o/gpu.txt; false; }; }

# capped SECONDS: a run's limit, SECONDS or job_left where that is less, so no run outlasts the job.
capped() { local left=$(job_left); echo $(( left < $1 ? left : $1 )); }

# gpu_job_run NAME: runs the session script's run_parts (its parts in $parts; with `h200only` among
# them, a GPU other than an H200 runs only those in H100_PARTS, none by default), then packs $o.
gpu_job_run() {
  SECONDS=0
  [[ $parts == *h200only* ]] && ! grep -q H200 $o/gpu.txt && parts=,${H100_PARTS:-none},
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

# short_run LOG BIN ROUND MODEL CONCURRENCY: one short-prompt decode run of bin/BIN on MODEL's preset at
# the CONCURRENCY list, its line (tok/s a level) appended to $o/LOG.txt; returns 1 where `room` stops it.
short_run() {
  local r
  room $1 $2 || return 1
  r=$(timeout -k 5 150 $b/$2 bench decode $short --model preset:$4 --concurrency $5 --json 2>>$o/$1.err | tok_s)
  echo "$4 $2 round $3: $r" | tee -a $o/$1.txt
}

# e2e_table [BIN...]: issue #17's end-to-end table, two rounds, each model with each bin/BIN in turn
# (vt by default), into $o/e2e.txt; returns 1 where `room` stops it.
e2e_table() {
  local bins=${*:-vt} round mc bin
  for round in 1 2; do
    for mc in "qwen3-1.7b 1,8,64" "llama3-8b 1,8,64" "llama3-8b-gptq 1,8"; do
      for bin in $bins; do
        short_run e2e $bin $round $mc || return 1
      done
    done
  done
}

# decode_rounds LOG "BIN ..." "MODEL CONCURRENCY" ...: two rounds of short-prompt decode, each bin/BIN in
# turn on each model preset at its concurrency list, appended to $o/LOG.txt; returns 1 where `room`
# stops it.
decode_rounds() {
  local log=$1 bins=$2 round bin mc
  shift 2
  for round in 1 2; do
    for bin in $bins; do
      for mc in "$@"; do
        short_run $log $bin $round $mc || return 1
      done
    done
  done
}

# in_orders "CMD ARGS" "TAIL" ORDER...: CMD ARGS BIN ROUND TAIL for each ORDER's bins in turn, ROUND
# the order's number (turned orders separate a binary from its place in the job); returns 1 where a
# run does.
in_orders() {
  local cmd=$1 tail=$2 round=0 order bin
  shift 2
  for order in "$@"; do
    round=$((round + 1))
    for bin in $order; do
      $cmd $bin $round $tail || return 1
    done
  done
}

# decode_orders LOG "MODEL CONCURRENCY" "BIN..."...: one round of short-prompt decode a BIN list, each
# list's bins in its own order, lines into $o/LOG.txt; returns 1 where `room` stops it.
decode_orders() { in_orders "short_run $1" "$2" "${@:3}"; }

# The decode layers' GEMM shapes (K x N) of qwen3-1.7b and llama3-8b.
layer_gemm_shapes=2048x4096,2048x2048,2048x12288,6144x2048,4096x6144,4096x4096,4096x28672,14336x4096

# gemm_table BIN: `vt bench gemm --ms 1,8 --dependent-launch` of bin/BIN on the layer shapes, into
# $o/gemm-BIN.txt, and printed.
gemm_table() {
  timeout -k 5 100 $b/$1 bench gemm --shapes $layer_gemm_shapes --ms 1,8 --dependent-launch > $o/gemm-$1.txt 2>&1
  echo "gemm $1 rc $?"; cat $o/gemm-$1.txt
}

# The W4A16 benchmark's six shapes (llama3-8b's and llama3-70b's projections).
w4a16_shapes=4096x4096,4096x6144,4096x28672,14336x4096,8192x8192,8192x28672

# w4a16_forms NAME BIN FORMS [ARGS...]: `vt bench w4a16 --forms FORMS` of bin/BIN on the six shapes
# with ARGS (--ms, --dependent-launch), into $o/w4-NAME.txt, and printed.
w4a16_forms() {
  local name=$1 bin=$2 forms=$3; shift 3
  timeout -k 5 150 $b/$bin bench w4a16 --forms $forms --shapes $w4a16_shapes "$@" > $o/w4-$name.txt 2>&1
  echo "bench $name rc $?"; cat $o/w4-$name.txt
}

# w4a16_orders NAME MS ORDER...: w4a16_forms of the tiled form at --ms MS for each ORDER's bins in
# turn, into $o/w4-NAME-BIN-ROUND.txt; returns 1 where `room` stops it.
w4a16_orders() { in_orders "w4a16_tile_run $1 $2" "" "${@:3}"; }
w4a16_tile_run() {  # NAME MS BIN ROUND
  room $1 bench || return 1
  w4a16_forms $1-$3-$4 $3 tile --ms $2
}

# form_probe NAME "RUN" CONCURRENCY: a W4A16 probe, bin/vt_NAME with bin/vt_gpu_w4a16_tests_NAME,
# beside bin/vt: its gates, then RUN BIN ROUND (a kernel benchmark) and llama3-8b W4A16 at the
# CONCURRENCY list, each in two turned orders; returns 1 where `room` stops it.
form_probe() {
  room gates && gtest w4a16-$1 150 $b/vt_gpu_w4a16_tests_$1
  in_orders "$2" "" "vt vt_$1" "vt_$1 vt" || return 1
  gptq_orders e2e-$1 $3 "vt vt_$1" "vt_$1 vt"
}

# tile_probe NAME MS: form_probe of a tiled-form change, w4a16_orders at --ms MS and c = 16, 32, 64.
tile_probe() { form_probe $1 "w4a16_tile_run $1 $2" 16,32,64; }

# stack_probe NAME: form_probe of a stacked-form change, the stacked form at M = 1 and 2 launched
# dependently (as decode steps of up to two rows run it) and c = 1, 2.
stack_probe() { form_probe $1 "w4a16_stack_run $1" 1,2; }
w4a16_stack_run() {  # NAME BIN ROUND
  room $1 bench || return 1
  w4a16_forms $1-$2-$3 $2 stack --ms 1,2 --dependent-launch
}

# w4a16_table NAME BIN [ARGS...]: w4a16_forms with vt's own choice of form (auto).
w4a16_table() { w4a16_forms $1 $2 auto "${@:3}"; }

# gptq_decode LOG CONCURRENCY BIN...: llama3-8b W4A16 decode (short prompts) with each bin/BIN in turn,
# appended to $o/LOG.txt.
gptq_decode() {
  local log=$1 conc=$2 bin r; shift 2
  for bin in "$@"; do
    r=$(timeout -k 5 150 $b/$bin bench decode $short --model preset:llama3-8b-gptq --concurrency $conc --json 2>>$o/$log.err | tok_s)
    echo "llama3-8b-gptq $bin: $r" | tee -a $o/$log.txt
  done
}

# gptq_orders LOG CONCURRENCY ORDER...: gptq_decode of each ORDER (a list of bins, turned orders
# separate a binary from its place in the job); returns 1 where `room` stops it.
gptq_orders() {
  local log=$1 conc=$2 order
  shift 2
  for order in "$@"; do
    room $log || return 1
    gptq_decode $log $conc $order
  done
}

# decode_8k BIN MODEL CONCURRENCY LOG [INPUT_LEN]: MODEL's 8k (or INPUT_LEN-token) decode-only steps
# with bin/BIN (dummy weights, every prompt prefilled first, 64 output tokens), stderr appended to
# $o/LOG.err; prints each concurrency's decode ITL and TPOT medians.
decode_8k() {
  timeout -k 5 $(capped 150) $b/$1 bench decode --backend cuda --load-format dummy --model preset:$2 \
    --input-len ${5:-8192} --output-len 64 --concurrency $3 --max-num-batched-tokens 65536 \
    --max-prefill-beside-decodes 65536 --json 2>>$o/$4.err |
    python3 -c "import json,sys; d=json.load(sys.stdin); print(' '.join('c=%d itl %.3f tpot %.3f ms' % (r['concurrency'], r['decode_itl_ms']['median'], r['tpot_ms']['median']) for r in d['results']))"
}

# table_and_long_decode LABEL BIN...: e2e_table of the BINs, then long_decode of each; returns 1 where
# `room` stops it (LABEL names the 8k runs there).
table_and_long_decode() {
  local label=$1 bin
  shift
  e2e_table "$@" || return 1
  for bin in "$@"; do
    room $label 8k || return 1
    long_decode $bin
  done
}

# long_decode [BIN]: issue #16's qwen3-1.7b 8k decode-only steps (c = 1 and 8) with bin/BIN (vt by
# default), a line naming BIN into $o/e2e.txt.
long_decode() {
  echo "qwen3-1.7b 8k decode-only ${1:-vt}: $(decode_8k ${1:-vt} qwen3-1.7b 1,8 e2e)" | tee -a $o/e2e.txt
}

# sanitize LIMIT TESTS FILTER [TOOLS]: compute-sanitizer's TOOLS (racecheck and memcheck by default)
# on bin/TESTS's gtest FILTER, each within LIMIT seconds, into $o/sanitizer-TOOL.txt.
sanitize() {
  local tool
  for tool in ${4:-racecheck memcheck}; do
    timeout -k 5 "$1" compute-sanitizer --tool $tool --error-exitcode 9 $b/$2 --gtest_filter="$3" \
      > $o/sanitizer-$tool.txt 2>&1
    echo "sanitizer $tool rc $? $(tail -1 $o/sanitizer-$tool.txt)"
  done
}

# sanitize_persist LIMIT: sanitize on the persist arm's gates. ReadsOlderKeysBeforeTheKernelBeforeEnds
# needs overlapping launches: it fails under the sanitizer by design and is left out.
sanitize_persist() {
  sanitize "$1" vt_gpu_attention_tests '*PersistentGivesTheGqaBits*:PersistentAfterALateWriter.SeesEverything*'
}

# ncu_decode NAME BIN MODEL CONCURRENCY REGEX: the kernels matching REGEX in a few short-prompt decode
# steps (3 output tokens) of bin/BIN on MODEL at CONCURRENCY, node by node under ncu, into $o/NAME.csv.
ncu_decode() {
  timeout -k 5 150 ncu --graph-profiling node --metrics gpu__time_duration.sum,dram__bytes_read.sum --csv \
    --page raw -k "regex:$5" $b/$2 bench decode ${short/128/3} --model preset:$3 --concurrency $4 \
    > $o/$1.csv 2>$o/$1.err
  echo "ncu $1 rc $?"
}

# ncu_steps MODEL: one c = 1 decode step of MODEL, node by node, into $o/steps-MODEL.csv and its table.
ncu_steps() {
  ncu_decode steps-$1 vt $1 1 'Skinny|RmsNorm|Qkv|Persist|Merge|Silu|Argmax|Embedding|Gqa'
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

# serve_c64 LOG BIN: `vt serve` (qwen3-1.7b, dummy, its own max_model_len: decode graphs planned
# split) under `vt bench serve` at c = 64, 32-token prompts, 128 output tokens; a line into $o/LOG.txt
# (also where the server never became ready: that ends this run, not the job).
serve_c64() {
  source tests/engine/server/serve_wait.sh
  if ! try_start_serve $b/$2 $o/serve-$2.log --backend cuda --load-format dummy --model preset:qwen3-1.7b --max-num-seqs 64; then
    echo "serve $2: the server did not become ready ($o/serve-$2.log)" | tee -a $o/$1.txt
    return 0  # the job goes on to its other runs and packs its output
  fi
  serve_runs=$((serve_runs + 1))  # not in the redirection below: that expands in timeout's child
  timeout -k 5 150 $b/$2 bench serve --base-url http://127.0.0.1:$served_port --num-prompts 256 --concurrency 64 \
    --input-len 32 --output-len 128 --vocab-size 32000 --extra-body '{"temperature":0}' --json \
    > $o/$1-serve-$2-$serve_runs.json 2>>$o/$1.err
  echo "serve $2 rc $?: $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('tok/s %.1f tpot median %.3f p99 %.3f ms' % (d['output_tok_s'], d['tpot_ms']['median'], d['tpot_ms']['p99']))" $o/$1-serve-$2-$serve_runs.json)" | tee -a $o/$1.txt
  kill $served_pid; wait $served_pid 2>/dev/null
}
# attention_ab NAME TAG "BIN..." ARGS...: `vt bench attention ARGS` of each bin/BIN in turn into
# $o/NAME-att-BINTAG.txt, printed; returns 1 where `room` stops it.
attention_ab() {
  local name=$1 tag=$2 bins=$3 bin
  shift 3
  for bin in $bins; do
    room $name attention || return 1
    timeout -k 5 100 $b/$bin bench attention "$@" > $o/$name-att-$bin$tag.txt 2>&1
    echo "$name attention $bin $tag rc $?"; cat $o/$name-att-$bin$tag.txt
  done
}
# persist_ab NAME "BIN...": attention_ab of the persist arm with dependent launches on qwen3-1.7b's and
# llama3-8b's shapes, batches 1, 8 and 64 at 48-16,400 keys; returns 1 where `room` stops it.
persist_ab() {
  attention_ab $1 "" "$2" --arms persist --shapes qwen3-1.7b llama3-8b --batches 1 8 64 \
    --contexts 48 160 256 4100 16400 --dependent-launch
}
# long_run LOG BIN ROUND: qwen3-1.7b's 8k decode-only steps (c = 1 and 8) with bin/BIN, a line naming
# BIN and ROUND appended to $o/LOG.txt (decode_8k).
long_run() {
  echo "qwen3-1.7b 8k decode-only $2 round $3: $(decode_8k $2 qwen3-1.7b 1,8 $1)" | tee -a $o/$1.txt
}

# long_rounds LOG BIN: on an H200 only (issue #16's goals are an H200's), three rounds of long_run
# while `room` allows.
long_rounds() {
  if ! grep -q H200 $o/gpu.txt; then
    echo "$1: not an H200, skipped" | tee -a $o/gpu.txt
    return 0
  fi
  local round
  for round in 1 2 3; do
    room $1 || return 0
    long_run $1 $2 $round
  done
}

# decode_ab NAME "BIN..." "ROUND..." [serve]: each round, each bin/BIN in turn: qwen3-1.7b short
# prompts c = 1, 8 and 8k decode-only c = 1, 8 (with `serve`, also serve_c64), lines into $o/NAME.txt;
# returns 1 where `room` stops it.
decode_ab() {
  local name=$1 bins=$2 rounds=$3 serve=$4 round bin
  for round in $rounds; do
    for bin in $bins; do
      short_run $name $bin $round qwen3-1.7b 1,8 || return 1
      long_run $name $bin $round
      [[ -z $serve ]] || serve_c64 $name $bin
    done
  done
}
