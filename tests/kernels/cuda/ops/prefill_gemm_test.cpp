// The first pieces of the CUDA forward beyond element-wise ops: cuBLAS linear layers in HF's
// weight layout, and causal paged prefill attention (a chunk attending to its cached prefix and
// to itself) against the CPU float32 reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <memory>
#include <utility>
#include <vector>

#include "kernels/bf16.h"
#include "kernels/cpu/decode_attention_reference.h"
#include "kernels/cuda/dependent_launch.h"
#include "kernels/cuda/ops/batch_decode_gemm.h"
#include "kernels/cuda/ops/dense_gemm.h"
#include "kernels/cuda/ops/forward_ops.h"
#include "kernels/cuda/ops/prefill_attention.h"
#include "kernels/cuda/ops/prefill_tc.h"
#include "kernels/cuda/ops/prefill_wgmma.h"
#include "kernels/cuda/ops/skinny_gemm.h"
#include "tests/kernels/cuda/paged_kv_fixture.h"

namespace vt::kernels::cuda {
namespace {

using vt::testing::Bf16Data;
using vt::testing::CheckCuda;
using vt::testing::Download;
using vt::testing::RandomBf16;
using vt::testing::Upload;
using vt::testing::SkipWithoutGpu;
using vt::testing::PagedKvFixture;
using vt::testing::PagedKvShape;

// Relative L2 error of bf16 y [m, n] against x . W^T in double precision.
double GemmError(const std::vector<uint16_t>& y, const std::vector<float>& x, const std::vector<float>& w, int m, int n,
                 int k) {
  double err = 0, norm = 0;
  for (int r = 0; r < m; ++r) {
    for (int c = 0; c < n; ++c) {
      double ref = 0;
      for (int i = 0; i < k; ++i) ref += double(x[size_t(r) * k + i]) * w[size_t(c) * k + i];
      const double got = Bf16ToFloat(bf16{y[size_t(r) * n + c]});
      if (!std::isfinite(got)) return INFINITY;
      err += (got - ref) * (got - ref);
      norm += ref * ref;
    }
  }
  return std::sqrt(err / norm);
}

// M = 5 takes vt's skinny kernel, M = 16 and 40 the batch-decode kernel, M = 100 cuBLAS; with
// vt's kernels off every M goes to cuBLAS.
TEST(DenseGemm, LinearMatchesAFloat32Reference) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  for (const bool vt_kernels : {true, false}) {
    const char* choice = vt_kernels ? "vt kernels" : "cublas";
    Result<DenseGemm*> gemm = DenseGemm::Create(vt_kernels, vt_kernels);
    ASSERT_TRUE(gemm.ok()) << gemm.status().message();
    std::unique_ptr<DenseGemm> owner(*gemm);
    for (int m : {5, 16, 40, 100}) {
      SCOPED_TRACE(std::string(choice) + ", m " + std::to_string(m));
      const int n = 384, k = 512;
      const Bf16Data x = RandomBf16(size_t(m) * k, 1.f, 1), w = RandomBf16(size_t(n) * k, 0.1f, 2);
      uint16_t *dx = Upload(x.bits), *dw = Upload(w.bits), *dy = nullptr;
      CheckCuda(cudaMalloc(&dy, size_t(m) * n * 2), "alloc");
      CheckCuda(cudaMemset(dy, 0xff, size_t(m) * n * 2), "poison");
      ASSERT_TRUE(owner->Linear(dx, dw, m, n, k, dy, nullptr).ok());
      EXPECT_LT(GemmError(Download(dy, size_t(m) * n), x.values, w.values, m, n, k), 5e-3);
      cudaFree(dx);
      cudaFree(dw);
      cudaFree(dy);
    }
  }
}

// Every M from 1 to 8, column counts that leave a partial tile, K from one vector per thread to
// many, both forms of CTA (8 and 6 warps splitting K); each row must also come out bit-identical
// when it runs alone (batch invariance).
TEST(SkinnyGemm, MatchesAFloat32ReferenceAndGivesEachRowTheSameBitsAtEveryM) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  struct Shape {
    int n, k;
  };
  for (const Shape shape : {Shape{387, 2048}, Shape{37, 14336}, Shape{130, 160}}) {
    const int n = shape.n, k = shape.k;
    const Bf16Data x = RandomBf16(size_t(kSkinnyMaxRows) * k, 1.f, 3), w = RandomBf16(size_t(n) * k, 0.1f, 4);
    uint16_t *dx = Upload(x.bits), *dw = Upload(w.bits), *dy = nullptr;
    CheckCuda(cudaMalloc(&dy, size_t(kSkinnyMaxRows) * n * 2), "alloc");
    for (int warps : {8, 6}) {
      std::vector<uint16_t> alone;  // row r computed with m = 1
      for (int r = 0; r < kSkinnyMaxRows; ++r) {
        ASSERT_TRUE(SkinnyLinearWithWarps(dx + size_t(r) * k, dw, 1, n, k, dy, warps, nullptr).ok());
        const std::vector<uint16_t> row = Download(dy, n);
        alone.insert(alone.end(), row.begin(), row.end());
      }
      for (int m = 1; m <= kSkinnyMaxRows; ++m) {
        SCOPED_TRACE("n " + std::to_string(n) + ", k " + std::to_string(k) + ", m " + std::to_string(m) + ", " +
                     std::to_string(warps) + " warps");
        CheckCuda(cudaMemset(dy, 0xff, size_t(kSkinnyMaxRows) * n * 2), "poison");
        ASSERT_TRUE(SkinnyLinearWithWarps(dx, dw, m, n, k, dy, warps, nullptr).ok());
        const std::vector<uint16_t> y = Download(dy, size_t(kSkinnyMaxRows) * n);
        EXPECT_LT(GemmError(y, x.values, w.values, m, n, k), 5e-3);
        EXPECT_TRUE(std::equal(y.begin(), y.begin() + size_t(m) * n, alone.begin())) << "a row changed with M";
        EXPECT_TRUE(std::all_of(y.begin() + size_t(m) * n, y.end(), [](uint16_t b) { return b == 0xffff; }))
            << "rows past M were written";
      }
    }
    cudaFree(dx);
    cudaFree(dw);
    cudaFree(dy);
  }
}

