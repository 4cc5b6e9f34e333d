// `vt bench decode --ab 'ENV=A' 'ENV=B'`: the bookkeeping of a same-binary A/B. Runs alternate
// A, B, A, B … so that drift of the machine (clocks, heat, neighbours) falls on both arms alike;
// each adjacent pair gives one B/A throughput ratio per concurrency, and the median of those
// ratios is the verdict. Spawning the runs is self_exec's concern, not this file's.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"

namespace vt::bench {

struct EnvSetting {
  std::string name;
  std::string value;
  std::string text() const { return name + "=" + value; }
};

// "NAME=VALUE" with a non-empty NAME of letters, digits and underscores not starting with a digit.
Result<EnvSetting> ParseEnvSetting(const std::string& text);

// One run's output tok/s per concurrency.
using ThroughputByConcurrency = std::map<int32_t, double>;

struct AbLevel {
  int32_t concurrency = 0;
  std::vector<double> a_tokens_per_s, b_tokens_per_s;  // per round
  std::vector<double> ratios;                          // b / a, per round
  double median_ratio = 0.0;
};

// Pairs a_runs[i] with b_runs[i]; every run must cover the same concurrencies.
Result<std::vector<AbLevel>> CompareAbRuns(const std::vector<ThroughputByConcurrency>& a_runs,
                                           const std::vector<ThroughputByConcurrency>& b_runs);

struct AbReport {
  EnvSetting a, b;
  int32_t rounds = 0;
  std::vector<AbLevel> levels;
};

std::string AbTable(const AbReport& report);
std::string AbJson(const AbReport& report);  // one object, no trailing newline

}  // namespace vt::bench
