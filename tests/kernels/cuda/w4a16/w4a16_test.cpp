// The W4A16 GEMM against the CPU reference that dequantises the GPTQ checkpoint from its
// disk layout: ||out - ref|| / ||ref|| < 5e-3 for every benchmark shape and M in
// {1, 2, 3, 7, 16, 33, 64, 200} in every form, and the dequantised weights with the bf16 GEMM;
// outputs poisoned first; repeated runs bitwise identical.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <thread>
#include <vector>

#include "kernels/bf16.h"
#include "kernels/cpu/w4a16_reference.h"
#include "kernels/cuda/dependent_launch.h"
#include "kernels/cuda/ops/dense_gemm.h"
#include "kernels/cuda/testing/late_writer.h"
#include "kernels/cuda/w4a16/w4a16_gemm.h"
#include "tests/kernels/cuda/paged_kv_fixture.h"
#include "tests/kernels/w4a16/gptq_test_data.h"

namespace vt::kernels::cuda {
namespace {

using vt::testing::CheckCuda;
using vt::testing::Upload;
using vt::testing::SkipWithoutGpu;

constexpr int kMaxM = 200;
constexpr double kRelTol = 5e-3;

int Sms() {
  int sms = 0;
  CheckCuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "sm count");
  return sms;
}

// One checkpoint on the device plus its reference output for kMaxM rows of activations.
struct Case {
  int k, n, group_size;
  std::vector<uint16_t> x_bits;
  std::vector<float> ref;  // [kMaxM, n]
  W4A16Weights weights;
};

Case MakeCase(int k, int n, int group_size, uint32_t seed) {
  Case c{k, n, group_size, {}, {}, {}};
  const auto gptq = vt::testing::RandomGptq(k, n, group_size, seed);
  Result<W4A16Weights> w = RepackGptq(gptq.View());
  EXPECT_TRUE(w.ok()) << w.status().message();
  c.weights = std::move(*w);
  vt::testing::Bf16Data x = vt::testing::RandomBf16(static_cast<size_t>(kMaxM) * k, 1.f, seed + 1);
  c.x_bits = std::move(x.bits);
  const std::vector<float> dense = cpu::DequantizeGptq(gptq.View());
  c.ref = cpu::MatmulReference(x.values, dense, kMaxM, k, n, static_cast<int>(std::thread::hardware_concurrency()));
  return c;
}

// With `after_late_writer` the GEMM is a dependent launch right after a kernel that writes its
// activations only 2 ms after letting it start (late_writer.h): what a decode step's GEMM runs after.
std::vector<uint16_t> RunGemm(const Case& c, int m, const W4A16Split& split, bool after_late_writer = false) {
  // Exactly m rows of activations, so a read past them is out of bounds for memcheck.
  const std::vector<uint16_t> x_rows(c.x_bits.begin(), c.x_bits.begin() + size_t(m) * c.k);
  uint16_t* x = Upload(x_rows);
  uint16_t* x_late = nullptr;
  if (after_late_writer) {
    x_late = Upload(x_rows);
    CheckCuda(cudaMemset(x, 0, x_rows.size() * 2), "zero x until the late writer copies it");
  }
  uint32_t* packed = Upload(c.weights.packed);
  uint16_t* scales = Upload(c.weights.scales);
  uint16_t* y = nullptr;
  float* ws = nullptr;
  CheckCuda(cudaMalloc(&y, size_t(m) * c.n * 2), "alloc y");
  CheckCuda(cudaMemset(y, 0xff, size_t(m) * c.n * 2), "poison y");
  const size_t ws_bytes = W4A16WorkspaceBytes(m, c.n, split);
  if (ws_bytes) {
    CheckCuda(cudaMalloc(&ws, ws_bytes), "alloc workspace");
    CheckCuda(cudaMemset(ws, 0xff, ws_bytes), "poison workspace");
  }
  const W4A16Problem p{x, packed, scales, y, m, c.k, c.n, c.weights.group_size};
  cudaStream_t stream = nullptr;
  if (after_late_writer) {
    CheckCuda(cudaDeviceSynchronize(), "uploads and poison before the stream starts");
    CheckCuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
    CheckCuda(vt::testing::LaunchLateWriter({{x, x_late, x_rows.size() * 2}}, 2000, stream), "late writer");
    SetDependentLaunch(true);
  }
  Status st = RunW4A16Gemm(p, split, ws, stream);
  SetDependentLaunch(false);
  EXPECT_TRUE(st.ok()) << st.message();
  CheckCuda(cudaDeviceSynchronize(), "gemm");
  if (stream != nullptr) cudaStreamDestroy(stream);
  std::vector<uint16_t> out(size_t(m) * c.n);
  CheckCuda(cudaMemcpy(out.data(), y, out.size() * 2, cudaMemcpyDeviceToHost), "download");
  for (void* ptr : {static_cast<void*>(x), static_cast<void*>(packed), static_cast<void*>(scales),
                    static_cast<void*>(y), static_cast<void*>(ws), static_cast<void*>(x_late)}) {
    cudaFree(ptr);
  }
  return out;
}

// Every form at every M it takes: the stacked one at M <= 8 (vt runs it at M <= 2), the spread and
// tiled ones at any M (vt runs the tiled one from M = 9).
std::vector<W4A16Split> SplitsFor(const Case& c, int m) {
  std::vector<W4A16Split> splits = {ChooseW4A16Split(m, c.k, c.n, Sms(), W4A16Form::kSpread),
                                    ChooseW4A16Split(m, c.k, c.n, Sms(), W4A16Form::kTile)};
  if (m <= 8) splits.push_back(ChooseW4A16Split(m, c.k, c.n, Sms(), W4A16Form::kStack));
  return splits;
}

void ExpectClose(const Case& c, int m, const std::vector<uint16_t>& out) {
  double err = 0, norm = 0;
  int64_t unwritten = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    const float o = Bf16ToFloat(bf16{out[i]});
    if (!std::isfinite(o)) {
      ++unwritten;
      continue;
    }
    err += (double(o) - c.ref[i]) * (double(o) - c.ref[i]);
    norm += double(c.ref[i]) * c.ref[i];
  }
  const double rel = std::sqrt(err / norm);
  std::printf("w4a16 %5d x %-5d group %5d M %3d  rel %.3e\n", c.k, c.n, c.weights.group_size, m, rel);
  EXPECT_EQ(unwritten, 0) << c.k << "x" << c.n << " M " << m;
  EXPECT_LT(rel, kRelTol) << c.k << "x" << c.n << " M " << m;
}

