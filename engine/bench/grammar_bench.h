// `vt bench grammar`: what the grammar engine costs per generated token on a real vocabulary. It
// compiles a JSON Schema (a nesting-depth-5 default, or a file) or a regex and builds its token mask table,
// then walks random valid documents token by token, timing the next-token mask and the advance by
// the drawn token at every step; it reports the vocabulary, compile and table times and the
// median, p99 and maximum of each step (microseconds, one core). `walk_only` masks by a walk of the
// whole vocabulary instead of the table, for comparison. With `documents` > 1, that many documents
// are walked side by side and each step's total is reported too: the host work of an engine step
// over a batch of constrained requests.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace vt::bench {

struct GrammarBenchOptions {
  std::string tokenizer;    // a tokenizer.json
  std::string schema_file;  // empty: the built-in nested schema (unless `regex` is set)
  std::string regex;        // non-empty: time this regex instead of a schema
  int32_t steps = 200;      // steps to time: each masks and advances every document
  int32_t documents = 1;    // documents walked side by side, like a batch of constrained requests
  uint64_t seed = 0;
  bool json = false;
  bool walk_only = false;
};

Status RunGrammarBench(const GrammarBenchOptions& options);

}  // namespace vt::bench
