// Device sampling against the exact filtered distribution: thousands of draws of one row of
// logits (one per token index, as a request's stream would make them) must follow the
// temperature / top-k / min-p / top-p distribution the CPU sampler defines, never leave its kept
// set, and repeat exactly for the same seed.
#include "kernels/cuda/ops/sampling.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "kernels/bf16.h"
#include "tests/kernels/cuda/gpu_test_support.h"

namespace vt::kernels::cuda {
namespace {

using vt::testing::CheckCuda;
using vt::testing::Download;
using vt::testing::SkipWithoutGpu;
using vt::testing::Upload;

// Distinct bf16 logits (no ties at any cut), shuffled over the ids: 8.0 down to +0, then negative
// values of growing size (up to 32,000 ids stay finite).
std::vector<uint16_t> DistinctLogits(int vocab, uint32_t seed) {
  std::vector<uint16_t> bits(vocab);
  for (int j = 0; j < vocab; ++j) bits[j] = static_cast<uint16_t>(j <= 0x4100 ? 0x4100 - j : 0x8000 + (j - 0x4100));
  std::shuffle(bits.begin(), bits.end(), std::mt19937(seed));
  return bits;
}

// The CPU sampler's distribution (engine/sample/sampler.cpp): by logit, top-k, then min-p relative
// to the top token, then the smallest prefix holding top_p of what is left.
std::vector<double> Expected(const std::vector<uint16_t>& bits, const RowSampling& p) {
  const int vocab = int(bits.size());
  std::vector<float> l(vocab);
  for (int i = 0; i < vocab; ++i) l[i] = Bf16ToFloat(bf16{bits[i]});
  std::vector<int> ids(vocab);
  std::iota(ids.begin(), ids.end(), 0);
  std::sort(ids.begin(), ids.end(), [&](int a, int b) { return l[a] > l[b]; });
  int keep = p.top_k > 0 ? std::min(p.top_k, vocab) : vocab;
  std::vector<double> w(vocab, 0.0);
  for (int i = 0; i < keep; ++i) w[ids[i]] = std::exp((double(l[ids[i]]) - l[ids[0]]) / p.temperature);
  while (keep > 1 && w[ids[keep - 1]] < p.min_p) w[ids[--keep]] = 0.0;
  double kept = 0.0;
  for (int i = 0; i < keep; ++i) kept += w[ids[i]];
  double cumulative = 0.0;
  for (int i = 0; i < keep; ++i) {
    cumulative += w[ids[i]];
    if (cumulative >= p.top_p * kept) {
      for (int j = i + 1; j < keep; ++j) w[ids[j]] = 0.0;
      break;
    }
  }
  const double total = std::accumulate(w.begin(), w.end(), 0.0);
  for (double& x : w) x /= total;
  return w;
}

std::vector<int32_t> Draw(const std::vector<uint16_t>& row, int rows, RowSampling p) {
  const int vocab = int(row.size());
  std::vector<uint16_t> logits;
  for (int r = 0; r < rows; ++r) logits.insert(logits.end(), row.begin(), row.end());
  std::vector<RowSampling> params(rows, p);
  for (int r = 0; r < rows; ++r) params[r].token_index = r;
  uint16_t* d_logits = Upload(logits);
  RowSampling* d_params = Upload(params);
  int32_t* d_out = nullptr;
  CheckCuda(cudaMalloc(&d_out, rows * 4), "alloc out");
  CheckCuda(cudaMemset(d_out, 0xff, rows * 4), "poison out");
  EXPECT_TRUE(SampleRows(d_logits, rows, vocab, d_params, d_out, nullptr).ok());
  std::vector<int32_t> out = Download(d_out, rows);
  cudaFree(d_logits);
  cudaFree(d_params);
  cudaFree(d_out);
  return out;
}

class Sampling : public ::testing::TestWithParam<int> {};  // the vocabulary size

TEST_P(Sampling, DrawsFollowTheFilteredDistribution) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  const int vocab = GetParam(), rows = 8192;
  const std::vector<uint16_t> row = DistinctLogits(vocab, 5);
  // top-k + top-p, top-p alone, top-k alone, min-p doing the cutting (it keeps l >= 8 + ln 0.3).
  for (const RowSampling p : {RowSampling{0.8f, 40, 0.9f, 0.02f, 11, 0}, RowSampling{1.0f, 0, 0.7f, 0.0f, 12, 0},
                              RowSampling{1.5f, 25, 1.0f, 0.0f, 13, 0}, RowSampling{1.0f, 0, 1.0f, 0.3f, 14, 0}}) {
    const std::vector<double> want = Expected(row, p);
    const std::vector<int32_t> got = Draw(row, rows, p);
    std::vector<int> counts(vocab, 0);
    for (int32_t t : got) {
      ASSERT_GE(t, 0);
      ASSERT_LT(t, vocab);
      ++counts[t];
    }
    // Pearson's chi-square; tokens expected fewer than 5 times are pooled into one cell, where the
    // statistic's chi-square approximation holds.
    double chi2 = 0.0, pooled_expected = 0.0, pooled_count = 0.0;
    int cells = 0;
    for (int i = 0; i < vocab; ++i) {
      if (want[i] == 0.0) {
        EXPECT_EQ(counts[i], 0) << "token " << i << " is outside the kept set (T " << p.temperature << ", top_k "
                                << p.top_k << ", top_p " << p.top_p << ")";
        continue;
      }
      const double e = want[i] * rows;
      if (e < 5.0) {
        pooled_expected += e;
        pooled_count += counts[i];
        continue;
      }
      chi2 += (counts[i] - e) * (counts[i] - e) / e;
      ++cells;
    }
    if (pooled_expected > 0.0) {
      chi2 += (pooled_count - pooled_expected) * (pooled_count - pooled_expected) / pooled_expected;
      ++cells;
    }
    // Far in the tail for cells - 1 degrees of freedom (mean dof, sd sqrt(2 dof)): a sampler that
    // ignored a filter or the temperature lands orders of magnitude above it.
    const double dof = cells - 1;
    EXPECT_LT(chi2, dof + 8.0 * std::sqrt(2.0 * dof) + 10.0) << cells << " kept tokens";
    EXPECT_EQ(Draw(row, rows, p), got) << "the same seed and indices must draw the same tokens";
  }
}

TEST(SamplingEdges, DegenerateSettingsGiveTheArgmaxAndTiesShareTheDraw) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  std::vector<uint16_t> row = DistinctLogits(1000, 7);
  row[9] = 0x4110;  // 9.0, above every other value
  // A temperature so small that 1/T overflows: only the top token has weight.
  for (const RowSampling p : {RowSampling{1e-39f, 0, 1.0f, 0.0f, 1, 0}, RowSampling{1e-39f, 0, 0.9f, 0.1f, 1, 0}}) {
    for (int32_t t : Draw(row, 4, p)) EXPECT_EQ(t, 9) << "top_p " << p.top_p;
  }
  row[3] = 0x4110;  // ids 3 and 9 tie for the maximum
  // Greedy, top-k 1 and top-p 0 take the lowest id of the maximum, as the CPU sampler does.
  for (const RowSampling p : {RowSampling{0.0f, 0, 1.0f, 0.0f, 1, 0}, RowSampling{0.7f, 1, 1.0f, 0.0f, 1, 0},
                              RowSampling{1.0f, 0, 0.0f, 0.0f, 1, 0}}) {
    for (int32_t t : Draw(row, 4, p)) EXPECT_EQ(t, 3) << "T " << p.temperature << " top_p " << p.top_p;
  }
  // A sampled draw splits between the tied maxima; 8.0 and below are 100 T down, out of the set.
  int threes = 0;
  for (int32_t t : Draw(row, 256, RowSampling{0.01f, 0, 1.0f, 0.0f, 2, 0})) {
    EXPECT_TRUE(t == 3 || t == 9) << t;
    threes += t == 3;
  }
  EXPECT_GT(threes, 80);
  EXPECT_LT(threes, 176);
}