// A 2048 x 320 checkpoint per group and per channel in `form` at every M and K slice given: close to
// the reference, and the same bits when run again.
void ExpectCloseAndRepeatableSplitAlongK(W4A16Form form, uint32_t seed, std::initializer_list<int> ms,
                                         std::initializer_list<int> k_slices) {
  for (int group : {128, -1}) {
    const Case c = MakeCase(2048, 320, group, seed);
    for (int m : ms) {
      for (int k_slice : k_slices) {
        const W4A16Split split{k_slice, (c.k + k_slice - 1) / k_slice, form};
        const std::vector<uint16_t> out = RunGemm(c, m, split);
        ExpectClose(c, m, out);
        EXPECT_EQ(out, RunGemm(c, m, split)) << "M " << m << " slice " << k_slice;
      }
    }
  }
}

struct Shape {
  int k, n;
};

class W4A16Shapes : public ::testing::TestWithParam<Shape> {};

TEST_P(W4A16Shapes, MatchesTheDequantisedReferenceForEveryM) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  const Case c = MakeCase(GetParam().k, GetParam().n, 128, 21u + GetParam().k + GetParam().n);
  for (int m : {1, 2, 3, 7, 16, 33, 64, 200}) {
    for (const W4A16Split& split : SplitsFor(c, m)) {
      const std::vector<uint16_t> out = RunGemm(c, m, split);
      ExpectClose(c, m, out);
      EXPECT_EQ(out, RunGemm(c, m, split)) << "a repeated run must give the same bits, M " << m;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Benchmark, W4A16Shapes,
                         ::testing::Values(Shape{4096, 4096}, Shape{4096, 14336}, Shape{14336, 4096},
                                           Shape{8192, 8192}, Shape{8192, 28672}),
                         [](const ::testing::TestParamInfo<Shape>& info) {
                           char name[32];
                           std::snprintf(name, sizeof name, "k%d_n%d", info.param.k, info.param.n);
                           return std::string(name);
                         });

TEST(W4A16, PerChannelScalesAndSmallShapes) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  for (auto [k, n, group] : {std::tuple{1024, 192, -1}, std::tuple{128, 64, 128}, std::tuple{384, 320, 128}}) {
    const Case c = MakeCase(k, n, group, 5u);
    for (int m : {1, 8, 9, 17, 70}) {
      for (const W4A16Split& split : SplitsFor(c, m)) ExpectClose(c, m, RunGemm(c, m, split));
    }
  }
}

