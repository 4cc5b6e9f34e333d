// `vt bench grammar`: what the grammar engine costs per generated token on a real vocabulary. It
// compiles a JSON Schema (a nesting-depth-5 default, or a file), then walks random valid documents
// token by token, timing the next-token mask at every step; it reports the vocabulary build and
// compile times and the mask time's median, p99 and maximum (microseconds, one core), with the
// per-grammar state cache the engine uses.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace vt::bench {

struct GrammarBenchOptions {
  std::string tokenizer;    // a tokenizer.json
  std::string schema_file;  // empty: the built-in nested schema
  int32_t steps = 200;      // masks to time
  uint64_t seed = 0;
  bool json = false;
};

Status RunGrammarBench(const GrammarBenchOptions& options);

}  // namespace vt::bench
