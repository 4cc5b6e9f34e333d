// The sharded math of tensor parallelism on the CPU, without GPUs: the embedded model split over
// two ranks (two threads, each its own DecoderModel, KV cache and weights slices, joined by host
// collectives) computes the logits the whole model computes, prefill and decode alike.
#include "engine/parallel/tensor_parallel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <thread>
#include <vector>

#include "engine/backends/cpu/decoder_model.h"
#include "engine/loader/model_source.h"
#include "engine/parallel/host_collective.h"
#include "kernels/cpu/thread_pool.h"

namespace vt {
namespace {

constexpr const char* kModel = VT_SOURCE_DIR "/assets/models/fortune-qwen3-7m";
constexpr int32_t kBlockSize = 16;

LoadedModel Load() {
  Result<LoadedModel> loaded = LoadModel(kModel, LoadFormat::kAuto, kernels::cpu::DefaultThreadPool());
  EXPECT_TRUE(loaded.ok()) << loaded.status().message();
  return loaded.ok() ? std::move(*loaded) : LoadedModel{};
}

TEST(TensorParallel, SizesThatDoNotDivideTheModelAreNamed) {
  const LoadedModel m = Load();  // 4 heads, 2 KV heads, intermediate 768, vocabulary 4096
  EXPECT_TRUE(CheckTensorParallel(m.config, 1).ok());
  EXPECT_TRUE(CheckTensorParallel(m.config, 2).ok());
  const Status three = CheckTensorParallel(m.config, 3);
  EXPECT_NE(three.message().find("does not divide num_attention_heads (4)"), std::string::npos) << three.message();
  const Status four = CheckTensorParallel(m.config, 4);
  EXPECT_NE(four.message().find("num_key_value_heads (2)"), std::string::npos) << four.message();
  EXPECT_FALSE(CheckTensorParallel(m.config, 0).ok());
  EXPECT_FALSE(ShardModel(m.config, m.weights, 2, 2).ok());  // rank out of range
}

TEST(TensorParallel, ShardsSliceHeadsFeaturesAndVocabulary) {
  const LoadedModel m = Load();
  Result<ShardedModel> r1 = ShardModel(m.config, m.weights, 1, 2);
  ASSERT_TRUE(r1.ok()) << r1.status().message();
  EXPECT_EQ(r1->config.num_heads, 2);
  EXPECT_EQ(r1->config.num_kv_heads, 1);
  EXPECT_EQ(r1->config.intermediate_size, 384);
  EXPECT_EQ(r1->config.vocab_size, 4096);  // token ids stay whole; the shard says which rows it holds
  EXPECT_EQ(r1->shard.vocab_begin, 2048);
  const LayerWeights &full = m.weights.layers[0], &half = r1->weights.layers[0];
  // Column-parallel: rank 1's q rows are the second half of the full q rows (a view).
  EXPECT_EQ(half.q_proj.rows, 2 * 128);
  EXPECT_EQ(half.q_proj.data, full.q_proj.Row(2 * 128));
  // Row-parallel: o_proj keeps every output row and rank 1's half of the input columns (a copy).
  EXPECT_EQ(half.o_proj.rows, full.o_proj.rows);
  EXPECT_EQ(half.o_proj.cols, 2 * 128);
  for (int64_t row : {int64_t{0}, full.o_proj.rows - 1}) {
    for (int64_t col : {int64_t{0}, int64_t{255}}) {
      EXPECT_EQ(kernels::cpu::LoadAsFloat(half.o_proj.dtype, half.o_proj.Row(row), col),
                kernels::cpu::LoadAsFloat(full.o_proj.dtype, full.o_proj.Row(row), 256 + col));
    }
  }
  EXPECT_EQ(half.down_proj.cols, 384);
  EXPECT_EQ(r1->weights.lm_head.rows, 2048);
}

// One model (whole or one rank) with its own KV cache, stepping one sequence.
// Each rank has its own thread pool: a pool serves one calling thread at a time.
struct Runner {
  Runner(ModelConfig config, ModelWeights weights, kernels::cpu::ThreadPool* pool, std::optional<TensorParallelRank> tp)
      : cache(config, kBlocks, kBlockSize), model(config, std::move(weights), pool, tp) {}
  // The logits of the last of `tokens`, placed at positions [start, start + tokens.size()).
  std::vector<float> Step(const std::vector<int32_t>& tokens, int64_t start) {
    ForwardSeq seq;
    seq.tokens = tokens.data();
    seq.num_tokens = static_cast<int64_t>(tokens.size());
    seq.start_pos = start;
    seq.block_table = table;
    seq.num_blocks = kBlocks;
    seq.want_logits = true;
    std::vector<float> logits;
    status = model.Forward({seq}, &cache, &logits);
    return logits;
  }
  static constexpr int32_t kBlocks = 4;
  const int32_t table[kBlocks] = {2, 0, 3, 1};  // out of order, as a pool hands them out
  KvCacheStorage cache;
  DecoderModel model;
  Status status;
};

int32_t Argmax(const std::vector<float>& v) {
  return static_cast<int32_t>(std::max_element(v.begin(), v.end()) - v.begin());
}

TEST(TensorParallel, TwoRanksComputeTheWholeModelsLogits) {
  LoadedModel m = Load();
  ASSERT_GT(m.config.num_layers, 0);
  const std::vector<int32_t> prompt = {17, 400, 1023, 7, 3999, 256, 88, 2047, 2048, 5, 640, 1500, 2, 4095, 31, 9};
  constexpr int kDecodes = 12;

  // The whole model: a prompt, then greedy decode steps whose tokens both runs are fed.
  Runner whole(m.config, m.weights, &kernels::cpu::DefaultThreadPool(), std::nullopt);
  std::vector<std::vector<float>> expected;
  std::vector<int32_t> fed;
  expected.push_back(whole.Step(prompt, 0));
  ASSERT_TRUE(whole.status.ok()) << whole.status.message();
  for (int i = 0; i < kDecodes; ++i) {
    fed.push_back(Argmax(expected.back()));
    expected.push_back(whole.Step({fed.back()}, static_cast<int64_t>(prompt.size()) + i));
  }

  // Two ranks in two threads, stepping together.
  auto group = std::make_shared<HostCollectiveGroup>(2);
  std::vector<std::vector<std::vector<float>>> got(2);
  std::vector<Status> failures(2);
  std::vector<std::thread> ranks;
  for (int rank = 0; rank < 2; ++rank) {
    ranks.emplace_back([&, rank] {
      Result<ShardedModel> shard = ShardModel(m.config, m.weights, rank, 2);
      if (!shard.ok()) {
        failures[rank] = shard.status();  // every rank fails alike: none waits in a collective
        return;
      }
      HostCollective collective(group, rank);
      kernels::cpu::ThreadPool pool(2);
      Runner runner(shard->config, shard->weights, &pool, TensorParallelRank{&collective, shard->shard});
      got[rank].push_back(runner.Step(prompt, 0));
      for (int i = 0; i < kDecodes && runner.status.ok(); ++i) {
        got[rank].push_back(runner.Step({fed[i]}, static_cast<int64_t>(prompt.size()) + i));
      }
      failures[rank] = runner.status;
    });
  }
  for (std::thread& t : ranks) t.join();
  for (int rank = 0; rank < 2; ++rank) ASSERT_TRUE(failures[rank].ok()) << failures[rank].message();

  ASSERT_EQ(got[0].size(), expected.size());
  for (size_t step = 0; step < expected.size(); ++step) {
    SCOPED_TRACE(step);
    // Both ranks hold the same gathered logits, bit for bit.
    EXPECT_EQ(got[0][step], got[1][step]);
    // Against the whole model: only the summation order of the row-parallel layers differs.
    ASSERT_EQ(got[0][step].size(), expected[step].size());
    double scale = 0, worst = 0;
    for (size_t i = 0; i < expected[step].size(); ++i) {
      scale = std::max(scale, std::fabs(double(expected[step][i])));
      worst = std::max(worst, std::fabs(double(got[0][step][i]) - expected[step][i]));
    }
    EXPECT_LT(worst, 1e-4 * scale) << "worst " << worst << " of " << scale;
    EXPECT_EQ(Argmax(got[0][step]), Argmax(expected[step]));
  }
}

}  // namespace
}  // namespace vt