// The stacked form with its K split across CTAs (partial sums added in slice order), per group and
// per channel, and slices whose steps do not fill all eight warps.
TEST(W4A16, StackedFormSplitAlongK) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  ExpectCloseAndRepeatableSplitAlongK(W4A16Form::kStack, 9u, {1, 5, 8}, {128, 384, 1024});
}

// A row's output in the stacked form does not depend on the call's row count: an MMA column (an
// activation row) adds only into its own output row, and the lanes of rows past M feed columns whose
// rows are never stored. Every row of an M-row call, M = 1..7, against the same row of an 8-row call
// (every lane its own row), unsplit and split along K, per group and per channel.
TEST(W4A16, StackedFormGivesARowTheSameBitsAtEveryM) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  constexpr int kK = 2048, kN = 320;
  // No reference: the rows are compared with each other.
  const vt::testing::Bf16Data x = vt::testing::RandomBf16(size_t(8) * kK, 1.f, 21u);
  for (int group : {128, kK}) {
    const Case c{kK, kN, group, x.bits, {}, RandomW4A16Weights(kK, kN, group, 22u + group)};
    for (int k_slice : {2048, 384}) {
      const W4A16Split split{k_slice, (c.k + k_slice - 1) / k_slice, W4A16Form::kStack};
      const std::vector<uint16_t> eight = RunGemm(c, 8, split);
      for (int m = 1; m < 8; ++m) {
        const std::vector<uint16_t> rows(eight.begin(), eight.begin() + size_t(m) * c.n);
        ASSERT_EQ(RunGemm(c, m, split), rows) << "group " << group << " slice " << k_slice << " M " << m;
      }
    }
  }
}

// The tiled form with its K split across CTAs, per group and per channel: slices shorter than its
// activation pipeline (two steps), slices whose steps are not a multiple of its weight depth, row
// counts that leave part of a row tile or a second row block, each of the 16/32/48/64-row builds, and
// an N (320) whose last CTA has warps past the columns.
TEST(W4A16, TiledFormSplitAlongK) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  ExpectCloseAndRepeatableSplitAlongK(W4A16Form::kTile, 15u, {9, 16, 17, 33, 48, 64, 65}, {128, 384, 1024, 2048});
}

