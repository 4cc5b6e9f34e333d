#include "kernels/w4a16/gptq_layout.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "kernels/bf16.h"
#include "kernels/cpu/w4a16_reference.h"
#include "tests/kernels/w4a16/gptq_test_data.h"

namespace vt::kernels {
namespace {

using vt::testing::RandomGptq;

int GptqNibble(const vt::testing::GptqData& d, int k, int n) {
  return static_cast<int>((static_cast<uint32_t>(d.qweight[static_cast<size_t>(k / 8) * d.n + n]) >> (4 * (k % 8))) &
                          0xfu);
}

TEST(GptqLayout, RepackKeepsEveryValueAtItsPosition) {
  for (int group : {128, -1}) {
    const auto d = RandomGptq(256, 128, group, 3);
    Result<W4A16Weights> w = RepackGptq(d.View());
    ASSERT_TRUE(w.ok()) << w.status().message();
    EXPECT_EQ(w->group_size, group == -1 ? 256 : 128);
    ASSERT_EQ(w->packed.size(), size_t(256) * 128 / 8);
    for (int k = 0; k < d.k; ++k) {
      for (int n = 0; n < d.n; ++n) ASSERT_EQ(PackedNibble(*w, k, n), GptqNibble(d, k, n)) << k << "," << n;
    }
  }
}

TEST(GptqLayout, EachLaneWordCoversTheFragmentsOfOneMma) {
  // Word s of lane L of the first tile: nibbles are (k, n) = (16s + 2c (+1, +8, +9), q (+8)).
  auto d = RandomGptq(128, 64, 128, 5);
  for (int32_t& w : d.qweight) w = 0;
  // Mark weight (k = 2*1 + 8 + 1, n = 3 + 8) of step s = 2: lane q = 3, c = 1 -> lane 13, nibble 7.
  const int k = 32 + 2 * 1 + 8 + 1, n = 3 + 8;
  d.qweight[static_cast<size_t>(k / 8) * d.n + n] = static_cast<int32_t>(0xFu << (4 * (k % 8)));
  Result<W4A16Weights> w = RepackGptq(d.View());
  ASSERT_TRUE(w.ok());
  const size_t word = (0 * 32 + 13) * 4 + 2;
  EXPECT_EQ(w->packed[word], 0xFu << 28);
  for (size_t i = 0; i < w->packed.size(); ++i) {
    if (i != word) {
      ASSERT_EQ(w->packed[i], 0u) << i;
    }
  }
}

TEST(GptqLayout, ScalesBecomeBf16OfTheFp16Values) {
  const auto d = RandomGptq(128, 64, 128, 7);
  Result<W4A16Weights> w = RepackGptq(d.View());
  ASSERT_TRUE(w.ok());
  for (size_t i = 0; i < d.scales.size(); ++i) {
    EXPECT_EQ(w->scales[i], FloatToBf16(HalfToFloat(d.scales[i])).bits);
  }
  EXPECT_EQ(HalfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(HalfToFloat(0xc000), -2.0f);
  EXPECT_EQ(HalfToFloat(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
}

TEST(GptqLayout, UnsupportedCheckpointsAreRejectedByName) {
  auto expect_error = [](vt::testing::GptqData d, auto mutate, const std::string& needle) {
    GptqTensors t = d.View();
    mutate(d, t);
    Result<W4A16Weights> w = RepackGptq(t);
    ASSERT_FALSE(w.ok()) << needle;
    EXPECT_NE(w.status().message().find(needle), std::string::npos) << w.status().message();
  };
  const auto d = RandomGptq(256, 128, 128, 9);
  expect_error(d, [](auto&, GptqTensors& t) { t.bits = 8; }, "bits = 8");
  expect_error(d, [](auto&, GptqTensors& t) { t.sym = false; }, "asymmetric");
  expect_error(d, [](auto&, GptqTensors& t) { t.desc_act = true; }, "act-order");
  expect_error(d, [](auto&, GptqTensors& t) { t.group_size = 64; }, "group_size = 64");
  expect_error(
      d, [](auto& dd, GptqTensors& t) { dd.qzeros[3] = 0x77777776; t.qzeros = dd.qzeros; }, "not symmetric");
  expect_error(
      d, [](auto& dd, GptqTensors& t) { std::swap(dd.g_idx[0], dd.g_idx[200]); t.g_idx = dd.g_idx; }, "g_idx[0]");
  expect_error(d, [](auto&, GptqTensors& t) { t.qweight = t.qweight.subspan(1); }, "qweight has");
  expect_error(d, [](auto&, GptqTensors& t) { t.scales = t.scales.subspan(1); }, "scales have");
  expect_error(d, [](auto&, GptqTensors& t) { t.n = 96; }, "N = 96");
  expect_error(d, [](auto&, GptqTensors& t) { t.k = 200; }, "K = 200");
}

TEST(GptqLayout, ReferenceDequantisesFromTheDiskLayout) {
  const auto d = RandomGptq(128, 64, 128, 11);
  const std::vector<float> w = cpu::DequantizeGptq(d.View());
  for (int k : {0, 5, 127}) {
    for (int n : {0, 9, 63}) {
      const float scale = RoundToBf16(HalfToFloat(d.scales[n]));
      EXPECT_EQ(w[static_cast<size_t>(k) * 64 + n], static_cast<float>(GptqNibble(d, k, n) - 8) * scale);
    }
  }
  const std::vector<float> x = {1.f, 2.f};  // [1, 2] . [[1, 2], [3, 4]] = [7, 10]
  const std::vector<float> m = {1.f, 2.f, 3.f, 4.f};
  EXPECT_EQ(cpu::MatmulReference(x, m, 1, 2, 2, 4), (std::vector<float>{7.f, 10.f}));
}

TEST(GptqLayout, ConcatenatedColumnsKeepEveryValueAndScale) {
  const W4A16Weights a = RandomW4A16Weights(256, 64, 128, 1), b = RandomW4A16Weights(256, 32, 128, 2),
                     c = RandomW4A16Weights(256, 16, 128, 3);
  const W4A16Weights* parts[] = {&a, &b, &c};
  Result<W4A16Weights> fused = ConcatColumns(parts);
  ASSERT_TRUE(fused.ok()) << fused.status().message();
  ASSERT_EQ(fused->n, 112);
  int offset = 0;
  for (const W4A16Weights* p : parts) {
    for (int k = 0; k < p->k; ++k) {
      for (int n = 0; n < p->n; ++n) ASSERT_EQ(PackedNibble(*fused, k, offset + n), PackedNibble(*p, k, n)) << k << "," << n;
    }
    for (int g = 0; g < 2; ++g) {
      for (int n = 0; n < p->n; ++n) ASSERT_EQ(fused->scales[size_t(g) * 112 + offset + n], p->scales[size_t(g) * p->n + n]);
    }
    offset += p->n;
  }
  const W4A16Weights other_k = RandomW4A16Weights(128, 16, 128, 4);
  const W4A16Weights* mismatched[] = {&a, &other_k};
  EXPECT_FALSE(ConcatColumns(mismatched).ok());
}

TEST(GptqLayout, RandomWeightsHaveVarianceOneOverK) {
  const W4A16Weights w = RandomW4A16Weights(1024, 256, 128, 9);
  double sum_sq = 0.0;
  for (int k = 0; k < w.k; ++k) {
    for (int n = 0; n < w.n; ++n) {
      const double v = (PackedNibble(w, k, n) - 8) * Bf16ToFloat(bf16{w.scales[size_t(k / 128) * w.n + n]});
      sum_sq += v * v;
    }
  }
  EXPECT_NEAR(sum_sq / (double(w.k) * w.n) * w.k, 1.0, 0.15);  // scale jitter adds ~2% on average
}

}  // namespace
}  // namespace vt::kernels
