// The fused decode MLP (kernels/cuda/ops/decode_mlp.h) against the kernel-per-op path it replaces
// (skinny GEMM, SiLU·mul, skinny GEMM): the same bits for act and y at every M it takes, on the MLP
// shapes of the models vt serves, launched plainly, as dependent launches, twice on one barrier and
// from a CUDA graph.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kernels/cuda/dependent_launch.h"
#include "kernels/cuda/ops/decode_mlp.h"
#include "kernels/cuda/ops/forward_ops.h"
#include "kernels/cuda/ops/skinny_gemm.h"
#include "tests/kernels/cuda/gpu_test_support.h"

namespace vt::kernels::cuda {
namespace {

using vt::testing::Bf16Data;
using vt::testing::CheckCuda;
using vt::testing::Download;
using vt::testing::RandomBf16;
using vt::testing::SkipWithoutGpu;
using vt::testing::Upload;

struct MlpShape {
  int hidden, inter;
};

// One MLP's device buffers, rows for kSkinnyMaxRows.
class MlpBuffers {
 public:
  MlpBuffers(MlpShape s, uint32_t seed) : shape_(s) {
    const Bf16Data x = RandomBf16(size_t(kSkinnyMaxRows) * s.hidden, 1.f, seed),
                   gate_up = RandomBf16(size_t(2) * s.inter * s.hidden, 0.05f, seed + 1),
                   down = RandomBf16(size_t(s.hidden) * s.inter, 0.05f, seed + 2);
    x_ = Upload(x.bits);
    gate_up_ = Upload(gate_up.bits);
    down_ = Upload(down.bits);
    CheckCuda(cudaMalloc(&gate_up_out_, size_t(kSkinnyMaxRows) * 2 * s.inter * 2), "alloc");
    CheckCuda(cudaMalloc(&act_, size_t(kSkinnyMaxRows) * s.inter * 2), "alloc");
    CheckCuda(cudaMalloc(&y_, size_t(kSkinnyMaxRows) * s.hidden * 2), "alloc");
    CheckCuda(cudaMalloc(&barrier_, kDecodeMlpBarrierBytes), "alloc");
    CheckCuda(cudaMemset(barrier_, 0, kDecodeMlpBarrierBytes), "zero");
  }
  ~MlpBuffers() {
    for (uint16_t* p : {x_, gate_up_, down_, gate_up_out_, act_, y_}) cudaFree(p);
    cudaFree(barrier_);
  }

  DecodeMlpParams Params(int m) const {
    DecodeMlpParams p;
    p.x = x_;
    p.gate_up = gate_up_;
    p.down = down_;
    p.m = m;
    p.hidden = shape_.hidden;
    p.inter = shape_.inter;
    p.act = act_;
    p.y = y_;
    p.barrier = barrier_;
    return p;
  }

  // act and y poisoned, so an output the kernel did not write cannot pass.
  void Poison(cudaStream_t stream) {
    CheckCuda(cudaMemsetAsync(act_, 0xff, size_t(kSkinnyMaxRows) * shape_.inter * 2, stream), "poison");
    CheckCuda(cudaMemsetAsync(y_, 0xff, size_t(kSkinnyMaxRows) * shape_.hidden * 2, stream), "poison");
  }

  void KernelPerOp(int m, cudaStream_t stream) {
    const int h = shape_.hidden, inter = shape_.inter;
    ASSERT_TRUE(SkinnyLinear(x_, gate_up_, m, 2 * inter, h, gate_up_out_, stream).ok());
    ASSERT_TRUE(SiluMul(gate_up_out_, m, inter, act_, stream).ok());
    ASSERT_TRUE(SkinnyLinear(act_, down_, m, h, inter, y_, stream).ok());
  }

  // act's and y's rows past m too: they must stay poisoned.
  std::vector<uint16_t> Outputs() const {
    std::vector<uint16_t> out = Download(act_, size_t(kSkinnyMaxRows) * shape_.inter);
    const std::vector<uint16_t> y = Download(y_, size_t(kSkinnyMaxRows) * shape_.hidden);
    out.insert(out.end(), y.begin(), y.end());
    return out;
  }

