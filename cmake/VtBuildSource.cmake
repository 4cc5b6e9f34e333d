# Run at every build (cmake -P) by base/CMakeLists.txt's vt_build_source target: writes OUTPUT, a C++
# string literal naming the source tree the binaries were built from: the commit, and where tracked
# files differ from it a hash of that difference ("<commit>+diff.<sha256 prefix>"), so two builds of
# one commit with different patches applied never look the same in benchmark output. The file is
# rewritten only when its text changes, so a build with nothing new recompiles nothing.
cmake_minimum_required(VERSION 3.25)  # modern policies in script mode too
execute_process(COMMAND git -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
                OUTPUT_VARIABLE commit RESULT_VARIABLE no_commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(no_commit)
  set(source "unknown (not built from a git checkout)")
else()
  execute_process(COMMAND git -C "${SOURCE_DIR}" diff HEAD --no-ext-diff --binary
                  OUTPUT_VARIABLE diff RESULT_VARIABLE no_diff ERROR_QUIET)
  if(no_diff)
    set(source "${commit}+diff.unknown")
  elseif(diff STREQUAL "")
    set(source "${commit}")
  else()
    string(SHA256 diff_hash "${diff}")
    string(SUBSTRING "${diff_hash}" 0 12 diff_hash)
    set(source "${commit}+diff.${diff_hash}")
  endif()
endif()
set(text "\"${source}\"\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old_text)
endif()
if(NOT old_text STREQUAL text)
  file(WRITE "${OUTPUT}" "${text}")
endif()