// SkinnyLinear runs the form SkinnyLinearWarps names for N, on N of one, one and a bit and many
// waves of 8-warp CTAs (on an H200: 8, 6 and 8 warps); an unknown form is an error, not a launch.
TEST(SkinnyGemm, PicksOneFormByNAndRunsIt) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  const int k = 256;
  for (int n : {2048, 4096, 28672}) {
    const int warps = SkinnyLinearWarps(n);
    EXPECT_TRUE(warps == 8 || warps == 6) << warps;
    std::printf("skinny linear: N %d runs %d warps a CTA\n", n, warps);
    const Bf16Data x = RandomBf16(size_t(2) * k, 1.f, 5), w = RandomBf16(size_t(n) * k, 0.1f, 6);
    uint16_t *dx = Upload(x.bits), *dw = Upload(w.bits), *dy = nullptr;
    CheckCuda(cudaMalloc(&dy, size_t(2) * n * 2), "alloc");
    ASSERT_TRUE(SkinnyLinear(dx, dw, 2, n, k, dy, nullptr).ok());
    const std::vector<uint16_t> picked = Download(dy, size_t(2) * n);
    ASSERT_TRUE(SkinnyLinearWithWarps(dx, dw, 2, n, k, dy, warps, nullptr).ok());
    EXPECT_EQ(Download(dy, size_t(2) * n), picked) << "N " << n;
    EXPECT_FALSE(SkinnyLinearWithWarps(dx, dw, 2, n, k, dy, 4, nullptr).ok());
    cudaFree(dx);
    cudaFree(dw);
    cudaFree(dy);
  }
}

// Each form keeps the registers its streaming needs: 8-warp CTAs three an SM, 6-warp ones four (a
// fourth 8-warp CTA would mean ptxas had cut the registers, and with them the loads in flight).
TEST(SkinnyGemm, EachFormHoldsTheCtasAnSmItWasBuiltFor) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  EXPECT_EQ(SkinnyCtasPerSm(8), 3);
  EXPECT_EQ(SkinnyCtasPerSm(6), 4);
  EXPECT_EQ(SkinnyCtasPerSm(4), 0);
  EXPECT_EQ(SkinnyCtasPerSm(8, SkinnyWeights::kBeforeWait), 3);
  EXPECT_EQ(SkinnyCtasPerSm(6, SkinnyWeights::kBeforeWait), 4);
}

