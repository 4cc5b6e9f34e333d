#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (AddressSanitizer + UndefinedBehaviorSanitizer) and
# runs one on a copy of its seed corpus. Exit 0 when it finished without a finding; the crashing
# input is kept in WORK_DIR otherwise.
# CI runs RUNS inputs from a fixed seed, so a run is reproducible and a red result belongs to the
# change that caused it. Exploration is the same script with VT_FUZZ_SECONDS=N (random seed, bounded
# time); add what it finds to tests/fuzz/corpus/TARGET so CI keeps checking it.
# RUNS "build" only builds the target: ctest runs that as the run's fixture, under its own time
# limit (compiling request_parser's ~40 sources with the sanitizers takes 3.7 min on one idle core
# here, and shared with a CI run's other tests it passed the 600 s the run itself is given).
# Usage: run_fuzzers.sh SOURCE_DIR WORK_DIR TARGET RUNS|build
set -euo pipefail
src=$1
work=$2
target=$3
runs=$4
mkdir -p "$work"
cxx=$(command -v clang++-14 || command -v clang++ || true)
if [ -z "$cxx" ]; then echo "SKIP: clang++ not found (ci/install-deps.sh installs clang)"; exit 77; fi
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I"$src"
       -DVT_SOURCE_DIR="\"$src\"")
case $target in
  chat_template)
    sources=("$src/tests/fuzz/chat_template_fuzzer.cpp" "$src"/engine/chat/*.cpp)
    libs=() ;;
  chat_output)
    sources=("$src/tests/fuzz/chat_output_fuzzer.cpp" "$src"/engine/chat/*.cpp)
    libs=() ;;
  request_parser)
    sources=("$src/tests/fuzz/request_parser_fuzzer.cpp" "$src"/engine/server/{bounded_json,chat_prompt,completion_request,prompt_encoding,structured_output,grammar_cache,grammar_splice,reasoning_grammar,tool_call_grammar,tool_request}.cpp "$src"/engine/grammar/*.cpp
             "$src"/engine/chat/*.cpp "$src"/engine/tokenizer/*.cpp)
    libs=(-lpcre2-8) ;;
  http_reader)
    sources=("$src/tests/fuzz/http_reader_fuzzer.cpp" "$src/engine/server/http_request_reader.cpp")
    # Boost's own debug asserts off, as in the server's release build (NDEBUG): Debian's Beast 1.74
    # asserts too strictly on a chunk header split across reads (fixed upstream, boostorg/beast
    # pull 2861); the parsing that ships returns need_more there, which is what is fuzzed.
    flags+=(-DBOOST_DISABLE_ASSERTS)
    libs=() ;;
  yaml_document)
    sources=("$src/tests/fuzz/yaml_document_fuzzer.cpp" "$src/governance/yaml_document.cpp")
    libs=(-lyaml) ;;
  *) echo "unknown fuzz target $target"; exit 2 ;;
esac
binary=$work/$target
objects=$work/objects-$target
mkdir -p "$objects"
# One object per source, compiled on every core and again when its source or any header of the tree
# is newer; then one link.
object_of() { local rel=${1#"$src"/}; echo "$objects/${rel//\//_}.o"; }
newest_header=$(find "$src/base" "$src/engine" "$src/governance" "$src/kernels" "$src/tests" -name '*.h' -printf '%T@\n' | sort -n | tail -n1)
pids=()
failed=0
for source in "${sources[@]}"; do
  object=$(object_of "$source")
  if [ -f "$object" ] && [ ! "$source" -nt "$object" ] &&
     [ "$(stat -c %Y "$object")" -ge "${newest_header%.*}" ]; then
    continue
  fi
  while [ ${#pids[@]} -ge "$(nproc)" ]; do
    wait "${pids[0]}" || failed=1
    pids=("${pids[@]:1}")
  done
  "$cxx" "${flags[@]}" -c "$source" -o "$object" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
if [ "$failed" != 0 ]; then echo "the $target fuzzer did not compile"; exit 1; fi
object_files=()
for source in "${sources[@]}"; do object_files+=("$(object_of "$source")"); done
# The newest object without `ls -t | head`: past 4 KB of names ls writes twice, and when head has
# already left, the second write's SIGPIPE ends this script silently under pipefail.
newest_object=${object_files[0]}
for object in "${object_files[@]}"; do
  if [ "$object" -nt "$newest_object" ]; then newest_object=$object; fi
done
if [ ! -x "$binary" ] || [ "$newest_object" -nt "$binary" ]; then
  "$cxx" "${flags[@]}" "${object_files[@]}" "${libs[@]}" -o "$binary"
fi
if [ "$runs" = build ]; then exit 0; fi
corpus=$work/corpus-$target
mkdir -p "$corpus"
cp -n "$src/tests/fuzz/corpus/$target"/* "$corpus/" 2>/dev/null || true
cd "$work"
if [ -n "${VT_FUZZ_SECONDS:-}" ]; then budget=(-max_total_time="$VT_FUZZ_SECONDS"); else budget=(-seed=1 -runs="$runs"); fi
# libFuzzer exits 77 on a finding by default, which is ctest's SKIP_RETURN_CODE here: a crash
# would pass as skipped. A finding fails with 1.
"$binary" "${budget[@]}" -error_exitcode=1 -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 "$corpus" 2>&1 | tail -n 15
