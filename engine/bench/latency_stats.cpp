#include "engine/bench/latency_stats.h"

#include <algorithm>
#include <cmath>

namespace vt::bench {

double Percentile(std::vector<double> samples, double q) {
  if (samples.empty()) return 0.0;
  std::sort(samples.begin(), samples.end());
  const double rank = std::clamp(q, 0.0, 100.0) / 100.0 * static_cast<double>(samples.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(rank));
  const size_t above = std::min(below + 1, samples.size() - 1);
  const double weight = rank - static_cast<double>(below);
  return samples[below] + weight * (samples[above] - samples[below]);
}

LatencySummary Summarize(const std::vector<double>& samples) {
  return {static_cast<int64_t>(samples.size()), Percentile(samples, 50.0), Percentile(samples, 99.0)};
}

}  // namespace vt::bench