 private:
  MlpShape shape_;
  uint16_t *x_ = nullptr, *gate_up_ = nullptr, *down_ = nullptr, *gate_up_out_ = nullptr, *act_ = nullptr,
           *y_ = nullptr;
  unsigned* barrier_ = nullptr;
};

// qwen3-1.7b, llama3-8b (its down projection runs the 6-warp form on an H100/H200), qwen3-0.6b, and
// a shape with fewer tiles than CTAs and an output narrower than one tile a CTA.
constexpr MlpShape kShapes[] = {{2048, 6144}, {4096, 14336}, {1024, 3072}, {96, 160}};

TEST(DecodeMlp, GivesTheKernelPerOpBitsAtEveryM) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  cudaStream_t stream = nullptr;
  CheckCuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  for (const MlpShape shape : kShapes) {
    MlpBuffers buffers(shape, 11);
    for (int m = 1; m <= kSkinnyMaxRows; ++m) {
      SCOPED_TRACE("hidden " + std::to_string(shape.hidden) + ", inter " + std::to_string(shape.inter) + ", m " +
                   std::to_string(m));
      buffers.Poison(stream);
      buffers.KernelPerOp(m, stream);
      const std::vector<uint16_t> expected = buffers.Outputs();
      ASSERT_TRUE(std::any_of(expected.begin(), expected.end(), [](uint16_t b) { return b != 0xffff && b != 0; }));
      for (bool dependent : {false, true}) {
        SetDependentLaunch(dependent);
        for (int call = 0; call < 2; ++call) {  // the second call finds the barrier as the first left it
          buffers.Poison(stream);
          const Status ran = RunDecodeMlp(buffers.Params(m), stream);
          SetDependentLaunch(false);
          ASSERT_TRUE(ran.ok()) << ran.message();
          EXPECT_EQ(buffers.Outputs(), expected) << (dependent ? "dependent" : "plain") << " launch, call " << call;
          SetDependentLaunch(dependent);
        }
        SetDependentLaunch(false);
      }
    }
  }
  cudaStreamDestroy(stream);
}

// Decode steps replay captured graphs: a captured cooperative launch, replayed three times behind the
// poisoning in the same graph, gives the kernel-per-op bits each time.
TEST(DecodeMlp, ReplaysFromACudaGraph) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  const MlpShape shape{2048, 6144};
  const int m = 3;
  MlpBuffers buffers(shape, 21);
  cudaStream_t stream = nullptr;
  CheckCuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  buffers.Poison(stream);
  buffers.KernelPerOp(m, stream);
  const std::vector<uint16_t> expected = buffers.Outputs();
  SetDependentLaunch(true);
  cudaGraph_t graph = nullptr;
  CheckCuda(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "capture");
  buffers.Poison(stream);
  const Status captured = RunDecodeMlp(buffers.Params(m), stream);
  CheckCuda(cudaStreamEndCapture(stream, &graph), "end capture");
  SetDependentLaunch(false);
  ASSERT_TRUE(captured.ok()) << captured.message();
  cudaGraphExec_t exec = nullptr;
  CheckCuda(cudaGraphInstantiate(&exec, graph, 0), "instantiate");
  for (int replay = 0; replay < 3; ++replay) {
    CheckCuda(cudaGraphLaunch(exec, stream), "replay");
    EXPECT_EQ(buffers.Outputs(), expected) << "replay " << replay;
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

TEST(DecodeMlp, RejectsWhatItDoesNotTake) {
  alignas(16) static uint16_t buffer[64];
  unsigned barrier[2] = {0, 0};
  DecodeMlpParams p;
  p.x = p.gate_up = p.down = p.act = p.y = buffer;
  p.barrier = barrier;
  p.m = 1;
  p.hidden = 64;
  p.inter = 96;
  EXPECT_TRUE(DecodeMlpSupports(p));
  DecodeMlpParams bad = p;
  bad.m = 0;
  EXPECT_FALSE(DecodeMlpSupports(bad));
  bad.m = kSkinnyMaxRows + 1;
  EXPECT_FALSE(DecodeMlpSupports(bad));
  bad = p;
  bad.hidden = 80;  // not a multiple of 32
  EXPECT_FALSE(DecodeMlpSupports(bad));
  bad = p;
  bad.inter = 100;
  EXPECT_FALSE(DecodeMlpSupports(bad));
  bad = p;
  bad.barrier = nullptr;
  EXPECT_FALSE(DecodeMlpSupports(bad));
  bad = p;
  bad.act = buffer + 1;  // misaligned
  EXPECT_FALSE(DecodeMlpSupports(bad));
  const Status refused = RunDecodeMlp(bad, nullptr);
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("16-byte aligned"), std::string::npos) << refused.message();
}

}  // namespace
}  // namespace vt::kernels::cuda
