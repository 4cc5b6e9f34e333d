// `vt bench decode`: loads a model once, sweeps decode throughput over concurrency levels and
// prints a table or JSON, optionally an SVG plot; with --ab, compares two environment settings
// of this same binary by re-running it alternately under each.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "engine/session/session.h"

namespace vt::bench {

struct DecodeBenchOptions {
  SessionSpec session;  // the model, its load format and the backend; the sweep sets the rest
  std::vector<int32_t> concurrencies = {1, 2, 4, 8};
  int32_t input_len = 32;
  int32_t output_len = 128;
  uint64_t seed = 0;
  int64_t max_num_batched_tokens = 0;             // 0: every prompt of a level in one step (capped)
  int64_t max_prefill_tokens_beside_decodes = 0;  // 0: the scheduler's default
  double max_decode_slowdown = 0.0;               // SchedulerConfig's; 0: no bound
  bool json = false;
  std::string plot_path;        // empty: no plot
  std::vector<std::string> ab;  // empty, or the A and B settings as NAME=VALUE
  int32_t ab_rounds = 3;
};

// Writes the results to stdout and progress to stderr.
Status RunDecodeBench(const DecodeBenchOptions& options);

}  // namespace vt::bench