// Programmatic dependent launch: a chain of kernels on one stream where each reads what the one
// before wrote (RMSNorm -> GEMM -> SiLU·mul -> GEMM, as a decode layer's MLP) gives the same bits
// with dependent launches on as off; on, each kernel may be launched before the one before it ends
// and must wait inside for its writes. The GEMMs go through DenseGemm, so M picks the kernel, and
// issue their weight loads as `weights` says (kBeforeWait: gate/up, K = 2048, a group a warp, loads
// before its wait; down, K = 6144, after it).
void ExpectDependentChainGivesThePlainBits(int m, SkinnyWeights weights = SkinnyWeights::kAfterWait) {
  const int hidden = 2048, inter = 6144;
  Result<DenseGemm*> gemm = DenseGemm::Create();
  ASSERT_TRUE(gemm.ok()) << gemm.status().message();
  std::unique_ptr<DenseGemm> linear(*gemm);
  const Bf16Data x = RandomBf16(size_t(m) * hidden, 1.f, 7), norm = RandomBf16(size_t(hidden), 1.f, 8),
                 gate_up = RandomBf16(size_t(2) * inter * hidden, 0.05f, 9),
                 down = RandomBf16(size_t(hidden) * inter, 0.05f, 10);
  uint16_t *dx = Upload(x.bits), *dnorm = Upload(norm.bits), *dgu_w = Upload(gate_up.bits),
           *ddown_w = Upload(down.bits), *dres = nullptr, *dnormed = nullptr, *dgu = nullptr, *dact = nullptr,
           *dout = nullptr;
  CheckCuda(cudaMalloc(&dres, size_t(m) * hidden * 2), "alloc");
  CheckCuda(cudaMalloc(&dnormed, size_t(m) * hidden * 2), "alloc");
  CheckCuda(cudaMalloc(&dgu, size_t(m) * 2 * inter * 2), "alloc");
  CheckCuda(cudaMalloc(&dact, size_t(m) * inter * 2), "alloc");
  CheckCuda(cudaMalloc(&dout, size_t(m) * hidden * 2), "alloc");
  cudaStream_t stream = nullptr;
  CheckCuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  auto chain = [&](bool dependent) {
    SetDependentLaunch(dependent);
    // Every buffer the chain writes starts poisoned, so a kernel that wrote nothing cannot pass.
    const std::pair<uint16_t*, int> written[] = {{dnormed, hidden}, {dgu, 2 * inter}, {dact, inter}, {dout, hidden}};
    for (const auto& [buffer, columns] : written) {
      CheckCuda(cudaMemsetAsync(buffer, 0xff, size_t(m) * columns * 2, stream), "poison");
    }
    CheckCuda(cudaMemcpyAsync(dres, dx, size_t(m) * hidden * 2, cudaMemcpyDeviceToDevice, stream), "copy");
    for (int layer = 0; layer < 4; ++layer) {  // the output feeds the next round's residual add
      EXPECT_TRUE(AddRmsNorm(layer == 0 ? nullptr : dout, dres, dnorm, m, hidden, 1e-6f, dnormed, stream).ok());
      EXPECT_TRUE(linear->Linear(dnormed, dgu_w, m, 2 * inter, hidden, dgu, stream, weights).ok());
      EXPECT_TRUE(SiluMul(dgu, m, inter, dact, stream).ok());
      EXPECT_TRUE(linear->Linear(dact, ddown_w, m, hidden, inter, dout, stream, weights).ok());
    }
    CheckCuda(cudaStreamSynchronize(stream), "sync");
    SetDependentLaunch(false);
    return Download(dout, size_t(m) * hidden);
  };
  const std::vector<uint16_t> plain = chain(false);
  EXPECT_EQ(chain(true), plain);
  EXPECT_TRUE(std::any_of(plain.begin(), plain.end(), [](uint16_t b) { return (b & 0x7fff) != 0; }));
  cudaStreamDestroy(stream);
  for (uint16_t* p : {dx, dnorm, dgu_w, ddown_w, dres, dnormed, dgu, dact, dout}) cudaFree(p);
}

TEST(SkinnyGemm, DependentLaunchesGiveTheSameBitsAsPlainOnes) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  ExpectDependentChainGivesThePlainBits(4);
}