TEST_P(Sampling, GreedyRowsTakeTheLowestIdOfTheMaximum) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  std::vector<uint16_t> row = DistinctLogits(GetParam(), 6);
  const int top = int(std::max_element(row.begin(), row.end(),
                                       [](uint16_t a, uint16_t b) { return Bf16ToFloat(bf16{a}) < Bf16ToFloat(bf16{b}); }) -
                      row.begin());
  for (const RowSampling p : {RowSampling{0.0f, 0, 1.0f, 0.0f, 1, 0}, RowSampling{0.7f, 1, 1.0f, 0.0f, 1, 0}}) {
    for (int32_t t : Draw(row, 4, p)) EXPECT_EQ(t, top);
  }
}

INSTANTIATE_TEST_SUITE_P(Vocab, Sampling, ::testing::Values(300, 5000, 32000),
                         [](const ::testing::TestParamInfo<int>& info) { return "v" + std::to_string(info.param); });

// Masked rows keep exactly their allowed logits (the rest become -inf, so the greedy draw is the best
// allowed token); rows without a mask are untouched.
TEST(MaskRows, LeavesOnlyAllowedTokensAndUnmaskedRowsAlone) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  constexpr int kVocab = 5000, kRows = 3, kWords = (kVocab + 31) / 32;
  std::vector<uint16_t> logits;
  for (int r = 0; r < kRows; ++r) {
    const std::vector<uint16_t> row = DistinctLogits(kVocab, 7 + r);
    logits.insert(logits.end(), row.begin(), row.end());
  }
  std::mt19937 rng(3);
  std::vector<uint32_t> masks(2 * kWords);
  for (uint32_t& w : masks) w = rng() & rng();  // about a quarter of the tokens allowed
  const std::vector<int32_t> mask_of_row = {1, -1, 0};
  uint16_t* d_logits = Upload(logits);
  uint32_t* d_masks = Upload(masks);
  int32_t* d_mask_of_row = Upload(mask_of_row);
  ASSERT_TRUE(MaskRows(d_logits, kRows, kVocab, d_masks, d_mask_of_row, nullptr).ok());
  const std::vector<uint16_t> masked = Download(d_logits, kRows * kVocab);
  for (int r = 0; r < kRows; ++r) {
    for (int t = 0; t < kVocab; ++t) {
      const uint16_t before = logits[size_t(r) * kVocab + t], after = masked[size_t(r) * kVocab + t];
      const bool allowed = mask_of_row[r] < 0 || ((masks[size_t(mask_of_row[r]) * kWords + t / 32] >> (t % 32)) & 1u);
      ASSERT_EQ(after, allowed ? before : uint16_t(0xff80)) << "row " << r << ", token " << t;
    }
  }
  cudaFree(d_logits);
  cudaFree(d_masks);
  cudaFree(d_mask_of_row);
}

}  // namespace
}  // namespace vt::kernels::cuda
