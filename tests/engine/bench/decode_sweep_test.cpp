// The sweep on a real engine: the embedded fortune-qwen3-7m on the CPU backend.
#include "engine/bench/decode_sweep.h"

#include <gtest/gtest.h>

#include "engine/backends/backend_factory.h"
#include "engine/config/presets.h"
#include "engine/loader/model_source.h"

namespace vt::bench {
namespace {

constexpr const char* kModel = VT_SOURCE_DIR "/assets/models/fortune-qwen3-7m";

TEST(DecodeSweep, NormalizingSortsAndDeduplicatesLevels) {
  Result<DecodeSweepOptions> o = NormalizeSweepOptions({{4, 1, 4, 2}, 8, 8, 0, 0, 0});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->concurrencies, (std::vector<int32_t>{1, 2, 4}));
}

TEST(DecodeSweep, RejectsEmptyOrNonPositiveSizes) {
  EXPECT_FALSE(NormalizeSweepOptions({{}, 8, 8, 0, 0, 0}).ok());
  EXPECT_FALSE(NormalizeSweepOptions({{1, 0}, 8, 8, 0, 0, 0}).ok());
  EXPECT_FALSE(NormalizeSweepOptions({{1}, 0, 8, 0, 0, 0}).ok());
  Result<DecodeSweepOptions> o = NormalizeSweepOptions({{1}, 8, 0, 0, 0, 0});
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("--output-len"), std::string::npos);
}

TEST(DecodeSweep, RejectsRequestsLongerThanTheContext) {
  ModelConfig model;
  model.max_position_embeddings = 64;
  EXPECT_TRUE(CheckSweepFitsModel({{1}, 32, 32, 0}, model).ok());
  const Status s = CheckSweepFitsModel({{1}, 32, 33, 0}, model);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("context of 64"), std::string::npos) << s.message();
}

TEST(DecodeSweep, EngineConfigHoldsTheLargestLevelWithoutPreemption) {
  const EngineConfig c = SweepEngineConfig({{1, 8}, 100, 28, 0, 0, 0});
  EXPECT_EQ(c.scheduler.max_num_seqs, 8);
  EXPECT_EQ(c.scheduler.max_model_len, 128);
  EXPECT_EQ(c.scheduler.max_num_batched_tokens, 800);  // all eight prompts in one step
  const KvDemand demand = SweepKvDemand({{1, 8}, 100, 28, 0, 0, 0}, c.block_size);
  EXPECT_GE(demand.wanted_blocks * c.block_size, 8 * 128);
}

TEST(DecodeSweep, StepBudgetsCanBeSetForLongPromptRuns) {
  const EngineConfig c = SweepEngineConfig({{8}, 8192, 64, 0, 2048, 128});
  EXPECT_EQ(c.scheduler.max_num_batched_tokens, 2048);
  EXPECT_EQ(c.scheduler.max_prefill_tokens_beside_decodes, 128);
  EXPECT_EQ(c.scheduler.max_model_len, 8192 + 64);
}