// The weights loaded before the wait: the same bits as plain launches, at one row and at eight, in the
// chain (whose gate/up takes the form and whose down does not) and alone on both forms' K: whole groups,
// a last warp with one chunk (K = 1600 on 8 warps), and past one group a warp (K = 2304: the plain form).
TEST(SkinnyGemm, WeightsLoadedBeforeTheWaitGiveThePlainBits) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  ASSERT_TRUE(SkinnyLoadsWeightsBeforeWait(12288, 2048));  // the chain's gate/up (8 warps a CTA)
  ASSERT_FALSE(SkinnyLoadsWeightsBeforeWait(2048, 6144));  // its down: three groups a warp
  for (int m : {1, kSkinnyMaxRows}) {
    SCOPED_TRACE("m " + std::to_string(m));
    ExpectDependentChainGivesThePlainBits(m, SkinnyWeights::kBeforeWait);
  }
  const int n = 520;  // 65 whole tiles (a tile past N takes ShareOf's clamp and FinishTile's check, as the plain form)
  for (const auto& [warps, k] : {std::pair{8, 2048}, {8, 1600}, {8, 2304}, {6, 1536}, {6, 1024}}) {
    SCOPED_TRACE(std::to_string(warps) + " warps, k " + std::to_string(k));
    const Bf16Data x = RandomBf16(size_t(kSkinnyMaxRows) * k, 1.f, 11), w = RandomBf16(size_t(n) * k, 0.1f, 12);
    uint16_t *dx = Upload(x.bits), *dw = Upload(w.bits), *dy = nullptr;
    CheckCuda(cudaMalloc(&dy, size_t(kSkinnyMaxRows) * n * 2), "alloc");
    auto run = [&](bool dependent, SkinnyWeights weights) {
      SetDependentLaunch(dependent);
      CheckCuda(cudaMemset(dy, 0xff, size_t(kSkinnyMaxRows) * n * 2), "poison");
      EXPECT_TRUE(SkinnyLinearWithWarps(dx, dw, kSkinnyMaxRows, n, k, dy, warps, nullptr, weights).ok());
      CheckCuda(cudaDeviceSynchronize(), "sync");
      SetDependentLaunch(false);
      return Download(dy, size_t(kSkinnyMaxRows) * n);
    };
    const std::vector<uint16_t> plain = run(false, SkinnyWeights::kAfterWait);
    EXPECT_LT(GemmError(plain, x.values, w.values, kSkinnyMaxRows, n, k), 5e-3);
    EXPECT_EQ(run(true, SkinnyWeights::kBeforeWait), plain);
    cudaFree(dx);
    cudaFree(dw);
    cudaFree(dy);
  }
}

// M = 24 takes the batch-decode kernel, its down projection split over a cluster of 8 (132 SMs).
TEST(BatchDecodeGemm, DependentLaunchesGiveTheSameBitsAsPlainOnes) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  ExpectDependentChainGivesThePlainBits(24);
}

TEST(SkinnyGemm, RejectsShapesItDoesNotTake) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  uint16_t* d = nullptr;
  CheckCuda(cudaMalloc(&d, 1 << 16), "alloc");
  EXPECT_FALSE(SkinnyLinear(d, d, 9, 16, 64, d, nullptr).ok());   // M > 8
  EXPECT_FALSE(SkinnyLinear(d, d, 1, 16, 80, d, nullptr).ok());   // K % 32 != 0
  EXPECT_FALSE(SkinnyLinear(d + 1, d, 1, 16, 64, d, nullptr).ok());  // misaligned x
  EXPECT_TRUE(SkinnyLinear(d, d, 1, 16, 64, d + 2048, nullptr).ok());
  cudaFree(d);
}

