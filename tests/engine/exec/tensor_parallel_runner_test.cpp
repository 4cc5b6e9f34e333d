// TensorParallelRunner over the CPU backend's ranks (threads of this process joined by host
// collectives): its logits rows are the whole model's up to the row-parallel sums' order, and a
// step's error is the error of the ranks, named by rank, with the runner usable after it.
#include "engine/exec/tensor_parallel_runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "engine/backends/cpu/cpu_model_runner.h"
#include "engine/backends/cpu/cpu_tensor_parallel.h"
#include "engine/loader/model_source.h"
#include "kernels/cpu/thread_pool.h"

namespace vt {
namespace {

constexpr const char* kModel = VT_SOURCE_DIR "/assets/models/fortune-qwen3-7m";
constexpr int32_t kBlockSize = 16, kBlocks = 8;

LoadedModel Load() {
  Result<LoadedModel> loaded = LoadModel(kModel, LoadFormat::kAuto, kernels::cpu::DefaultThreadPool());
  EXPECT_TRUE(loaded.ok()) << loaded.status().message();
  return loaded.ok() ? std::move(*loaded) : LoadedModel{};
}

// A prompt in blocks 0-1 of the pool, its last row's logits wanted.
struct Prompt {
  std::vector<int32_t> tokens = {17, 400, 1023, 7, 3999, 256, 88, 2047, 2048, 5, 640, 1500, 2, 4095, 31, 9, 12};
  std::vector<int32_t> table = {0, 1};
  ForwardSeq Seq() const {
    ForwardSeq s;
    s.tokens = tokens.data();
    s.num_tokens = static_cast<int64_t>(tokens.size());
    s.block_table = table.data();
    s.num_blocks = static_cast<int64_t>(table.size());
    s.want_logits = true;
    return s;
  }
};

TEST(TensorParallelRunner, TwoCpuRanksGiveTheWholeModelsLogits) {
  Result<std::unique_ptr<ModelRunner>> whole = CreateCpuModelRunner(Load(), 2, kBlocks, kBlockSize);
  Result<std::unique_ptr<ModelRunner>> ranks = CreateCpuTensorParallelRunner(Load(), 2, 2, kBlocks, kBlockSize);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  ASSERT_TRUE(ranks.ok()) << ranks.status().message();
  EXPECT_EQ((*ranks)->config().num_heads, (*whole)->config().num_heads);  // the whole model's config
  EXPECT_EQ((*ranks)->num_kv_blocks(), kBlocks);
  const Prompt p;
  std::vector<float> want, got;
  ASSERT_TRUE((*whole)->Forward({p.Seq()}, &want).ok());
  ASSERT_TRUE((*ranks)->Forward({p.Seq()}, &got).ok());
  ASSERT_EQ(got.size(), want.size());
  double scale = 0, worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    scale = std::max(scale, std::fabs(double(want[i])));
    worst = std::max(worst, std::fabs(double(got[i]) - want[i]));
  }
  EXPECT_LT(worst, 1e-4 * scale) << "worst " << worst << " of " << scale;
}

TEST(TensorParallelRunner, AStepsErrorNamesTheRankAndTheRunnerGoesOn) {
  Result<std::unique_ptr<ModelRunner>> ranks = CreateCpuTensorParallelRunner(Load(), 2, 2, kBlocks, kBlockSize);
  ASSERT_TRUE(ranks.ok()) << ranks.status().message();
  Prompt bad;
  bad.tokens[3] = 99999;  // outside the vocabulary: every rank refuses it before its first collective
  std::vector<float> logits;
  const Status failed = (*ranks)->Forward({bad.Seq()}, &logits);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.message().find("rank 0: "), std::string::npos) << failed.message();
  EXPECT_NE(failed.message().find("outside the vocabulary"), std::string::npos) << failed.message();
  // No rank was left waiting in a collective: the next step runs.
  const Prompt good;
  EXPECT_TRUE((*ranks)->Forward({good.Seq()}, &logits).ok());
  EXPECT_EQ(logits.size(), size_t((*ranks)->config().vocab_size));
}

}  // namespace
}  // namespace vt
