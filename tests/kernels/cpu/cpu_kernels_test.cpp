// CPU kernel properties the engine relies on: a row's result never depends on
// the batch or the thread count, and decode attention is prefill attention
// with one query.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kernels/cpu/dot.h"
#include "kernels/cpu/dtype.h"
#include "kernels/cpu/matmul.h"
#include "kernels/cpu/paged_attention.h"

namespace vt::kernels::cpu {
namespace {

std::vector<float> RandomFloats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

TEST(Dot, FourRowKernelIsBitwiseTheSingleRowKernel) {
  for (int64_t n : {1, 15, 16, 17, 100, 1024, 1031}) {
    const auto x = RandomFloats(4 * n, 1);
    const auto wf = RandomFloats(n, 2);
    std::vector<uint16_t> wb(n);
    for (int64_t i = 0; i < n; ++i) wb[i] = FloatToBf16(wf[i]).bits;
    const float* rows[4] = {x.data(), x.data() + n, x.data() + 2 * n, x.data() + 3 * n};
    float out_b[4], out_f[4];
    DotBf16x4(rows, wb.data(), n, out_b);
    DotF32x4(rows, wf.data(), n, out_f);
    for (int r = 0; r < 4; ++r) {
      EXPECT_EQ(out_b[r], DotBf16(rows[r], wb.data(), n)) << n;
      EXPECT_EQ(out_f[r], DotF32(rows[r], wf.data(), n)) << n;
      double exact = 0;
      for (int64_t i = 0; i < n; ++i) exact += static_cast<double>(rows[r][i]) * wf[i];
      EXPECT_NEAR(out_f[r], exact, 1e-4 * std::sqrt(static_cast<double>(n)));
    }
  }
}

TEST(Fp16, EveryHalfValueRoundTrips) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = Fp16ToFloat(static_cast<uint16_t>(h));
    if (std::isnan(f)) continue;
    EXPECT_EQ(FloatToFp16(f), h) << std::hex << h;
  }
}

TEST(MatMul, RowResultsIndependentOfBatchAndThreads) {
  const int64_t k = 200, n = 37, m = 9;
  const auto wf = RandomFloats(n * k, 3);
  std::vector<uint16_t> wb(n * k);
  for (size_t i = 0; i < wb.size(); ++i) wb[i] = FloatToBf16(wf[i]).bits;
  const auto x = RandomFloats(m * k, 4);
  const auto bias = RandomFloats(n, 5);
  for (DType t : {DType::kBF16, DType::kF32, DType::kF16}) {
    std::vector<uint16_t> wh(n * k);
    for (size_t i = 0; i < wh.size(); ++i) wh[i] = FloatToFp16(wf[i]);
    const void* data = t == DType::kBF16 ? static_cast<const void*>(wb.data())
                       : t == DType::kF32 ? static_cast<const void*>(wf.data())
                                          : static_cast<const void*>(wh.data());
    const WeightMatrix w{t, data, n, k};
    ThreadPool one(1), three(3);
    std::vector<float> batched(m * n), single(n);
    MatMul(three, x.data(), m, w, bias.data(), batched.data());
    for (int64_t i = 0; i < m; ++i) {
      MatMul(one, x.data() + i * k, 1, w, bias.data(), single.data());
      for (int64_t j = 0; j < n; ++j) ASSERT_EQ(batched[i * n + j], single[j]) << DTypeName(t) << " row " << i;
    }
  }
}

TEST(PagedAttention, DecodeEqualsPrefillOfOneQuery) {
  const int64_t blocks = 6, block_size = 4, kv_heads = 2, d = 8, heads = 4, context = 19;
  std::vector<float> k = RandomFloats(blocks * block_size * kv_heads * d, 6);
  std::vector<float> v = RandomFloats(blocks * block_size * kv_heads * d, 7);
  const PagedKvLayer cache{k.data(), v.data(), blocks, block_size, kv_heads, d};
  const std::vector<int32_t> table = {4, 1, 5, 0, 2};
  const auto q = RandomFloats(heads * d, 8);
  ThreadPool pool(2);
  std::vector<float> prefill(heads * d), decode(heads * d);
  const AttentionSeq seq{0, 1, context - 1, table.data()};
  PagedAttentionPrefill(pool, cache, q.data(), heads, &seq, 1, 0.35f, prefill.data());
  const int32_t* tables[1] = {table.data()};
  const int64_t lens[1] = {context};
  PagedAttentionDecode(pool, cache, q.data(), heads, tables, lens, 1, 0.35f, decode.data());
  EXPECT_EQ(prefill, decode);
  // And it is softmax attention over exactly the first `context` cached tokens.
  for (int64_t h = 0; h < heads; ++h) {
    const int64_t g = h / (heads / kv_heads);
    std::vector<double> s(context);
    double mx = -1e30, sum = 0;
    for (int64_t j = 0; j < context; ++j) {
      const int64_t slot = table[j / block_size] * block_size + j % block_size;
      double dot = 0;
      for (int64_t i = 0; i < d; ++i) dot += q[h * d + i] * k[(slot * kv_heads + g) * d + i];
      s[j] = dot * 0.35;
      mx = std::max(mx, s[j]);
    }
    for (double& x : s) sum += (x = std::exp(x - mx));
    for (int64_t i = 0; i < d; ++i) {
      double o = 0;
      for (int64_t j = 0; j < context; ++j) {
        const int64_t slot = table[j / block_size] * block_size + j % block_size;
        o += s[j] / sum * v[(slot * kv_heads + g) * d + i];
      }
      EXPECT_NEAR(decode[h * d + i], o, 1e-5);
    }
  }
}

}  // namespace
}  // namespace vt::kernels::cpu