// The dequantised weights hold exactly (q - 8) * scale rounded to bf16 once, the tiled form's
// values, in nn.Linear's [n, k] layout, per group and per channel; the scratch is poisoned first.
TEST(W4A16, DequantisedWeightsAreTheTiledFormsValues) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  for (auto [k, n, group] : {std::tuple{1024, 192, 128}, std::tuple{384, 320, -1}, std::tuple{4096, 128, 128}}) {
    const Case c = MakeCase(k, n, group, 31u);
    const W4A16Weights& w = c.weights;
    uint32_t* packed = Upload(w.packed);
    uint16_t* scales = Upload(w.scales);
    uint16_t* dense = nullptr;
    CheckCuda(cudaMalloc(&dense, size_t(k) * n * 2), "alloc dense");
    CheckCuda(cudaMemset(dense, 0xff, size_t(k) * n * 2), "poison dense");
    const Status st = DequantizeW4A16(packed, scales, k, n, w.group_size, dense, nullptr);
    ASSERT_TRUE(st.ok()) << st.message();
    std::vector<uint16_t> out(size_t(k) * n);
    CheckCuda(cudaMemcpy(out.data(), dense, out.size() * 2, cudaMemcpyDeviceToHost), "download");
    int64_t wrong = 0;
    for (int col = 0; col < n; ++col) {
      for (int row = 0; row < k; ++row) {
        const float scale = Bf16ToFloat(bf16{w.scales[size_t(row / w.group_size) * n + col]});
        const bf16 want = FloatToBf16(float(PackedNibble(w, row, col) - 8) * scale);
        wrong += out[size_t(col) * k + row] != want.bits;
      }
    }
    EXPECT_EQ(wrong, 0) << k << "x" << n << " group " << group;
    for (void* ptr : {static_cast<void*>(packed), static_cast<void*>(scales), static_cast<void*>(dense)}) cudaFree(ptr);
  }
}

// What vt runs for prefill-sized steps: the weights dequantised, then the bf16 GEMM (cuBLAS at these
// M) on them, against the reference; a K that is not a whole number of groups and a misaligned
// output are refused.
TEST(W4A16, DequantisedGemmMatchesTheReference) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  Result<DenseGemm*> gemm = DenseGemm::Create();
  ASSERT_TRUE(gemm.ok()) << gemm.status().message();
  const std::unique_ptr<DenseGemm> owned(*gemm);
  const Case c = MakeCase(2048, 576, 128, 17u);
  uint16_t* x = Upload(c.x_bits);
  uint32_t* packed = Upload(c.weights.packed);
  uint16_t* scales = Upload(c.weights.scales);
  uint16_t *dense = nullptr, *y = nullptr;
  CheckCuda(cudaMalloc(&dense, size_t(c.k) * c.n * 2), "alloc dense");
  CheckCuda(cudaMalloc(&y, size_t(kMaxM) * c.n * 2), "alloc y");
  CheckCuda(cudaMemset(y, 0xff, size_t(kMaxM) * c.n * 2), "poison y");
  ASSERT_TRUE(DequantizeW4A16(packed, scales, c.k, c.n, c.weights.group_size, dense, nullptr).ok());
  const Status st = owned->Linear(x, dense, kMaxM, c.n, c.k, y, nullptr);
  ASSERT_TRUE(st.ok()) << st.message();
  std::vector<uint16_t> out(size_t(kMaxM) * c.n);
  CheckCuda(cudaMemcpy(out.data(), y, out.size() * 2, cudaMemcpyDeviceToHost), "download");
  ExpectClose(c, kMaxM, out);
  EXPECT_FALSE(DequantizeW4A16(packed, scales, c.k + 64, c.n, 128, dense, nullptr).ok());
  EXPECT_FALSE(DequantizeW4A16(packed, scales, c.k, c.n, 128, dense + 1, nullptr).ok());  // misaligned
  for (void* ptr : {static_cast<void*>(x), static_cast<void*>(packed), static_cast<void*>(scales),
                    static_cast<void*>(dense), static_cast<void*>(y)}) {
    cudaFree(ptr);
  }
}

