// The QKV-prepare kernel (bias, per-head q/k RMSNorm, RoPE, q out and k/v into their cache slots)
// against the float32 CPU ops on the same bf16 inputs, within the kernel's bf16 roundings; with
// dependent launches on and off the same bits. Head counts that leave some of the launch's warps
// without a head, and a token whose slot is negative (its K/V never written).
#include "kernels/cuda/ops/qkv_prepare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/bf16.h"
#include "kernels/cpu/rms_norm.h"
#include "kernels/cpu/rope.h"
#include "kernels/cuda/dependent_launch.h"
#include "tests/kernels/cuda/paged_kv_fixture.h"

namespace vt::kernels::cuda {
namespace {

using vt::testing::CheckCuda;
using vt::testing::Download;
using vt::testing::RandomBf16;
using vt::testing::SkipWithoutGpu;
using vt::testing::Upload;

struct Shape {
  int head_dim, q_heads, kv_heads;
  bool norm, bias;
};

// What the kernel should write for every head of every token: bias added, q/k normalised and
// rotated, in float32 from the same bf16 inputs.
std::vector<float> Reference(const Shape& s, const std::vector<float>& qkv, const std::vector<float>& bias,
                             const std::vector<float>& q_norm, const std::vector<float>& k_norm,
                             const std::vector<int32_t>& positions, const std::vector<float>& inv_freq) {
  const int heads = s.q_heads + 2 * s.kv_heads, d = s.head_dim, tokens = int(positions.size());
  std::vector<float> x = qkv;
  std::vector<float> cos_tab(size_t(tokens) * d / 2), sin_tab(cos_tab.size());
  kernels::cpu::RopeCosSin(inv_freq, positions.data(), tokens, cos_tab.data(), sin_tab.data());
  for (int t = 0; t < tokens; ++t) {
    for (int h = 0; h < heads; ++h) {
      float* head = x.data() + (size_t(t) * heads + h) * d;
      if (s.bias) {
        for (int j = 0; j < d; ++j) head[j] += bias[size_t(h) * d + j];
      }
      if (h >= s.q_heads + s.kv_heads) continue;  // v: as projected
      if (s.norm)
        kernels::cpu::RmsNorm(head, h < s.q_heads ? q_norm.data() : k_norm.data(), 1, d, 1e-6f, head);
      kernels::cpu::ApplyRope(head, 1, 1, d, cos_tab.data() + size_t(t) * d / 2,
                              sin_tab.data() + size_t(t) * d / 2);
    }
  }
  return x;
}

// Runs the kernel with dependent launches `dependent`; returns q_out, then the cache's rows of each
// token's k and v heads (poison where the slot is negative).
std::vector<uint16_t> RunPrepare(const Shape& s, QkvPrepareParams p, bool dependent,
                                 const std::vector<int64_t>& slots, size_t cache_elems) {
  const int tokens = p.tokens, d = s.head_dim;
  CheckCuda(cudaMemset(p.q_out, 0xff, size_t(tokens) * s.q_heads * d * 2), "poison");
  CheckCuda(cudaMemset(p.k_cache, 0xff, cache_elems * 2), "poison");
  CheckCuda(cudaMemset(p.v_cache, 0xff, cache_elems * 2), "poison");
  {
    ScopedDependentLaunch pdl(dependent);
    EXPECT_TRUE(PrepareQkv(p, nullptr).ok());
  }
  std::vector<uint16_t> out = Download(p.q_out, size_t(tokens) * s.q_heads * d);
  const std::vector<uint16_t> k = Download(p.k_cache, cache_elems), v = Download(p.v_cache, cache_elems);
  for (int t = 0; t < tokens; ++t) {
    for (const std::vector<uint16_t>* cache : {&k, &v}) {
      const int64_t slot = slots[t] < 0 ? 0 : slots[t];  // a negative slot: its row must stay poisoned
      const auto row = cache->begin() + slot * s.kv_heads * d;
      out.insert(out.end(), row, row + size_t(s.kv_heads) * d);
    }
  }
  return out;
}

TEST(QkvPrepare, MatchesTheCpuOpsAndGivesTheSameBitsWithDependentLaunches) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  // qwen3's heads at 128; 14 + 2 + 2 = 18 heads (two warps of the fifth CTA idle) at 64 with a bias
  // (Qwen2) and no norm; 256 with a norm.
  for (const Shape& s :
       {Shape{128, 16, 8, true, false}, Shape{64, 14, 2, false, true}, Shape{256, 8, 4, true, false}}) {
    SCOPED_TRACE("head_dim " + std::to_string(s.head_dim) + " heads " + std::to_string(s.q_heads));
    const int heads = s.q_heads + 2 * s.kv_heads, d = s.head_dim, tokens = 3;
    const std::vector<int32_t> positions = {0, 37, 4000};
    const std::vector<int64_t> slots = {5, -1, 9};  // token 1's K/V is not written
    const size_t cache_elems = size_t(16) * s.kv_heads * d;
    vt::testing::Bf16Data qkv = RandomBf16(size_t(tokens) * heads * d, 2.f, 21);
    vt::testing::Bf16Data bias = RandomBf16(size_t(heads) * d, 0.5f, 22);
    vt::testing::Bf16Data q_norm = RandomBf16(d, 1.f, 23), k_norm = RandomBf16(d, 1.f, 24);
    const std::vector<float> inv_freq = kernels::cpu::RopeInvFreq(d, 1e6, {});

    QkvPrepareParams p;
    p.qkv = Upload(qkv.bits);
    p.bias = s.bias ? Upload(bias.bits) : nullptr;
    p.q_norm = s.norm ? Upload(q_norm.bits) : nullptr;
    p.k_norm = s.norm ? Upload(k_norm.bits) : nullptr;
    p.positions = Upload(positions);
    p.inv_freq = Upload(inv_freq);
    p.slots = Upload(slots);
    CheckCuda(cudaMalloc(&p.q_out, size_t(tokens) * s.q_heads * d * 2), "alloc");
    CheckCuda(cudaMalloc(&p.k_cache, cache_elems * 2), "alloc");
    CheckCuda(cudaMalloc(&p.v_cache, cache_elems * 2), "alloc");
    p.tokens = tokens;
    p.num_q_heads = s.q_heads;
    p.num_kv_heads = s.kv_heads;
    p.head_dim = d;

    const std::vector<uint16_t> plain = RunPrepare(s, p, false, slots, cache_elems);
    EXPECT_EQ(RunPrepare(s, p, true, slots, cache_elems), plain) << "dependent launches changed the bits";

    const std::vector<float> want =
        Reference(s, qkv.values, bias.values, q_norm.values, k_norm.values, positions, inv_freq);
    int bad = 0;
    auto expect_head = [&](size_t got_at, int t, int h) {
      for (int j = 0; j < d; ++j) {
        const float g = Bf16ToFloat(bf16{plain[got_at + j]});
        const float w = want[(size_t(t) * heads + h) * d + j];
        if (!(std::fabs(g - w) <= std::ldexp(std::fabs(w), -6) + 0.03f) && ++bad <= 5) {
          ADD_FAILURE() << "token " << t << " head " << h << " [" << j << "]: got " << g << ", want " << w;
        }
      }
    };
    for (int t = 0; t < tokens; ++t) {
      for (int h = 0; h < s.q_heads; ++h) expect_head((size_t(t) * s.q_heads + h) * d, t, h);
    }
    size_t at = size_t(tokens) * s.q_heads * d;
    for (int t = 0; t < tokens; ++t) {
      for (int first : {s.q_heads, s.q_heads + s.kv_heads}) {  // the token's k heads, then its v heads
        for (int h = 0; h < s.kv_heads; ++h, at += d) {
          if (slots[t] >= 0) {
            expect_head(at, t, first + h);
          } else {
            for (int j = 0; j < d; ++j) ASSERT_EQ(plain[at + j], 0xffff) << "token " << t << " was written";
          }
        }
      }
    }
    EXPECT_EQ(bad, 0);
    for (const void* dev : {static_cast<const void*>(p.qkv), static_cast<const void*>(p.bias),
                            static_cast<const void*>(p.q_norm), static_cast<const void*>(p.k_norm),
                            static_cast<const void*>(p.positions), static_cast<const void*>(p.inv_freq),
                            static_cast<const void*>(p.slots), static_cast<const void*>(p.q_out),
                            static_cast<const void*>(p.k_cache), static_cast<const void*>(p.v_cache)}) {
      cudaFree(const_cast<void*>(dev));
    }
  }
}

}  // namespace
}  // namespace vt::kernels::cuda