TEST(DecodeSweep, RooflineIsConcurrencyTimesBandwidthOverWeights) {
  EXPECT_DOUBLE_EQ(RooflineTokensPerSecond(4, 10e9, 1'000'000'000), 40.0);
  EXPECT_DOUBLE_EQ(RooflineTokensPerSecond(1, 10e9, 0), 0.0);
}

TEST(DecodeSweep, RooflineCountsEachSequencesKvReads) {
  // 4 sequences each reading 0.25 GB of K/V beside 1 GB of weights: 2 GB a step at 10 GB/s.
  EXPECT_DOUBLE_EQ(RooflineTokensPerSecond(4, 10e9, 1'000'000'000, 0.25e9), 20.0);
  ModelConfig model;
  model.num_layers = 28;
  model.num_kv_heads = 8;
  model.head_dim = 128;
  // qwen3-1.7b in bf16 at 8192 tokens: 28 layers x (K + V) x 1024 values x 2 bytes x 8192.
  EXPECT_DOUBLE_EQ(KvBytesPerSequence(model, 2, 8192), 28.0 * 2 * 1024 * 2 * 8192);
}

TEST(DecodeSweep, PrefillFlopsCountProjectionsCausalPairsAndTheLastTokensHead) {
  ModelConfig m;
  m.num_layers = 2;
  m.hidden_size = 4;
  m.num_heads = 2;
  m.num_kv_heads = 1;
  m.head_dim = 2;  // q 4 wide, k and v 2 wide
  m.intermediate_size = 8;
  m.vocab_size = 10;
  // Per layer and token: q 4x4, k and v 4x2 each, o 4x4, gate, up, down 4x8 each = 144 weights.
  // Two prompts of 3 tokens: 6 tokens, and 2 x (1 + 2 + 3) = 12 query-key pairs.
  const double expected = 2 * (2.0 * 144 * 6 + 4.0 * 4 * 12) + 2.0 * 4 * 10 * 2;
  EXPECT_DOUBLE_EQ(PrefillFlops(m, 2, 3), expected);
  // llama3-8b, 8 x 2048 tokens: 6.98e9 projection weights make 2.29e14 of the 2.375e14 FLOPs.
  Result<ModelConfig> llama = PresetConfig("llama3-8b");
  ASSERT_TRUE(llama.ok()) << llama.status().message();
  EXPECT_NEAR(PrefillFlops(*llama, 8, 2048) / 1e12, 237.5, 0.1);
}

TEST(DecodeSweep, RunsEveryLevelToItsFullLength) {
  kernels::cpu::ThreadPool& pool = kernels::cpu::DefaultThreadPool();
  Result<LoadedModel> loaded = LoadModel(kModel, LoadFormat::kAuto, pool);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  Result<DecodeSweepOptions> options = NormalizeSweepOptions({{3, 1}, 6, 5, 7, 0, 0});
  ASSERT_TRUE(options.ok());
  const EngineConfig config = SweepEngineConfig(*options);
  Result<std::unique_ptr<LlmEngine>> engine =
      CreateEngine(std::move(*loaded), BackendOptions{}, config, SweepKvDemand(*options, config.block_size));
  ASSERT_TRUE(engine.ok()) << engine.status().message();

  int64_t last_done = 0, progress_calls = 0;
  Result<DecodeSweepResult> r = RunDecodeSweep(**engine, *options, [&](int32_t, int64_t done, int64_t total) {
    EXPECT_LE(done, total);
    last_done = done;
    ++progress_calls;
  });
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->backend, "cpu");
  EXPECT_GT(r->weight_bytes, 0u);
  EXPECT_GT(r->copy_bandwidth_bytes_per_s, 0.0);
  ASSERT_EQ(r->levels.size(), 2u);
  EXPECT_EQ(last_done, 15);
  EXPECT_GE(progress_calls, 2 * 5);  // one decode step per output token and level at least
  for (const DecodeLevelResult& level : r->levels) {
    SCOPED_TRACE(level.concurrency);
    EXPECT_EQ(level.output_tokens, level.concurrency * 5);
    EXPECT_GT(level.output_tokens_per_s, 0.0);
    EXPECT_EQ(level.ttft_ms.count, level.concurrency);
    EXPECT_EQ(level.tpot_ms.count, level.concurrency);
    // Every token after a request's first has an inter-token latency, from one kind of step or the other.
    EXPECT_EQ(level.decode_itl_ms.count + level.prefill_itl_ms.count, level.concurrency * (5 - 1));
    EXPECT_GT(level.decode_itl_ms.count, 0);
    EXPECT_LE(level.ttft_ms.median, level.ttft_ms.p99);
    EXPECT_LE(level.tpot_ms.median, level.tpot_ms.p99);
    EXPECT_LE(level.ttft_ms.p99, level.seconds * 1000.0);
    // The embedded model's float32 K/V at the mean decode context, 6 + 5 / 2 tokens.
    const ModelConfig& m = (*engine)->model_config();
    EXPECT_DOUBLE_EQ(level.kv_bytes_per_sequence, 2.0 * m.num_layers * m.kv_size() * 4 * 8.5);
    EXPECT_DOUBLE_EQ(level.roofline_tokens_per_s,
                     RooflineTokensPerSecond(level.concurrency, r->copy_bandwidth_bytes_per_s, r->weight_bytes,
                                             level.kv_bytes_per_sequence));
    EXPECT_GT(level.roofline_fraction, 0.0);
    // Every prompt was prefilled by the level's last first token; the CPU has no matmul probe.
    // The rate comes from the latest first token: no later than the level's end, no earlier than the median.
    EXPECT_GE(level.prefill_tokens_per_s, level.concurrency * 6 / level.seconds);
    EXPECT_LE(level.prefill_tokens_per_s, level.concurrency * 6 / (level.ttft_ms.median / 1e3) * (1 + 1e-9));
    EXPECT_EQ(level.prefill_mfu, 0.0);
  }
  EXPECT_EQ(r->matmul_flops_per_s, 0.0);
  // Every request was taken back: the engine is idle and its pool free for the next run.
  EXPECT_FALSE((*engine)->HasUnfinished());
}

}  // namespace
}  // namespace vt::bench