// Launched dependently after a kernel that writes the activations late, every form waits for them:
// the same bits as a plain launch, split along K (the slice sums' reduction a dependent launch too)
// and unsplit. A form that read the activations before its wait would multiply zeros.
TEST(W4A16, DependentLaunchesWaitForTheActivations) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  const Case c = MakeCase(2048, 320, 128, 41u);
  const W4A16Split cases[] = {{2048, 1, W4A16Form::kStack}, {512, 4, W4A16Form::kStack}, {2048, 1, W4A16Form::kSpread},
                              {512, 4, W4A16Form::kSpread}, {2048, 1, W4A16Form::kTile}, {512, 4, W4A16Form::kTile}};
  for (int m : {1, 3, 9}) {
    for (const W4A16Split& split : cases) {
      if (split.form == W4A16Form::kStack && m > 8) continue;
      const std::vector<uint16_t> late = RunGemm(c, m, split, true);
      ExpectClose(c, m, late);
      EXPECT_EQ(late, RunGemm(c, m, split)) << "M " << m << " slices " << split.slices;
    }
  }
}

// The stacked form unsplit on more 16-column blocks than one wave of CTAs holds, so each CTA runs
// several in turn (activations staged once, loads running on from one block into the next, the next
// blocks' scales copied meanwhile, the second block's before the dependent-launch wait): every block
// gets the bits it gets in a call of 64 blocks, one a CTA, for every such window of the call; per
// group and per channel; with K whose steps fill every warp (1024), leave some warps a step short
// (1152), and make a block longer than the loads in flight (4224); for each M up to 8 whose rows fit
// the form; also as a dependent launch after a late writer.
TEST(W4A16, StackedFormGivesEveryColumnBlockItsBitsInAWideCall) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  constexpr int kWindow = 1024;
  // More than twice the blocks of a wave (at most eight CTAs an SM), in whole windows.
  const int n = (16 * (2 * 8 * Sms() + 5) + kWindow - 1) / kWindow * kWindow;
  for (auto [k, group] : {std::pair{1024, 128}, std::pair{1024, 1024}, std::pair{1152, 128}, std::pair{4224, 128}}) {
    // The wide call's weights are the windows' side by side (ConcatColumns, as the engine fuses
    // projections), so window w of the wide call and the call on window w alone multiply the same weights.
    std::vector<W4A16Weights> windows;
    for (int first = 0; first < n; first += kWindow) {
      windows.push_back(RandomW4A16Weights(k, kWindow, group, 77u + k + first));
    }
    std::vector<const W4A16Weights*> views;
    for (const W4A16Weights& w : windows) views.push_back(&w);
    Result<W4A16Weights> wide = ConcatColumns(views);
    ASSERT_TRUE(wide.ok()) << wide.status().message();
    vt::testing::Bf16Data x = vt::testing::RandomBf16(size_t(8) * k, 1.f, 78u);
    const Case wide_case{k, n, wide->group_size, x.bits, {}, *wide};
    const W4A16Split unsplit{k, 1, W4A16Form::kStack};
    for (int m : {1, 2, 5, 8}) {
      if (!CheckW4A16Split(W4A16Problem{nullptr, nullptr, nullptr, nullptr, m, k, n, wide->group_size}, unsplit).ok()) {
        continue;  // m rows of k activations do not fit the form's shared memory
      }
      const std::vector<uint16_t> all = RunGemm(wide_case, m, unsplit, /*after_late_writer=*/m == 1);
      for (int first = 0; first < n; first += kWindow) {
        const Case part{k, kWindow, wide->group_size, x.bits, {}, windows[size_t(first / kWindow)]};
        const std::vector<uint16_t> alone = RunGemm(part, m, unsplit);
        for (int r = 0; r < m; ++r) {
          const std::vector<uint16_t> in_wide(all.begin() + size_t(r) * n + first,
                                              all.begin() + size_t(r) * n + first + kWindow);
          const std::vector<uint16_t> in_window(alone.begin() + size_t(r) * kWindow,
                                                alone.begin() + size_t(r + 1) * kWindow);
          ASSERT_EQ(in_wide, in_window) << "K " << k << " group " << group << " M " << m << " row " << r
                                        << " columns from " << first;
        }
      }
    }
  }
}

