#include "engine/bench/latency_stats.h"

#include <gtest/gtest.h>

namespace vt::bench {
namespace {

TEST(LatencyStats, MedianOfAnOddCountIsTheMiddleSample) {
  const LatencySummary s = Summarize({5.0, 1.0, 3.0});
  EXPECT_EQ(s.count, 3);
  EXPECT_DOUBLE_EQ(s.median, 3.0);
}

TEST(LatencyStats, MedianOfAnEvenCountIsTheMeanOfTheMiddleTwo) {
  EXPECT_DOUBLE_EQ(Summarize({4.0, 1.0, 2.0, 3.0}).median, 2.5);
}

TEST(LatencyStats, P99InterpolatesBetweenTheTwoLargestSamples) {
  // 1..100: rank 0.99 × 99 = 98.01, between 99 and 100.
  std::vector<double> samples;
  for (int i = 100; i >= 1; --i) samples.push_back(i);
  const LatencySummary s = Summarize(samples);
  EXPECT_DOUBLE_EQ(s.median, 50.5);
  EXPECT_NEAR(s.p99, 99.01, 1e-9);
  // Two samples: p99 lies 99% of the way from the smaller to the larger.
  EXPECT_NEAR(Summarize({10.0, 20.0}).p99, 19.9, 1e-9);
}

TEST(LatencyStats, OneSampleIsEveryPercentile) {
  const LatencySummary s = Summarize({7.0});
  EXPECT_DOUBLE_EQ(s.median, 7.0);
  EXPECT_DOUBLE_EQ(s.p99, 7.0);
  EXPECT_DOUBLE_EQ(Percentile({7.0}, 0.0), 7.0);
}

TEST(LatencyStats, NoSamplesHaveACountOfZero) {
  const LatencySummary s = Summarize({});
  EXPECT_EQ(s.count, 0);
  EXPECT_DOUBLE_EQ(s.median, 0.0);
  EXPECT_DOUBLE_EQ(s.p99, 0.0);
}

TEST(LatencyStats, ExtremePercentilesAreMinimumAndMaximum) {
  EXPECT_DOUBLE_EQ(Percentile({3.0, 9.0, 1.0}, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(Percentile({3.0, 9.0, 1.0}, 100.0), 9.0);
}

}  // namespace
}  // namespace vt::bench