// M from 9 to 64 against the float32 reference (at M = 9, 16, 17, 33 and 64), for column counts
// that leave a partial 128-column tile and K from one pipeline step to the K of a down projection
// (1, 4 and 8 K splits on an H200); every row must come out with the same bits at every M, and rows
// past M must stay untouched.
TEST(BatchDecodeGemm, MatchesAFloat32ReferenceAndGivesEachRowTheSameBitsAtEveryM) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  struct Shape {
    int n, k;
  };
  for (const Shape shape : {Shape{387, 64}, Shape{4096, 2048}, Shape{1000, 6144}, Shape{130, 512}}) {
    const int n = shape.n, k = shape.k, rows = kBatchGemmMaxRows;
    const Bf16Data x = RandomBf16(size_t(rows) * k, 1.f, 5), w = RandomBf16(size_t(n) * k, 0.1f, 6);
    uint16_t *dx = Upload(x.bits), *dw = Upload(w.bits), *dy = nullptr;
    CheckCuda(cudaMalloc(&dy, size_t(rows) * n * 2), "alloc");
    ASSERT_TRUE(BatchLinear(dx, dw, rows, n, k, dy, nullptr).ok());
    const std::vector<uint16_t> full = Download(dy, size_t(rows) * n);
    for (int m = kBatchGemmMinRows; m <= rows; ++m) {
      SCOPED_TRACE("n " + std::to_string(n) + ", k " + std::to_string(k) + ", m " + std::to_string(m));
      CheckCuda(cudaMemset(dy, 0xff, size_t(rows) * n * 2), "poison");
      ASSERT_TRUE(BatchLinear(dx, dw, m, n, k, dy, nullptr).ok());
      const std::vector<uint16_t> y = Download(dy, size_t(rows) * n);
      if (m == 9 || m == 16 || m == 17 || m == 33) {
        EXPECT_LT(GemmError(y, x.values, w.values, m, n, k), 5e-3);
      }
      EXPECT_TRUE(std::equal(y.begin(), y.begin() + size_t(m) * n, full.begin())) << "a row changed with M";
      EXPECT_TRUE(std::all_of(y.begin() + size_t(m) * n, y.end(), [](uint16_t b) { return b == 0xffff; }))
          << "rows past M were written";
    }
    EXPECT_LT(GemmError(full, x.values, w.values, rows, n, k), 5e-3);
    cudaFree(dx);
    cudaFree(dw);
    cudaFree(dy);
  }
}

// The split count follows N, K and the SM count alone: at most one CTA per SM, two pipeline steps
// per split.
TEST(BatchDecodeGemm, SplitsKOnlyWhereTheColumnsLeaveSmsIdle) {
  EXPECT_EQ(BatchLinearSplits(2048, 2048, 132), 8);    // 16 tiles
  EXPECT_EQ(BatchLinearSplits(4096, 4096, 132), 4);    // 32 tiles
  EXPECT_EQ(BatchLinearSplits(6144, 4096, 132), 2);    // 48 tiles
  EXPECT_EQ(BatchLinearSplits(12288, 2048, 132), 1);   // 96 tiles
  EXPECT_EQ(BatchLinearSplits(28672, 4096, 132), 1);   // 224 tiles
  EXPECT_EQ(BatchLinearSplits(2048, 256, 132), 2);     // four steps of K
  EXPECT_EQ(BatchLinearSplits(2048, 64, 132), 1);
  EXPECT_EQ(BatchLinearSplits(2048, 2048, 8), 1);      // a small GPU is full already
}

// Every forced split count (the bench's A/B of the split rule) against the float32 reference, on
// shapes whose K steps do not divide evenly among the ranks; with three steps over four and eight
// ranks, some ranks have no step and add zeros.
TEST(BatchDecodeGemm, EveryForcedSplitCountMatchesTheReference) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  const int m = 40, n = 300;
  for (const int k : {64 * 13, 64 * 3}) {
    const Bf16Data x = RandomBf16(size_t(m) * k, 1.f, 7), w = RandomBf16(size_t(n) * k, 0.1f, 8);
    uint16_t *dx = Upload(x.bits), *dw = Upload(w.bits), *dy = nullptr;
    CheckCuda(cudaMalloc(&dy, size_t(m) * n * 2), "alloc");
    for (int splits : {1, 2, 4, 8}) {
      SCOPED_TRACE("k " + std::to_string(k) + ", splits " + std::to_string(splits));
      CheckCuda(cudaMemset(dy, 0xff, size_t(m) * n * 2), "poison");
      ASSERT_TRUE(BatchLinear(dx, dw, m, n, k, dy, nullptr, splits).ok());
      EXPECT_LT(GemmError(Download(dy, size_t(m) * n), x.values, w.values, m, n, k), 5e-3);
    }
    EXPECT_FALSE(BatchLinear(dx, dw, m, n, k, dy, nullptr, 3).ok());
    EXPECT_FALSE(BatchLinear(dx, dw, m, n, k, dy, nullptr, 16).ok());
    cudaFree(dx);
    cudaFree(dw);
    cudaFree(dy);
  }
}

