// How `vt bench decode` prints a sweep: a table for people, JSON for machines, and the reading of
// that JSON back (the A/B parent reads its children's throughput from it).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "engine/bench/decode_sweep.h"
#include "base/status.h"

namespace vt::bench {

struct SweepReport {
  std::string model;  // as given: a directory or preset:NAME
  DecodeSweepOptions options;
  DecodeSweepResult result;
};

// One JSON object (no trailing newline): model, backend, weight_bytes, copy_bandwidth_gb_s,
// input_len, output_len and one entry per level under "results".
std::string SweepJson(const SweepReport& report);

// A header line and one row per concurrency.
std::string SweepTable(const SweepReport& report);

// concurrency → output_tokens_per_s of a SweepJson document.
Result<std::map<int32_t, double>> ThroughputFromSweepJson(const std::string& json_text);

}  // namespace vt::bench