TEST(W4A16, StackedFormRefusesWhatItCannotRun) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  W4A16Problem p;
  p.m = 9;
  p.k = 4096;
  p.n = 4096;
  EXPECT_FALSE(RunW4A16Gemm(p, W4A16Split{4096, 1, W4A16Form::kStack}, nullptr, nullptr).ok());
  p.m = 8;  // 8 rows of 4,096 activations are 64 KB: more than the form stages
  EXPECT_FALSE(RunW4A16Gemm(p, W4A16Split{4096, 1, W4A16Form::kStack}, nullptr, nullptr).ok());
}

// vt's own splits are ones RunW4A16Gemm takes, for every M, every form and the int4 shapes of the
// presets, per group and per channel (a K of 28,672 once got a stacked slice whose scales overran
// the shared memory a launch may use). Host only: runs without a GPU.
TEST(W4A16, ChosenSplitsAreAccepted) {
  const Shape shapes[] = {{4096, 4096}, {4096, 6144}, {4096, 28672}, {14336, 4096}, {8192, 8192},
                          {8192, 10240}, {8192, 57344}, {28672, 8192}, {2048, 192}, {1024, 64}};
  for (int sms : {78, 108, 132}) {
    for (const Shape& shape : shapes) {
      for (int group : {128, shape.k}) {
        for (int m : {1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 33, 64, 256}) {
          W4A16Problem p;
          p.m = m;
          p.k = shape.k;
          p.n = shape.n;
          p.group_size = group;
          std::vector<W4A16Split> splits = {ChooseW4A16Split(m, shape.k, shape.n, sms),
                                            ChooseW4A16Split(m, shape.k, shape.n, sms, W4A16Form::kSpread),
                                            ChooseW4A16Split(m, shape.k, shape.n, sms, W4A16Form::kTile)};
          if (m <= 8) splits.push_back(ChooseW4A16Split(m, shape.k, shape.n, sms, W4A16Form::kStack));
          for (const W4A16Split& split : splits) {
            const Status st = CheckW4A16Split(p, split);
            EXPECT_TRUE(st.ok()) << shape.k << "x" << shape.n << " group " << group << " M " << m << " SMs " << sms
                                 << " slice " << split.k_slice << ": " << st.message();
          }
        }
      }
    }
  }
}

// The stacked form copies the scales 16 bytes at a time: scales off a 16-byte boundary are refused
// before any launch, in every form. Host only (the pointers are never read): runs without a GPU.
TEST(W4A16, ScalesOffASixteenByteBoundaryAreAnError) {
  alignas(16) static const uint16_t scales[16] = {};
  W4A16Problem p;
  p.m = 1;
  p.k = 128;
  p.n = 64;
  p.scales = scales + 1;
  for (const W4A16Form form : {W4A16Form::kStack, W4A16Form::kSpread, W4A16Form::kTile}) {
    const Status st = RunW4A16Gemm(p, W4A16Split{128, 1, form}, nullptr, nullptr);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("16-byte"), std::string::npos) << st.message();
  }
}

TEST(W4A16, UnsupportedShapesAreErrorsNotWrongResults) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  W4A16Problem p;
  p.m = 1;
  p.k = 4096 + 64;
  p.n = 4096;
  EXPECT_FALSE(RunW4A16Gemm(p, W4A16Split{128, 33}, nullptr, nullptr).ok());
  p.k = 4096;
  p.n = 4096 + 32;
  EXPECT_FALSE(RunW4A16Gemm(p, W4A16Split{128, 32}, nullptr, nullptr).ok());
}

}  // namespace
}  // namespace vt::kernels::cuda