TEST(BatchDecodeGemm, RejectsShapesItDoesNotTake) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  uint16_t* d = nullptr;
  CheckCuda(cudaMalloc(&d, 1 << 18), "alloc");
  EXPECT_FALSE(BatchLinear(d, d, 8, 16, 64, d, nullptr).ok());       // M < 9: the skinny kernel's
  EXPECT_FALSE(BatchLinear(d, d, 65, 16, 64, d, nullptr).ok());      // M > 64
  EXPECT_FALSE(BatchLinear(d, d, 16, 16, 96, d, nullptr).ok());      // K % 64 != 0
  EXPECT_FALSE(BatchLinear(d + 1, d, 16, 16, 64, d, nullptr).ok());  // misaligned x
  EXPECT_FALSE(BatchLinear(d, d, 16, 0, 64, d, nullptr).ok());       // no columns
  EXPECT_FALSE(BatchLinear(nullptr, d, 16, 16, 64, d, nullptr).ok());  // no x
  EXPECT_TRUE(BatchLinear(d, d, 16, 16, 64, d + 4096, nullptr).ok());
  cudaFree(d);
}

// A prefill call of `tokens` device rows (queries, their sequences and positions) over f's paged cache.
PrefillAttentionParams ParamsOver(const PagedKvFixture& f, const uint16_t* q, const int32_t* seq_of_token,
                                  const int32_t* positions, int tokens, int max_context) {
  const PagedKvShape& shape = f.shape();
  PrefillAttentionParams p;
  p.q = q;
  p.k_cache = f.d_k_cache();
  p.v_cache = f.d_v_cache();
  p.seq_of_token = seq_of_token;
  p.positions = positions;
  p.block_tables = f.d_block_tables();
  p.tokens = tokens;
  p.num_q_heads = shape.num_q_heads;
  p.num_kv_heads = shape.num_kv_heads;
  p.head_dim = shape.head_dim;
  p.block_size = shape.block_size;
  p.max_blocks_per_seq = f.max_blocks_per_seq();
  p.max_context = max_context;
  p.scale = 1.f / std::sqrt(float(shape.head_dim));
  return p;
}

