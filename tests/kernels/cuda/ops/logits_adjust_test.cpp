// Penalties, biases and min_tokens on the device against the host's definition
// (engine/sample/logits_adjust.cpp): random bf16 rows and random requests, every adjusted logit
// bitwise the host's, unadjusted rows only converted, and the greedy draw over the float rows the
// host's argmax.
#include "kernels/cuda/ops/logits_adjust.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "engine/sample/logits_adjust.h"
#include "engine/sample/sampler.h"
#include "kernels/cuda/ops/sampling.h"
#include "tests/kernels/cuda/gpu_test_support.h"

namespace vt::kernels::cuda {
namespace {

using vt::testing::CheckCuda;
using vt::testing::Download;
using vt::testing::RandomBf16;
using vt::testing::SkipWithoutGpu;
using vt::testing::Upload;

// One row's request: what it asks for, and the tokens it has seen.
struct RowCase {
  SamplingParams params;
  std::vector<int32_t> prompt, output;
};

std::string Describe(const RowCase& c) {
  std::ostringstream s;
  s << "repetition " << c.params.repetition_penalty << ", frequency " << c.params.frequency_penalty << ", presence "
    << c.params.presence_penalty << ", " << c.params.logit_bias.size() << " biases, min_tokens " << c.params.min_tokens
    << ", " << c.params.stop_token_ids.size() << " stop ids, ignore_eos " << c.params.ignore_eos << ", prompt "
    << c.prompt.size() << ", output " << c.output.size();
  return s.str();
}

// Requests of every kind: nothing adjusted, one adjustment, all at once; tokens drawn from a narrow
// range so that they repeat, a few outside the vocabulary (which the host ignores).
RowCase RandomCase(int vocab, int kind, std::mt19937& rng) {
  std::uniform_int_distribution<int32_t> near(-2, std::min(vocab + 2, 200));
  std::uniform_int_distribution<int32_t> any(0, vocab - 1);
  std::uniform_real_distribution<float> penalty(-2.0f, 2.0f);
  RowCase c;
  const int prompt_len = int(rng() % 300), output_len = int(rng() % 120);
  for (int i = 0; i < prompt_len; ++i) c.prompt.push_back(i % 3 == 0 ? any(rng) : near(rng));
  for (int i = 0; i < output_len; ++i) c.output.push_back(i % 4 == 0 ? any(rng) : near(rng));
  SamplingParams& p = c.params;
  if (kind == 0) return c;  // nothing to adjust
  if (kind == 1 || kind >= 4) p.repetition_penalty = std::uniform_real_distribution<float>(0.5f, 2.0f)(rng);
  if (kind == 2 || kind >= 4) p.frequency_penalty = penalty(rng), p.presence_penalty = penalty(rng);
  if (kind == 3 || kind >= 4) {
    const int n = int(rng() % 40) + 1;
    for (int i = 0; i < n; ++i) {
      // Repeated ids add twice, in order; biases out of the vocabulary are dropped.
      const int32_t id = i % 7 == 6 ? p.logit_bias.front().first : (i % 11 == 10 ? vocab + 5 : near(rng));
      p.logit_bias.emplace_back(id, std::uniform_real_distribution<float>(-100.0f, 100.0f)(rng));
    }
  }
  if (kind >= 5) {
    p.min_tokens = output_len + int(rng() % 3) - 1;  // sometimes still masking, sometimes past it
    p.stop_token_ids = {near(rng), near(rng), any(rng)};
    p.ignore_eos = kind == 6;
  }
  return c;
}

class LogitsAdjust : public ::testing::TestWithParam<int> {};

TEST_P(LogitsAdjust, DeviceRowsAreBitwiseTheHostsAndDrawItsArgmax) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  const int vocab = GetParam();
  constexpr int kRows = 28;
  const std::vector<int32_t> eos = {1, vocab - 1};
  std::mt19937 rng(static_cast<uint32_t>(vocab));
  // Logits around zero, so that the repetition penalty meets both signs.
  const vt::testing::Bf16Data logits = RandomBf16(size_t(kRows) * vocab, 8.0f, uint32_t(vocab) + 1);
  std::vector<RowCase> cases;
  for (int r = 0; r < kRows; ++r) cases.push_back(RandomCase(vocab, r % 7, rng));

