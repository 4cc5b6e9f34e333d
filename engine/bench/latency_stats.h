// Median and p99 of latency samples. Percentiles interpolate linearly between the two closest
// ranks (numpy's default, "linear"): the q-th percentile of n sorted samples sits at rank
// q/100 × (n − 1), so the median of an even count is the mean of the middle two and p99 of a
// handful of samples lies between the largest two instead of snapping to the maximum.
#pragma once

#include <cstdint>
#include <vector>

namespace vt::bench {

struct LatencySummary {
  int64_t count = 0;  // 0: no samples, and median/p99 are meaningless
  double median = 0.0;
  double p99 = 0.0;
};

// q in [0, 100]; 0 for no samples.
double Percentile(std::vector<double> samples, double q);

LatencySummary Summarize(const std::vector<double>& samples);

}  // namespace vt::bench