// Every prefill path on chunks of 37 tokens that end at `contexts` (each sequence's chunk ends at
// its context), against the float32 reference: the decode-query path on two arms, and the
// tensor-core kernel on warpgroup MMAs (where the GPU and head_dim have them, else the same as warp)
// and on warp MMAs, each unsplit (no workspace) and, where a context passes kPrefillSplitKeys, split.
void ExpectChunksAttendCausally(const PagedKvShape& shape, const std::vector<int>& contexts) {
  const PagedKvFixture f(shape, contexts, 3u);
  const int chunk = 37;
  std::vector<int32_t> seq_of_token, positions;
  for (int s = 0; s < f.batch(); ++s) {
    for (int p = std::max(0, contexts[s] - chunk); p < contexts[s]; ++p) {
      seq_of_token.push_back(s);
      positions.push_back(p);
    }
  }
  const int tokens = static_cast<int>(positions.size());
  const int row = shape.num_q_heads * shape.head_dim;
  const Bf16Data qd = RandomBf16(size_t(tokens) * row, 1.f, 4);
  const std::vector<float>& q = qd.values;
  const float scale = 1.f / std::sqrt(float(shape.head_dim));
  std::vector<float> ref(size_t(tokens) * row);
  // The softmax-weighted mean of |v| per output element: the tensor-core kernel rounds each weight
  // to bf16 (relative error <= 2^-9, as FlashAttention does), which moves an output by at most
  // 2^-9 (that mean + |output|); the tolerance allows 2^-8 of it on those paths. The attention
  // reference computes that mean when given |v| for v.
  std::vector<float> abs_mean(size_t(tokens) * row);
  std::vector<std::vector<float>> abs_v(f.batch());
  for (int s = 0; s < f.batch(); ++s) {
    for (float x : f.v(s)) abs_v[s].push_back(std::fabs(x));
  }
  for (int t = 0; t < tokens; ++t) {
    const int s = seq_of_token[t];
    cpu::DecodeReferenceShape rs{shape.num_q_heads, shape.num_kv_heads, shape.head_dim, positions[t] + 1, scale};
    cpu::DecodeAttentionReference(rs, std::span<const float>(q.data() + size_t(t) * row, row), f.k(s), f.v(s),
                                  std::span<float>(ref.data() + size_t(t) * row, row));
    cpu::DecodeAttentionReference(rs, std::span<const float>(q.data() + size_t(t) * row, row), f.k(s),
                                  abs_v[s], std::span<float>(abs_mean.data() + size_t(t) * row, row));
  }
  uint16_t* dq = Upload(qd.bits);
  int32_t *dseq = Upload(seq_of_token), *dpos = Upload(positions);
  // The decode-query path on two arms, then the tensor-core kernel (which has no arm).
  struct Path {
    DecodeArm arm;
    bool tensor_core;
    bool workspace;  // the tensor-core kernel splits only with one
    PrefillMma mma;
  };
  for (const Path path :
       {Path{DecodeArm::kBlock, false, true, PrefillMma::kAuto}, Path{DecodeArm::kGqa, false, true, PrefillMma::kAuto},
        Path{DecodeArm::kBlock, true, false, PrefillMma::kAuto}, Path{DecodeArm::kBlock, true, true, PrefillMma::kAuto},
        Path{DecodeArm::kBlock, true, false, PrefillMma::kWarp}, Path{DecodeArm::kBlock, true, true, PrefillMma::kWarp}}) {
    const DecodeArm arm = path.arm;
    const bool tensor_core = path.tensor_core;
    PrefillAttentionParams p = ParamsOver(f, dq, dseq, dpos, tokens, f.max_context());
    Result<DecodePlan> plan = PlanDecode({tokens, shape.num_q_heads, shape.num_kv_heads, shape.head_dim,
                                          shape.block_size, f.max_context()},
                                         DecodeOverrides{arm, kSplitAuto});
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    void* ws = nullptr;
    const size_t ws_bytes = tensor_core ? PrefillTcWorkspaceBytes(p) : PrefillWorkspaceBytes(p, *plan);
    CheckCuda(cudaMalloc(&ws, std::max<size_t>(ws_bytes, 1)), "alloc workspace");
    CheckCuda(cudaMalloc(&p.out, size_t(tokens) * row * 2), "alloc out");
    CheckCuda(cudaMemset(p.out, 0xff, size_t(tokens) * row * 2), "poison");
    ASSERT_TRUE((tensor_core ? RunPrefillAttentionTensorCore(p, path.workspace ? ws : nullptr, ws_bytes, path.mma, nullptr)
                             : RunPrefillAttention(p, *plan, ws, nullptr))
                    .ok());
    std::vector<uint16_t> out(size_t(tokens) * row);
    CheckCuda(cudaDeviceSynchronize(), "prefill");
    CheckCuda(cudaMemcpy(out.data(), p.out, out.size() * 2, cudaMemcpyDeviceToHost), "download");
    int bad = 0;
    for (int t = 0; t < tokens; ++t) {
      for (int h = 0; h < shape.num_q_heads; ++h) {
        const size_t base = size_t(t) * row + size_t(h) * shape.head_dim;
        double head_max = 0;
        for (int d = 0; d < shape.head_dim; ++d) head_max = std::max(head_max, std::fabs(double(ref[base + d])));
        for (int d = 0; d < shape.head_dim; ++d) {
          const float o = Bf16ToFloat(bf16{out[base + d]});
          const double p_rounding = tensor_core ? std::ldexp(double(abs_mean[base + d]), -8) : 0.0;
          if (!std::isfinite(o) ||
              std::fabs(o - ref[base + d]) > 1e-2 * std::fabs(ref[base + d]) + 1e-3 * head_max + p_rounding) {
            ++bad;
          }
        }
      }
    }
    EXPECT_EQ(bad, 0) << (tensor_core ? std::string(path.workspace ? "tensor-core prefill, split where it may"
                                                                   : "tensor-core prefill, unsplit") +
                                            (path.mma == PrefillMma::kWarp ? ", warp MMAs" : ", auto MMAs")
                                      : std::string(DecodeArmName(arm)));
    cudaFree(ws);
    cudaFree(p.out);
  }
  cudaFree(dq);
  cudaFree(dseq);
  cudaFree(dpos);
}

// 16-token tiles of the tensor-core kernel straddle sequences inside both row halves of a tile,
// and one tile holds three sequences (the end of one, a one-token sequence, the start of another).
TEST(PrefillAttention, ChunkAttendsCausallyToItsPrefixAndItself) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  ExpectChunksAttendCausally({8, 2, 128, 16}, {300, 45, 1, 70});
  // Groups of two (two heads times two token tiles per CTA, as qwen3) on 32-token pages.
  ExpectChunksAttendCausally({16, 8, 128, 32}, {200, 33, 1, 130});
  // No GQA: one query head per CTA, four 16-token tiles of it.
  ExpectChunksAttendCausally({4, 4, 128, 16}, {150, 20, 1, 90});
}

