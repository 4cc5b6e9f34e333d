// The CUDA forward ops against the float32 CPU ops of kernels/cpu/ on bf16-rounded inputs:
// every output element within bf16 rounding (2^-8 relative plus a small absolute floor), outputs
// poisoned first.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/bf16.h"
#include "kernels/cpu/rms_norm.h"
#include "kernels/cpu/rope.h"
#include "kernels/cpu/silu_mul.h"
#include "kernels/cuda/ops/forward_ops.h"
#include "tests/kernels/cuda/paged_kv_fixture.h"

namespace vt::kernels::cuda {
namespace {

using vt::testing::Bf16Data;
using vt::testing::CheckCuda;
using vt::testing::Download;
using vt::testing::RandomBf16;
using vt::testing::Upload;
using vt::testing::SkipWithoutGpu;

uint16_t* Poisoned(size_t n) {
  uint16_t* dev = nullptr;
  CheckCuda(cudaMalloc(&dev, n * 2), "alloc");
  CheckCuda(cudaMemset(dev, 0xff, n * 2), "poison");
  return dev;
}

void ExpectCloseBf16(const std::vector<uint16_t>& got, const std::vector<float>& want, float abs_floor, const char* what) {
  ASSERT_EQ(got.size(), want.size());
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const float g = Bf16ToFloat(bf16{got[i]});
    if (!std::isfinite(g) || std::fabs(g - want[i]) > std::ldexp(std::fabs(want[i]), -7) + abs_floor) {
      if (++bad <= 5) ADD_FAILURE() << what << " [" << i << "]: got " << g << ", want " << want[i];
    }
  }
  EXPECT_EQ(bad, 0) << what;
}

// 2048 and 4096 take the vectorised kernel (one thread per eight values); 100 the strided one.
TEST(ForwardOps, AddRmsNormMatchesTheCpuOp) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  const int rows = 7;
  for (int dim : {2048, 4096, 100}) {
    SCOPED_TRACE("dim " + std::to_string(dim));
    const Bf16Data x = RandomBf16(size_t(rows) * dim, 1.f, 1), residual = RandomBf16(size_t(rows) * dim, 1.f, 2),
                   weight = RandomBf16(dim, 1.f, 3);
    std::vector<float> sum(x.values.size());
    for (size_t i = 0; i < sum.size(); ++i) sum[i] = RoundToBf16(x.values[i] + residual.values[i]);
    std::vector<float> want(sum.size());
    cpu::RmsNorm(sum.data(), weight.values.data(), rows, dim, 1e-6f, want.data());
    uint16_t *dx = Upload(x.bits), *dres = Upload(residual.bits), *dw = Upload(weight.bits),
             *dout = Poisoned(sum.size());
    ASSERT_TRUE(AddRmsNorm(dx, dres, dw, rows, dim, 1e-6f, dout, nullptr).ok());
    ExpectCloseBf16(Download(dout, sum.size()), want, 1e-3f, "rms_norm");
    std::vector<uint16_t> sum_bits;
    for (float v : sum) sum_bits.push_back(FloatToBf16(v).bits);
    EXPECT_EQ(Download(dres, sum.size()), sum_bits) << "the residual stream holds x + residual in bf16";
    // Without x (the first layer's norm) the residual is read, not written.
    uint16_t* dout2 = Poisoned(sum.size());
    ASSERT_TRUE(AddRmsNorm(nullptr, dres, dw, rows, dim, 1e-6f, dout2, nullptr).ok());
    ExpectCloseBf16(Download(dout2, sum.size()), want, 1e-3f, "rms_norm without add");
    EXPECT_EQ(Download(dres, sum.size()), sum_bits);
    for (void* p : {static_cast<void*>(dx), static_cast<void*>(dres), static_cast<void*>(dw),
                    static_cast<void*>(dout), static_cast<void*>(dout2)}) {
      cudaFree(p);
    }
  }
}

TEST(ForwardOps, RopeMatchesTheCpuOpForBothSchedules) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  const int n = 5, heads = 4, head_dim = 128;
  const std::vector<int32_t> positions = {0, 1, 17, 1000, 8191};
  for (bool llama3 : {false, true}) {
    cpu::RopeScaling scaling;
    scaling.llama3 = llama3;
    scaling.factor = 8.f;
    const std::vector<float> inv_freq = cpu::RopeInvFreq(head_dim, llama3 ? 500000.0 : 10000.0, scaling);
    const Bf16Data x = RandomBf16(size_t(n) * heads * head_dim, 2.f, 4);
    std::vector<float> cos_tab(size_t(n) * head_dim / 2), sin_tab(cos_tab.size()), want = x.values;
    cpu::RopeCosSin(inv_freq, positions.data(), n, cos_tab.data(), sin_tab.data());
    cpu::ApplyRope(want.data(), n, heads, head_dim, cos_tab.data(), sin_tab.data());
    uint16_t* dx = Upload(x.bits);
    int32_t* dpos = Upload(positions);
    float* dfreq = Upload(inv_freq);
    ASSERT_TRUE(ApplyRope(dx, dpos, dfreq, n, heads, head_dim, nullptr).ok());
    ExpectCloseBf16(Download(dx, want.size()), want, 2e-2f, llama3 ? "rope llama3" : "rope default");
    cudaFree(dx);
    cudaFree(dpos);
    cudaFree(dfreq);
  }
}

TEST(ForwardOps, SiluMulAndEmbeddingMatch) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  const int rows = 3;
  for (int inter : {4864, 1001}) {  // eight values a thread, and one
    const Bf16Data gate_up = RandomBf16(size_t(rows) * 2 * inter, 4.f, 5);
    std::vector<float> want(size_t(rows) * inter);
    for (int r = 0; r < rows; ++r) {
      cpu::SiluMul(gate_up.values.data() + size_t(r) * 2 * inter,
                   gate_up.values.data() + size_t(r) * 2 * inter + inter, inter, want.data() + size_t(r) * inter);
    }
    uint16_t *dgu = Upload(gate_up.bits), *dout = Poisoned(want.size());
    ASSERT_TRUE(SiluMul(dgu, rows, inter, dout, nullptr).ok());
    ExpectCloseBf16(Download(dout, want.size()), want, 1e-3f, ("silu_mul " + std::to_string(inter)).c_str());
    cudaFree(dgu);
    cudaFree(dout);
  }

  const int vocab = 50, hidden = 96;
  const Bf16Data table = RandomBf16(size_t(vocab) * hidden, 1.f, 6);
  const std::vector<int32_t> ids = {3, 0, 49, 3, -1, 50};
  uint16_t *dtab = Upload(table.bits), *demb = Poisoned(ids.size() * hidden);
  int32_t* dids = Upload(ids);
  ASSERT_TRUE(EmbeddingLookup(dids, static_cast<int>(ids.size()), dtab, vocab, hidden, demb, nullptr).ok());
  const std::vector<uint16_t> emb = Download(demb, ids.size() * hidden);
  for (size_t i = 0; i < ids.size(); ++i) {
    for (int c = 0; c < hidden; ++c) {
      const uint16_t want_bits = ids[i] >= 0 && ids[i] < vocab ? table.bits[size_t(ids[i]) * hidden + c] : 0;
      ASSERT_EQ(emb[i * hidden + c], want_bits) << "row " << i;
    }
  }
  for (void* p : {static_cast<void*>(dtab), static_cast<void*>(demb), static_cast<void*>(dids)}) {
    cudaFree(p);
  }
}

}  // namespace
}  // namespace vt::kernels::cuda
