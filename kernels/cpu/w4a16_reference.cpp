#include "kernels/cpu/w4a16_reference.h"

#include <algorithm>
#include <thread>

#include "kernels/bf16.h"

namespace vt::kernels::cpu {

std::vector<float> DequantizeGptq(const GptqTensors& t) {
  const int group = t.group_size == -1 ? t.k : t.group_size;
  std::vector<float> w(static_cast<size_t>(t.k) * t.n);
  for (int k = 0; k < t.k; ++k) {
    for (int n = 0; n < t.n; ++n) {
      const uint32_t word = static_cast<uint32_t>(t.qweight[static_cast<size_t>(k / 8) * t.n + n]);
      const int q = static_cast<int>((word >> (4 * (k % 8))) & 0xfu);
      const float scale = RoundToBf16(HalfToFloat(t.scales[static_cast<size_t>(k / group) * t.n + n]));
      w[static_cast<size_t>(k) * t.n + n] = static_cast<float>(q - 8) * scale;
    }
  }
  return w;
}

std::vector<float> MatmulReference(std::span<const float> x, std::span<const float> w, int m, int k, int n,
                                   int threads) {
  std::vector<float> y(static_cast<size_t>(m) * n, 0.f);
  auto rows = [&](int begin, int end) {
    for (int r = begin; r < end; ++r) {
      float* out = y.data() + static_cast<size_t>(r) * n;
      for (int kk = 0; kk < k; ++kk) {
        const float a = x[static_cast<size_t>(r) * k + kk];
        const float* wr = w.data() + static_cast<size_t>(kk) * n;
        for (int c = 0; c < n; ++c) out[c] += a * wr[c];
      }
    }
  };
  threads = std::max(1, std::min(threads, m));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(rows, m * t / threads, m * (t + 1) / threads);
  for (std::thread& th : pool) th.join();
  return y;
}

}  // namespace vt::kernels::cpu