// The warpgroup kernel's sm_90a image runs on compute capability 9.0 only, and only at head_dim
// 128; everywhere else the warp-MMA kernel runs (a wrong answer here would fall back silently).
TEST(PrefillAttention, WarpgroupMmasRunExactlyOnComputeCapability90AtHeadDim128) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  int device = 0, major = 0, minor = 0;
  CheckCuda(cudaGetDevice(&device), "device");
  CheckCuda(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "major");
  CheckCuda(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), "minor");
  EXPECT_EQ(PrefillWgmmaSupported(128), major == 9 && minor == 0);
  EXPECT_FALSE(PrefillWgmmaSupported(64));
  EXPECT_FALSE(PrefillWgmmaSupported(256));
}

// The bits of one sequence's chunk: alone (its rows from the first CTA's first row), and after the
// chunks of three other sequences (its rows start mid-CTA, share CTAs and warps with theirs). A
// row's bits must depend on its own keys only, on either kernel.
TEST(PrefillAttention, AChunksBitsDoNotDependOnTheOtherSequencesOfTheCall) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  const PagedKvShape shape{16, 8, 128, 16};
  const std::vector<int> contexts = {300, 45, 1, 170};
  const PagedKvFixture f(shape, contexts, 5u);
  const int chunk = 37, row = shape.num_q_heads * shape.head_dim, last = f.batch() - 1;
  std::vector<int32_t> seq_all, pos_all, seq_one, pos_one;
  for (int s = 0; s < f.batch(); ++s) {
    for (int p = std::max(0, contexts[s] - chunk); p < contexts[s]; ++p) {
      seq_all.push_back(s);
      pos_all.push_back(p);
      if (s == last) {
        seq_one.push_back(s);
        pos_one.push_back(p);
      }
    }
  }
  const int all = static_cast<int>(pos_all.size()), one = static_cast<int>(pos_one.size());
  const Bf16Data qd = RandomBf16(size_t(all) * row, 1.f, 6);
  // The last sequence's queries are the last `one` rows of the full call's.
  const std::vector<uint16_t> q_one(qd.bits.end() - size_t(one) * row, qd.bits.end());
  auto run = [&](const std::vector<uint16_t>& q, const std::vector<int32_t>& seqs, const std::vector<int32_t>& pos,
                 PrefillMma mma) {
    uint16_t* dq = Upload(q);
    int32_t *dseq = Upload(seqs), *dpos = Upload(pos);
    PrefillAttentionParams p = ParamsOver(f, dq, dseq, dpos, static_cast<int>(pos.size()),
                                          *std::max_element(pos.begin(), pos.end()) + 1);
    CheckCuda(cudaMalloc(&p.out, size_t(p.tokens) * row * 2), "alloc out");
    EXPECT_TRUE(RunPrefillAttentionTensorCore(p, nullptr, 0, mma, nullptr).ok());
    CheckCuda(cudaDeviceSynchronize(), "prefill");
    std::vector<uint16_t> out = Download(p.out, size_t(p.tokens) * row);
    cudaFree(p.out);
    cudaFree(dq);
    cudaFree(dseq);
    cudaFree(dpos);
    return out;
  };
  for (const PrefillMma mma : {PrefillMma::kAuto, PrefillMma::kWarp}) {
    const std::vector<uint16_t> together = run(qd.bits, seq_all, pos_all, mma);
    const std::vector<uint16_t> alone = run(q_one, seq_one, pos_one, mma);
    const std::vector<uint16_t> tail(together.end() - size_t(one) * row, together.end());
    EXPECT_EQ(tail, alone) << (mma == PrefillMma::kWarp ? "warp MMAs" : "auto MMAs");
  }
}

// Chunks at long contexts, where a call this small splits its keys in 1,024-key ranges (three
// for the 3,000-token sequence, two past a range boundary for the 2,100-token one); GQA groups of
// four at head_dim 256 put four warps in a CTA.
TEST(PrefillAttention, LongContextChunksSplitTheirKeys) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  ExpectChunksAttendCausally({8, 2, 128, 16}, {3000, 45, 1, 2100});
  ExpectChunksAttendCausally({16, 4, 256, 16}, {1030, 2048, 20});
}

}  // namespace
}  // namespace vt::kernels::cuda