  // The host: each row converted, then AdjustLogits. The device: the same rows' plans, laid out
  // as the kernel reads them.
  std::vector<float> expected(logits.values);
  std::vector<RowAdjust> rows(kRows);
  std::vector<AdjustEntry> entries;
  LogitsAdjustment plan;
  for (int r = 0; r < kRows; ++r) {
    const RowCase& c = cases[size_t(r)];
    AdjustLogits(expected.data() + size_t(r) * vocab, vocab, c.params, c.prompt, c.output, eos);
    PlanAdjustment(vocab, c.params, c.prompt, c.output, eos, &plan);
    RowAdjust& row = rows[size_t(r)];
    row.repetition_penalty = plan.repetition_penalty;
    row.frequency_penalty = plan.frequency_penalty;
    row.presence_penalty = plan.presence_penalty;
    row.masked = int32_t(entries.size());
    for (int32_t id : plan.masked) entries.push_back({id, 0.0f});
    row.bias = int32_t(entries.size());
    for (const auto& [id, bias] : plan.bias) entries.push_back({id, bias});
    row.repeated = int32_t(entries.size());
    for (int32_t id : plan.repeated) entries.push_back({id, 0.0f});
    row.counted = int32_t(entries.size());
    for (const auto& [id, count] : plan.counted) entries.push_back({id, count});
    row.end = int32_t(entries.size());
  }
  entries.push_back({});  // a non-empty upload even when every list is

  uint16_t* d_logits = Upload(logits.bits);
  RowAdjust* d_rows = Upload(rows);
  AdjustEntry* d_entries = Upload(entries);
  float* d_out = nullptr;
  CheckCuda(cudaMalloc(&d_out, size_t(kRows) * vocab * 4), "alloc out");
  CheckCuda(cudaMemset(d_out, 0xff, size_t(kRows) * vocab * 4), "poison out");  // NaN: an unwritten logit fails
  ASSERT_TRUE(AdjustLogitsRows(d_logits, kRows, vocab, d_rows, d_entries, d_out, nullptr).ok());
  const std::vector<float> adjusted = Download(d_out, size_t(kRows) * vocab);

  int changed_rows = 0;
  for (int r = 0; r < kRows; ++r) {
    int mismatches = 0, changed = 0;
    for (int t = 0; t < vocab; ++t) {
      const size_t i = size_t(r) * vocab + t;
      changed += std::memcmp(&expected[i], &logits.values[i], 4) != 0;
      if (std::memcmp(&adjusted[i], &expected[i], 4) == 0) continue;
      if (++mismatches <= 5) {
        ADD_FAILURE() << "row " << r << " (" << Describe(cases[size_t(r)]) << "), token " << t << ": device "
                      << adjusted[i] << ", host " << expected[i] << ", raw " << logits.values[i];
      }
    }
    EXPECT_EQ(mismatches, 0) << "row " << r << " (" << Describe(cases[size_t(r)]) << "): " << mismatches
                             << " logits differ from the host's";
    changed_rows += changed > 0;
  }
  EXPECT_GE(changed_rows, kRows / 2) << "the random requests hardly adjusted anything: the test proves little";

  // Greedy draws over the float rows: the host's argmax of its adjusted rows.
  std::vector<RowSampling> greedy(kRows);
  for (RowSampling& g : greedy) g.temperature = 0.0f;
  RowSampling* d_greedy = Upload(greedy);
  int32_t* d_tokens = nullptr;
  CheckCuda(cudaMalloc(&d_tokens, kRows * 4), "alloc tokens");
  ASSERT_TRUE(SampleRows(d_out, kRows, vocab, d_greedy, d_tokens, nullptr).ok());
  const std::vector<int32_t> tokens = Download(d_tokens, kRows);
  for (int r = 0; r < kRows; ++r) {
    EXPECT_EQ(tokens[size_t(r)], Argmax(expected.data() + size_t(r) * vocab, vocab))
        << "row " << r << " (" << Describe(cases[size_t(r)]) << ")";
  }
  cudaFree(d_logits);
  cudaFree(d_rows);
  cudaFree(d_entries);
  cudaFree(d_out);
  cudaFree(d_greedy);
  cudaFree(d_tokens);
}

INSTANTIATE_TEST_SUITE_P(Vocab, LogitsAdjust, ::testing::Values(300, 5000, 151936),
                         [](const ::testing::TestParamInfo<int>& info) { return "v" + std::to_string(info.param); });

}  // namespace
}  // namespace vt::kernels::cuda
