#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "engine/sample/sampler.h"

namespace vt {
namespace {

const std::vector<float> kLogits = {1.0f, 3.0f, 2.5f, -1.0f, 3.0f, 0.0f};

SamplingParams Random(float temperature = 1.0f) {
  SamplingParams p;
  p.temperature = temperature;
  return p;
}

TEST(Sampler, GreedyTakesTheFirstMaximum) {
  SamplingParams p;
  p.temperature = 0.0f;
  EXPECT_EQ(Sample(kLogits.data(), 6, p, 1, 0).token, 1);
  p = Random();
  p.top_k = 1;
  EXPECT_EQ(Sample(kLogits.data(), 6, p, 99, 3).token, 1);
}

TEST(Sampler, SameSeedAndIndexSameToken) {
  std::map<int32_t, int> counts;
  for (int64_t i = 0; i < 2000; ++i) {
    const int32_t t = Sample(kLogits.data(), 6, Random(), 42, i).token;
    EXPECT_EQ(t, Sample(kLogits.data(), 6, Random(), 42, i).token);
    ++counts[t];
  }
  // Frequencies follow softmax: p(1) = p(4) ≈ 0.33, p(3) ≈ 0.003.
  EXPECT_NEAR(counts[1] / 2000.0, 0.334, 0.04);
  EXPECT_NEAR(counts[4] / 2000.0, 0.334, 0.04);
  EXPECT_LT(counts[3], 20);
  int differ = 0;
  for (int64_t i = 0; i < 100; ++i) {
    differ += Sample(kLogits.data(), 6, Random(), 42, i).token != Sample(kLogits.data(), 6, Random(), 43, i).token;
  }
  EXPECT_GT(differ, 20);
}

TEST(Sampler, TopKTopPMinPFilter) {
  SamplingParams p = Random();
  p.top_k = 3;  // {1, 4, 2}
  for (int64_t i = 0; i < 300; ++i) {
    const int32_t t = Sample(kLogits.data(), 6, p, 7, i).token;
    EXPECT_TRUE(t == 1 || t == 4 || t == 2) << t;
  }
  p = Random();
  p.top_p = 0.5f;  // the two tied tokens at 0.33 each cover it
  for (int64_t i = 0; i < 300; ++i) {
    const int32_t t = Sample(kLogits.data(), 6, p, 7, i).token;
    EXPECT_TRUE(t == 1 || t == 4) << t;
  }
  p = Random();
  p.min_p = 0.5f;  // keeps tokens with p ≥ 0.5 p_max: 1, 4 and 2 (e^-0.5 ≈ 0.61)
  std::map<int32_t, int> seen;
  for (int64_t i = 0; i < 600; ++i) ++seen[Sample(kLogits.data(), 6, p, 7, i).token];
  EXPECT_EQ(seen.size(), 3u);
  EXPECT_GT(seen[2], 0);
}

TEST(Sampler, LowTemperatureApproachesGreedy) {
  for (int64_t i = 0; i < 100; ++i) {
    const int32_t t = Sample(kLogits.data(), 6, Random(0.01f), 5, i).token;
    EXPECT_TRUE(t == 1 || t == 4);
  }
}

TEST(Sampler, LogprobsOfTheRawDistribution) {
  SamplingParams p;
  p.temperature = 0.0f;
  p.logprobs = 3;
  SampledToken s = Sample(kLogits.data(), 6, p, 0, 0);
  double z = 0;
  for (float l : kLogits) z += std::exp(l);
  EXPECT_NEAR(s.logprob, 3.0 - std::log(z), 1e-5);
  ASSERT_EQ(s.top.size(), 3u);
  EXPECT_EQ(s.top[0].token, 1);
  EXPECT_EQ(s.top[1].token, 4);
  EXPECT_EQ(s.top[2].token, 2);
  EXPECT_NEAR(s.top[2].logprob, 2.5 - std::log(z), 1e-5);
  p.logprobs = -1;
  EXPECT_TRUE(Sample(kLogits.data(), 6, p, 0, 0).top.empty());
}

}  // namespace
}  // namespace vt
