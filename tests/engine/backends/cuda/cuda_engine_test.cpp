// The CUDA backend end to end, against independent references:
// - the embedded model's transformers fixtures, token for token up to the first step whose top-2
//   margin is below a bf16-scale floor, once per decode arm (the model-level gate an arm must pass before it
//   may become a default; the verdict per arm is this test's result);
// - the CPU backend's logits on dummy qwen3-1.7b and its head_dim-256 variant, teacher-forced over
//   256 decode steps, within a bf16 bound;
// - a 4,608-token prompt (chunked tensor-core prefill beside a running decode, split-KV decode)
//   against the CPU backend's logits and greedy tokens;
// - batch invariance (a prompt alone and inside a batch of 8 gives the same tokens), and graph
//   replay against eager steps;
// - no device allocation once the engine is built;
// - GPTQ checkpoints through the W4A16 GEMM (fused q|k|v and gate|up int4 weights) against the CPU
//   on their dequantised float32 twins, a 512-token prompt's prefill on the dequantised bf16 weights
//   and on the tiled form.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "engine/backends/cpu/cpu_model_runner.h"
#include "engine/backends/cuda/cuda_model_runner.h"
#include "engine/backends/cuda/cuda_tensor_parallel.h"
#include "engine/exec/llm_engine.h"
#include "engine/grammar/grammar_constraint.h"
#include "engine/grammar/json_schema_grammar.h"
#include "engine/tokenizer/tokenizer.h"
#include "engine/loader/model_source.h"
#include "engine/sample/sampler.h"
#include "kernels/cuda/w4a16/w4a16_gemm.h"
#include "tests/assets/embedded_fixture.h"
#include "tests/engine/loader/gptq_fixture.h"
#include "tests/kernels/cuda/gpu_test_support.h"
#include "tests/source_root.h"

namespace vt {
namespace {

namespace fs = std::filesystem;

// The fixtures are float32 transformers; this engine computes in bf16, whose rounding moves a
// logit by ~2^-8 of its size at every op. A step is compared only while the reference's top-2
// margin is well above that (the CPU backend, float32, is held to the issue's 1e-3 in
// tests/assets/embedded_model_test.cpp; a bf16 transformers fixture would allow the same here).
constexpr double kMarginFloor = 0.25;
// bf16 activations round at every op (relative 2^-9 each, ~10 per layer); the error of the
// whole forward against the fp32 CPU reference, as ||cuda - cpu||_2 / ||cpu||_2 per logits row.
constexpr double kBf16LogitsBound = 5e-2;

const fs::path kModelDir = testing::SourceRoot() / "assets/models/fortune-qwen3-7m";

Result<LoadedModel> LoadEmbedded() {
  return LoadModel(kModelDir.string(), LoadFormat::kAuto, kernels::cpu::DefaultThreadPool());
}

nlohmann::json ReadExpected() { return testing::ReadEmbeddedExpected(testing::SourceRoot()); }

// The runner's settings a test asks for; an empty string leaves the runner's default (arm auto,
// split auto, tensor-core prefill), which is what users get.
struct RunnerSettings {
  std::string arm;      // VT_ATTN_DECODE
  std::string split;    // VT_ATTN_SPLIT
  std::string prefill;  // VT_ATTN_PREFILL
  std::string graphs = "1";
  std::string pdl;  // VT_PDL
  std::string w4a16_large;  // VT_W4A16_LARGE
  std::string mlp;          // VT_DECODE_MLP
  int32_t max_num_seqs = 16;
  int64_t max_model_len = 2048;  // capped by the model's own context
  int64_t max_num_batched_tokens = 512;
};

std::unique_ptr<ModelRunner> CudaRunner(const LoadedModel& m, const RunnerSettings& settings = {}) {
  // Parsed as `vt` parses its environment, so a setting here means what it means to users.
  const std::map<std::string, std::string> values = {{"VT_ATTN_DECODE", settings.arm},
                                                     {"VT_ATTN_SPLIT", settings.split},
                                                     {"VT_CUDA_GRAPHS", settings.graphs},
                                                     {"VT_ATTN_PREFILL", settings.prefill},
                                                     {"VT_PDL", settings.pdl},
                                                     {"VT_DECODE_MLP", settings.mlp},
                                                     {"VT_W4A16_LARGE", settings.w4a16_large}};
  Result<RunnerOptions> tuning = ParseRunnerOptions([&](const char* name) -> const char* {
    auto it = values.find(name);
    return it == values.end() ? nullptr : it->second.c_str();
  });
  EXPECT_TRUE(tuning.ok()) << tuning.status().message();
  if (!tuning.ok()) return nullptr;
  CudaRunnerOptions o;
  o.tuning = *tuning;
  o.gpu_memory_utilization = 0.5;
  o.max_num_seqs = settings.max_num_seqs;
  o.max_model_len = std::min<int64_t>(m.config.max_position_embeddings, settings.max_model_len);
  o.max_num_batched_tokens = settings.max_num_batched_tokens;
  Result<std::unique_ptr<ModelRunner>> r = CreateCudaModelRunner(m.config, m.weights, m.store, o);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(*r) : nullptr;
}

// Steps until idle; false (with a test failure) as soon as a step fails.
bool Drain(LlmEngine& engine) {
  while (engine.HasUnfinished()) {
    Result<StepResult> step = engine.Step();
    if (!step.ok()) {
      ADD_FAILURE() << step.status().message();
      return false;
    }
  }
  return true;
}

// One decode arm, split or not, computing every token of the fixtures (prefill included, the
// decode way): the gate an arm and a split policy pass before they may become a default.
struct ArmCase {
  const char* arm;
  const char* split;
};

// Names the case in test listings (gtest would print the pointers' bytes).
void PrintTo(const ArmCase& c, std::ostream* os) { *os << c.arm << ", split " << c.split; }

class ArmGate : public ::testing::TestWithParam<ArmCase> {};

TEST_P(ArmGate, ReproducesTransformersGreedyOnTheEmbeddedModel) {
  testing::SkipWithoutGpu();
  if (IsSkipped()) return;
  const nlohmann::json expected = ReadExpected();
  Result<LoadedModel> loaded = LoadEmbedded();
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  RunnerSettings settings;
  settings.arm = GetParam().arm;
  settings.split = GetParam().split;
  settings.prefill = "decode";
  std::unique_ptr<ModelRunner> runner = CudaRunner(*loaded, settings);
  ASSERT_NE(runner, nullptr);
  LlmEngine engine(std::move(runner), EngineConfig{});

  testing::ExpectFixtureGreedy(engine, expected, kMarginFloor,
                               std::string("arm ") + GetParam().arm + ", split " + GetParam().split);
}

// The runner's defaults (the gqa arm split by context, prefill on the tensor-core kernel), and the
// tensor-core prefill beside the plainest decode arm.
TEST(CudaEngine, DefaultsReproduceTransformersGreedy) {
  testing::SkipWithoutGpu();
  if (IsSkipped()) return;
  Result<LoadedModel> loaded = LoadEmbedded();
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  for (const char* arm : {"", "block"}) {
    RunnerSettings settings;
    settings.arm = arm;
    std::unique_ptr<ModelRunner> runner = CudaRunner(*loaded, settings);
    ASSERT_NE(runner, nullptr);
    LlmEngine engine(std::move(runner), EngineConfig{});
    testing::ExpectFixtureGreedy(engine, ReadExpected(), kMarginFloor,
                                 std::string("defaults, arm ") + (*arm ? arm : "auto"));
  }
}

INSTANTIATE_TEST_SUITE_P(DecodeArms, ArmGate,
                         ::testing::Values(ArmCase{"block", "off"}, ArmCase{"warp", "off"}, ArmCase{"warp2", "off"},
                                           ArmCase{"gqa", "off"}, ArmCase{"block", "auto"}, ArmCase{"warp", "auto"},
                                           ArmCase{"warp2", "auto"}, ArmCase{"gqa", "auto"},
                                           ArmCase{"persist", "off"}, ArmCase{"persist", "auto"},
                                           ArmCase{"solo", "off"}, ArmCase{"solo", "auto"}),
                         [](const ::testing::TestParamInfo<ArmCase>& info) {
                           return std::string(info.param.arm) + "_split_" + info.param.split;
                         });

double RelativeL2(const float* a, const float* ref, int64_t n) {
  double diff = 0.0, norm = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    diff += (double(a[i]) - ref[i]) * (double(a[i]) - ref[i]);
    norm += double(ref[i]) * ref[i];
  }
  return std::sqrt(diff / std::max(norm, 1e-30));
}

// Teacher-forced: both runners see the CPU's greedy tokens, so an early near-tie cannot send
// the two down different continuations and the comparison stays about the forward itself.
// `cpu_model` runs on the CPU and `cuda_model` on the GPU (the same model, or a GPTQ checkpoint
// and its dequantised twin), both from `prompt` (ids within the model's vocabulary).
// `w4a16_large`: VT_W4A16_LARGE for the CUDA runner.
void CompareLogits(const std::string& name, LoadedModel cpu_model, const LoadedModel& cuda_model,
                   const std::vector<int32_t>& prompt, int steps, const std::string& w4a16_large = "") {
  kernels::cpu::ThreadPool& pool = kernels::cpu::DefaultThreadPool();
  RunnerSettings settings;
  settings.w4a16_large = w4a16_large;
  settings.max_num_seqs = 1;
  settings.max_model_len = int64_t(prompt.size()) + steps + 1;
  settings.max_num_batched_tokens = std::max<int64_t>(512, int64_t(prompt.size()));  // the prompt in one step
  std::unique_ptr<ModelRunner> cuda = CudaRunner(cuda_model, settings);
  ASSERT_NE(cuda, nullptr);
  const int32_t block_size = cuda->kv_block_size();
  const int64_t vocab = cpu_model.config.vocab_size;
  const int64_t total = int64_t(prompt.size()) + steps;
  std::vector<int32_t> table;
  for (int32_t b = 0; b < (total + block_size - 1) / block_size; ++b) table.push_back(b);
  CpuModelRunner cpu(std::make_unique<DecoderModel>(cpu_model.config, std::move(cpu_model.weights), &pool),
                     int32_t(table.size()), block_size);

  std::vector<int32_t> tokens = prompt;
  double worst = 0.0;
  for (int step = 0; step <= steps; ++step) {
    const int64_t start = step == 0 ? 0 : int64_t(tokens.size()) - 1;
    ForwardSeq seq{tokens.data() + start, int64_t(tokens.size()) - start, start, table.data(), int64_t(table.size()), true};
    std::vector<float> cpu_logits, cuda_logits;
    const Status on_cpu = cpu.Forward({seq}, &cpu_logits);
    ASSERT_TRUE(on_cpu.ok()) << on_cpu.message();
    Status s = cuda->Forward({seq}, &cuda_logits);
    ASSERT_TRUE(s.ok()) << s.message();
    ASSERT_EQ(cuda_logits.size(), size_t(vocab));
    const double rel = RelativeL2(cuda_logits.data(), cpu_logits.data(), vocab);
    worst = std::max(worst, rel);
    ASSERT_LT(rel, kBf16LogitsBound) << name << " step " << step;
    tokens.push_back(Argmax(cpu_logits.data(), vocab));
  }
  std::printf("[ logits   ] %s: worst relative L2 error over %d decode steps: %.3g (bound %.3g)\n", name.c_str(),
              steps, worst, kBf16LogitsBound);
}

void ComparePresetLogits(const std::string& preset, int steps) {
  kernels::cpu::ThreadPool& pool = kernels::cpu::DefaultThreadPool();
  Result<LoadedModel> model = LoadModel("preset:" + preset, LoadFormat::kDummy, pool, /*dummy_seed=*/7);
  ASSERT_TRUE(model.ok()) << model.status().message();
  const LoadedModel for_cuda = *model;  // weights are views with shared storage: a cheap copy
  const std::vector<int32_t> prompt = {791, 7290, 315, 2324, 374, 220, 17, 13, 578, 4320, 374};
  CompareLogits(preset, std::move(*model), for_cuda, prompt, steps);
}

TEST(CudaEngine, LogitsMatchTheCpuBackendOnQwen3_1_7B) {
  testing::SkipWithoutGpu();
  if (IsSkipped()) return;
  ComparePresetLogits("qwen3-1.7b", 256);
}

TEST(CudaEngine, LogitsMatchTheCpuBackendAtHeadDim256) {
  testing::SkipWithoutGpu();
  if (IsSkipped()) return;
  ComparePresetLogits("qwen3-1.7b-hd256", 256);
}

// Long contexts. The embedded model with its context raised to 8,192 tokens (RoPE is defined at
// every position, and both backends compute the same function there): a 4,608-token prompt goes
// through the tensor-core prefill in chunks and its decodes through split-KV over 18 chunks.
constexpr int64_t kLongContext = 8192;
constexpr size_t kLongPromptTokens = 4608;

Result<LoadedModel> LoadEmbeddedWithLongContext() {
  Result<LoadedModel> loaded = LoadEmbedded();
  if (loaded.ok()) loaded->config.max_position_embeddings = kLongContext;
  return loaded;
}

// The fixture prompts one after another, repeated up to the length: text the model has seen the
// like of, so its next-token margins stay informative.
std::vector<int32_t> LongPrompt() {
  const auto prompts = ReadExpected()["prompts"].get<std::vector<std::vector<int32_t>>>();
  std::vector<int32_t> ids;
  for (size_t i = 0; ids.size() < kLongPromptTokens; i = (i + 1) % prompts.size()) {
    ids.insert(ids.end(), prompts[i].begin(), prompts[i].end());
  }
  ids.resize(kLongPromptTokens);
  return ids;
}

TEST(CudaEngine, LongPromptLogitsMatchTheCpuBackend) {
  testing::SkipWithoutGpu();
  if (IsSkipped()) return;
  Result<LoadedModel> loaded = LoadEmbeddedWithLongContext();
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const LoadedModel for_cuda = *loaded;
  CompareLogits("embedded model, 4608-token prompt", std::move(*loaded), for_cuda, LongPrompt(), 32);
}

// The CPU backend's greedy continuation of `prompt` and each step's top-2 logit margin.
struct GreedyReference {
  std::vector<int32_t> tokens;
  std::vector<double> margins;
};

GreedyReference CpuGreedy(LoadedModel model, const std::vector<int32_t>& prompt, int steps) {
  constexpr int32_t kBlock = 16;
  const int64_t vocab = model.config.vocab_size;
  std::vector<int32_t> table;
  for (int32_t b = 0; b < (int64_t(prompt.size()) + steps + kBlock - 1) / kBlock; ++b) table.push_back(b);
  CpuModelRunner cpu(std::make_unique<DecoderModel>(model.config, std::move(model.weights),
                                                    &kernels::cpu::DefaultThreadPool()),
                     int32_t(table.size()), kBlock);
  GreedyReference ref;
  std::vector<int32_t> tokens = prompt;
  for (int step = 0; step < steps; ++step) {
    const int64_t start = step == 0 ? 0 : int64_t(tokens.size()) - 1;
    ForwardSeq seq{tokens.data() + start, int64_t(tokens.size()) - start, start, table.data(), int64_t(table.size()), true};
    std::vector<float> logits;
    const Status s = cpu.Forward({seq}, &logits);
    EXPECT_TRUE(s.ok()) << s.message();
    if (!s.ok()) return ref;
    const int32_t best = Argmax(logits.data(), vocab);
    float second = -INFINITY;
    for (int64_t v = 0; v < vocab; ++v) {
      if (v != best) second = std::max(second, logits[size_t(v)]);
    }
    ref.tokens.push_back(best);
    ref.margins.push_back(double(logits[size_t(best)]) - second);
    tokens.push_back(best);
  }
  return ref;
}

// The engine path users take: the long prompt arrives while a short request decodes, so its chunks
// share steps with that decode (decode-first scheduling, mixed steps), then it decodes with split-KV
// in graphs. Its greedy tokens equal the CPU backend's wherever the CPU's margin is clear.
TEST(CudaEngine, LongPromptGreedyMatchesTheCpuBackendWhileAnotherRequestDecodes) {
  testing::SkipWithoutGpu();
  if (IsSkipped()) return;
  constexpr int kSteps = 48;
  Result<LoadedModel> loaded = LoadEmbeddedWithLongContext();
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const std::vector<int32_t> prompt = LongPrompt();
  const GreedyReference ref = CpuGreedy(*loaded, prompt, kSteps);
  ASSERT_EQ(ref.tokens.size(), size_t(kSteps));

  RunnerSettings settings;
  settings.max_model_len = kLongContext;
  std::unique_ptr<ModelRunner> runner = CudaRunner(*loaded, settings);
  ASSERT_NE(runner, nullptr);
  EngineConfig config;
  config.scheduler.max_model_len = kLongContext;
  LlmEngine engine(std::move(runner), config);
  SamplingParams params;
  params.temperature = 0.0f;
  params.ignore_eos = true;
  params.max_tokens = kSteps;
  const RequestId short_id = engine.AddRequest(ReadExpected()["prompts"][0].get<std::vector<int32_t>>(), params).value();
  ASSERT_TRUE(engine.Step().ok());  // the short request's prefill: it decodes from the next step on
  const RequestId long_id = engine.AddRequest(prompt, params).value();
  int mixed_steps = 0;
  while (engine.HasUnfinished()) {
    Result<StepResult> step = engine.Step();
    ASSERT_TRUE(step.ok()) << step.status().message();
    mixed_steps += step->num_tokens > int64_t(step->tokens.size()) && !step->tokens.empty() ? 1 : 0;
  }
  EXPECT_GT(mixed_steps, 0) << "the long prompt never shared a step with the decode";
  engine.TakeFinished(short_id);
  const std::vector<int32_t> out = engine.TakeFinished(long_id)->output;
  ASSERT_EQ(out.size(), size_t(kSteps));
  // Past its trained 2,048 positions the model is often unsure, so the continuations are compared
  // up to their first difference, which must fall on a step the CPU itself calls a near-tie.
  int equal = 0;
  while (equal < kSteps && out[size_t(equal)] == ref.tokens[size_t(equal)]) ++equal;
  std::printf("[ long     ] %d of %d greedy tokens equal the CPU backend's\n", equal, kSteps);
  if (equal < kSteps) {
    EXPECT_LT(ref.margins[size_t(equal)], kMarginFloor)
        << "step " << equal << " differs at a clear CPU margin: " << out[size_t(equal)] << " vs "
        << ref.tokens[size_t(equal)];
  }
}

TEST(CudaEngine, APromptAloneAndInABatchOfEightGivesTheSameTokensWithoutAllocating) {
  testing::SkipWithoutGpu();
  if (IsSkipped()) return;
  Result<LoadedModel> loaded = LoadEmbedded();
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  std::unique_ptr<ModelRunner> runner = CudaRunner(*loaded);
  ASSERT_NE(runner, nullptr);
  LlmEngine engine(std::move(runner), EngineConfig{});
  SamplingParams params;
  params.temperature = 0.0f;
  params.ignore_eos = true;
  params.max_tokens = 48;
  const std::vector<int32_t> probe = ReadExpected()["prompts"][0].get<std::vector<int32_t>>();
  auto run = [&](int companions) {
    const RequestId id = engine.AddRequest(probe, params).value();
    for (int i = 0; i < companions; ++i) {
      std::vector<int32_t> other = probe;
      other.push_back(100 + i);  // different prompts, different lengths in the same steps
      engine.AddRequest(other, params).value();
    }
    if (!Drain(engine)) return std::vector<int32_t>();
    return engine.TakeFinished(id)->output;
  };
  const std::vector<int32_t> alone = run(0);
  const std::vector<int32_t> batched = run(7);
  EXPECT_EQ(alone, batched);
  // Measured around a third run, which meets the prefix cache exactly as the second did: kernels
  // cuBLAS loaded lazily for the step shapes (module memory, not the runner's) are resident by then.
  EXPECT_EQ(run(7), batched);
  size_t free_before = 0, free_after = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_before, &total), cudaSuccess);
  EXPECT_EQ(run(7), batched);
  ASSERT_EQ(cudaMemGetInfo(&free_after, &total), cudaSuccess);
  EXPECT_EQ(free_before, free_after) << "the step path allocated device memory";
}

TEST(CudaEngine, GptqCheckpointsRunTheW4A16GemmAndMatchTheirDequantisedTwin) {
  testing::SkipWithoutGpu();
  if (IsSkipped()) return;
  if (testing::GetGptqFixture().root.empty()) GTEST_SKIP() << testing::GetGptqFixture().error;
  kernels::cpu::ThreadPool& pool = kernels::cpu::DefaultThreadPool();
  for (const char* group : {"g128", "g-1"}) {
    Result<LoadedModel> int4 = LoadModel((testing::GetGptqFixture().root / group).string(), LoadFormat::kAuto, pool);
    ASSERT_TRUE(int4.ok()) << int4.status().message();
    ASSERT_TRUE(int4->config.gptq.has_value());
    Result<LoadedModel> twin =
        LoadModel((testing::GetGptqFixture().root / (std::string(group) + "-fp32")).string(), LoadFormat::kAuto, pool);
    ASSERT_TRUE(twin.ok()) << twin.status().message();
    CompareLogits(std::string("fortune GPTQ ") + group, std::move(*twin), *int4,
                  ReadExpected()["prompts"][0].get<std::vector<int32_t>>(), 64);
  }
}

// A 512-token prompt prefills in one step: its int4 layers run as the bf16 GEMM on weights
// dequantised into the scratch (VT_W4A16_LARGE=dequant, the default from kW4A16DequantMinRows rows)
// or on the tiled form (=kernel); the decodes after it on the stacked form. Both against the twin.
TEST(CudaEngine, GptqLongPromptsPrefillOnTheDequantisedWeightsAndOnTheTiledForm) {
  testing::SkipWithoutGpu();
  if (IsSkipped()) return;
  if (testing::GetGptqFixture().root.empty()) GTEST_SKIP() << testing::GetGptqFixture().error;
  kernels::cpu::ThreadPool& pool = kernels::cpu::DefaultThreadPool();
  std::vector<int32_t> prompt = LongPrompt();
  prompt.resize(512);
  static_assert(512 >= kernels::cuda::kW4A16DequantMinRows);
  const std::string root = (testing::GetGptqFixture().root / "g128").string();
  Result<LoadedModel> int4 = LoadModel(root, LoadFormat::kAuto, pool);
  ASSERT_TRUE(int4.ok()) << int4.status().message();
  for (const char* large : {"dequant", "kernel"}) {
    Result<LoadedModel> twin = LoadModel(root + "-fp32", LoadFormat::kAuto, pool);
    ASSERT_TRUE(twin.ok()) << twin.status().message();
    CompareLogits(std::string("fortune GPTQ g128, 512-token prompt, VT_W4A16_LARGE=") + large, std::move(*twin),
                  *int4, prompt, 8, large);
  }
}

// Decode steps replay graphs captured per batch-size bucket (padded rows included); the eager path
// runs the same kernels on the unpadded batch. Greedy continuations must agree.
// Greedy tokens of the first `count` fixture prompts, 32 each, decoded together (5: graph bucket 8,
// three rows padded; 3: bucket 4, one padded).
std::vector<std::vector<int32_t>> Greedy(const LoadedModel& loaded, const RunnerSettings& settings, size_t count) {
  std::vector<std::vector<int32_t>> out;
  const auto prompts = ReadExpected()["prompts"].get<std::vector<std::vector<int32_t>>>();
  std::unique_ptr<ModelRunner> runner = CudaRunner(loaded, settings);
  if (runner == nullptr) return out;
  LlmEngine engine(std::move(runner), EngineConfig{});
  SamplingParams params;
  params.temperature = 0.0f;
  params.ignore_eos = true;
  params.max_tokens = 32;
  std::vector<RequestId> ids;
  for (size_t i = 0; i < count; ++i) ids.push_back(engine.AddRequest(prompts[i], params).value());
  if (!Drain(engine)) return out;
  for (RequestId id : ids) out.push_back(engine.TakeFinished(id)->output);
  return out;
}

TEST(CudaEngine, GraphReplayAndEagerStepsGiveTheSameTokens) {
  testing::SkipWithoutGpu();
  if (IsSkipped()) return;
  Result<LoadedModel> loaded = LoadEmbedded();
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  RunnerSettings graphs, eager;
  eager.graphs = "0";
  EXPECT_EQ(Greedy(*loaded, graphs, 5), Greedy(*loaded, eager, 5));
}

// The greedy tokens of each count of requests under `changed` are those under `base`, in graphs and
// eagerly (both sides' graphs setting overridden).
void ExpectSameGreedyTokens(const LoadedModel& loaded, RunnerSettings base, RunnerSettings changed,
                            std::initializer_list<int> request_counts) {
  for (const char* graphs : {"1", "0"}) {
    for (int requests : request_counts) {
      SCOPED_TRACE(std::string("graphs ") + graphs + ", " + std::to_string(requests) + " requests");
      base.graphs = changed.graphs = graphs;
      const std::vector<std::vector<int32_t>> tokens = Greedy(loaded, base, requests);
      ASSERT_EQ(tokens.size(), size_t(requests));
      EXPECT_EQ(Greedy(loaded, changed, requests), tokens);
    }
  }
}

// Programmatic dependent launches (on by default for steps of up to eight rows, the attention's to
// four, or eight where its call is unsplit) change no token, in graphs and eagerly: three requests
// decode in steps of three rows (graph bucket 4, every kernel dependent), six in steps of six (bucket
// 8, the attention dependent where the step's plan is unsplit, plain where it is split).
TEST(CudaEngine, DependentLaunchesChangeNoToken) {
  testing::SkipWithoutGpu();
  if (IsSkipped()) return;
  Result<LoadedModel> loaded = LoadEmbedded();
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  RunnerSettings off;
  off.pdl = "0";
  ExpectSameGreedyTokens(*loaded, RunnerSettings{}, off, {3, 6});
}

// The fused decode MLP (VT_DECODE_MLP=fused: one resident kernel with a grid barrier in place of
// gate/up, SiLU·mul and down) changes no token, in graphs and eagerly, for steps of one and of three
// rows; the kernel test (decode_mlp_test.cpp) holds its bits to the three kernels'.
TEST(CudaEngine, TheFusedDecodeMlpChangesNoToken) {
  testing::SkipWithoutGpu();
  if (IsSkipped()) return;
  Result<LoadedModel> loaded = LoadEmbedded();
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  RunnerSettings fused;
  fused.mlp = "fused";
  ExpectSameGreedyTokens(*loaded, RunnerSettings{}, fused, {1, 3});
}

// The tensor-parallel path (a CudaModelRunner per rank over ShardModel's slices, NCCL between them,
// driven in step by TensorParallelRunner): one rank gives the plain runner's tokens exactly (its
// all-reduces and gather are copies); two ranks, where two GPUs are visible, reproduce transformers'
// greedy tokens as far as the fixtures' margins allow (bf16 partial sums add in another order).
TEST(CudaEngine, TensorParallelRanksDecodeAsTheWholeModel) {
  testing::SkipWithoutGpu();
  if (IsSkipped()) return;
  Result<LoadedModel> loaded = LoadEmbedded();
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const std::vector<std::vector<int32_t>> plain = Greedy(*loaded, RunnerSettings{}, 3);
  ASSERT_EQ(plain.size(), 3u);
  CudaRunnerOptions o;
  o.gpu_memory_utilization = 0.4;
  o.max_num_seqs = 16;
  o.max_model_len = std::min<int64_t>(loaded->config.max_position_embeddings, 2048);
  o.max_num_batched_tokens = 512;
  Result<std::unique_ptr<ModelRunner>> one = CreateCudaTensorParallelRunner(*loaded, 1, o);
  ASSERT_TRUE(one.ok()) << one.status().message();
  {
    LlmEngine engine(std::move(*one), EngineConfig{});
    const auto prompts = ReadExpected()["prompts"].get<std::vector<std::vector<int32_t>>>();
    SamplingParams params;
    params.temperature = 0.0f;
    params.ignore_eos = true;
    params.max_tokens = 32;
    std::vector<RequestId> ids;
    for (size_t i = 0; i < 3; ++i) ids.push_back(engine.AddRequest(prompts[i], params).value());
    ASSERT_TRUE(Drain(engine));
    for (size_t i = 0; i < 3; ++i) EXPECT_EQ(engine.TakeFinished(ids[i])->output, plain[i]) << "prompt " << i;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 2) {
    GTEST_SKIP() << "one rank passed; two ranks need 2 GPUs, " << devices << " visible";
  }
  Result<std::unique_ptr<ModelRunner>> two = CreateCudaTensorParallelRunner(*loaded, 2, o);
  ASSERT_TRUE(two.ok()) << two.status().message();
  LlmEngine engine(std::move(*two), EngineConfig{});
  testing::ExpectFixtureGreedy(engine, ReadExpected(), kMarginFloor, "two tensor-parallel ranks");
}

// Sampled decoding end to end: draws happen on the device (or, with logprobs, on the host from
// the copied rows); a seed repeats its tokens on this backend and the ids stay in the vocabulary.
TEST(CudaEngine, SeededSamplingRepeatsAndLogprobsRequestsStillSample) {
  testing::SkipWithoutGpu();
  if (IsSkipped()) return;
  const auto prompts = ReadExpected()["prompts"].get<std::vector<std::vector<int32_t>>>();
  Result<LoadedModel> loaded = LoadEmbedded();
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  auto generate = [&](uint64_t seed, int32_t logprobs) {
    std::vector<std::vector<int32_t>> out;
    std::unique_ptr<ModelRunner> runner = CudaRunner(*loaded);
    if (runner == nullptr) return out;
    LlmEngine engine(std::move(runner), EngineConfig{});
    SamplingParams params;
    params.temperature = 0.8f;
    params.top_k = 50;
    params.top_p = 0.9f;
    params.seed = seed;
    params.ignore_eos = true;
    params.max_tokens = 24;
    params.logprobs = logprobs;
    std::vector<RequestId> ids;
    for (size_t i = 0; i < 4; ++i) ids.push_back(engine.AddRequest(prompts[i], params).value());
    if (!Drain(engine)) return out;
    for (RequestId id : ids) out.push_back(engine.TakeFinished(id)->output);
    return out;
  };
  const auto first = generate(1234, -1);
  ASSERT_EQ(first.size(), 4u);
  EXPECT_EQ(generate(1234, -1), first);
  EXPECT_NE(generate(99, -1), first) << "another seed drew exactly the same 96 tokens";
  for (const auto& continuation : first) {
    for (int32_t t : continuation) EXPECT_TRUE(t >= 0 && t < loaded->config.vocab_size) << t;
  }
  const auto with_logprobs = generate(1234, 2);
  ASSERT_EQ(with_logprobs.size(), 4u);
  for (const auto& continuation : with_logprobs) EXPECT_EQ(continuation.size(), 24u);
}

// A JSON Schema's masks applied where the logits are (greedy and sampled rows, beside unconstrained
// ones in the same steps): every constrained output is JSON that meets the schema and ends in EOS,
// and greedy rows draw exactly what the host-side mask gives (a logprobs request takes that path).
TEST(CudaEngine, GrammarMasksApplyOnTheDevice) {
  testing::SkipWithoutGpu();
  if (IsSkipped()) return;
  const auto prompts = ReadExpected()["prompts"].get<std::vector<std::vector<int32_t>>>();
  Result<LoadedModel> loaded = LoadEmbedded();
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  Result<std::shared_ptr<Tokenizer>> tokenizer = Tokenizer::FromFile((kModelDir / "tokenizer.json").string());
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().message();
  const auto vocabulary = std::make_shared<const grammar::TokenVocabulary>((*tokenizer)->TokenBytesTable());
  Result<grammar::Grammar> compiled = grammar::CompileJsonSchema(nlohmann::json::parse(R"({"type": "object",
      "properties": {"name": {"type": "string", "maxLength": 12}, "n": {"type": "integer"},
                     "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 3}},
      "required": ["name", "n", "tags"]})"));
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  const std::shared_ptr<const grammar::GrammarConstraint> constraint =
      grammar::Constrain(std::move(*compiled), vocabulary).value();
  auto generate = [&](float temperature, int32_t logprobs) {
    std::vector<std::vector<int32_t>> out;
    std::unique_ptr<ModelRunner> runner = CudaRunner(*loaded);
    if (runner == nullptr) return out;
    LlmEngine engine(std::move(runner), EngineConfig{});
    std::vector<RequestId> ids;
    for (size_t i = 0; i < 4; ++i) {
      SamplingParams constrained;
      constrained.temperature = temperature;
      constrained.seed = i;
      constrained.max_tokens = 120;
      constrained.logprobs = logprobs;
      constrained.grammar = constraint;
      ids.push_back(engine.AddRequest(prompts[i], constrained).value());
      SamplingParams free;
      free.temperature = 0.0f;
      free.max_tokens = 40;
      engine.AddRequest(prompts[i], free).value();
    }
    if (!Drain(engine)) return out;
    for (RequestId id : ids) out.push_back(engine.TakeFinished(id)->output);
    return out;
  };
  const std::vector<int32_t>& eos = loaded->config.eos_token_ids;
  for (float temperature : {0.0f, 1.0f}) {
    const auto outputs = generate(temperature, -1);
    ASSERT_EQ(outputs.size(), 4u);
    for (const std::vector<int32_t>& output : outputs) {
      ASSERT_FALSE(output.empty());
      EXPECT_NE(std::find(eos.begin(), eos.end(), output.back()), eos.end()) << "ended without EOS";
      std::string text;
      for (size_t i = 0; i + 1 < output.size(); ++i) text += vocabulary->bytes(output[i]);
      const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
      ASSERT_FALSE(j.is_discarded()) << text;
      EXPECT_TRUE(j.contains("name") && j["name"].is_string() && j.contains("n") && j["n"].is_number_integer() &&
                  j.contains("tags") && j["tags"].is_array() && j["tags"].size() <= 3)
          << text;
    }
    if (temperature == 0.0f) {
      EXPECT_EQ(generate(0.0f, 0), outputs) << "device and host masks drew differently";
    }
  }
}

// Penalties, logit_bias and min_tokens applied where the logits are (CUDA graphs on, adjusted rows
// beside a plain one in the same steps) draw exactly the tokens the host path draws from the
// copied rows (a logprobs request takes that path); and they bite: the adjusted outputs are not
// the plain greedy ones.
TEST(CudaEngine, PenaltiesAndLogitBiasApplyOnTheDevice) {
  testing::SkipWithoutGpu();
  if (IsSkipped()) return;
  const auto prompts = ReadExpected()["prompts"].get<std::vector<std::vector<int32_t>>>();
  Result<LoadedModel> loaded = LoadEmbedded();
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const int32_t vocab = int32_t(loaded->config.vocab_size);
  std::vector<SamplingParams> requests(5);
  for (SamplingParams& p : requests) {
    p.temperature = 0.0f;
    p.max_tokens = 40;
  }
  requests[0].logit_bias = {{1000, 30.0f}};  // 1000 wins until its frequency penalty outweighs the bias
  requests[0].frequency_penalty = 12.0f;
  requests[1].repetition_penalty = 1.8f;
  requests[1].logit_bias = {{vocab - 1, -5.0f}, {500, 4.0f}, {500, 0.75f}};
  requests[2].frequency_penalty = 4.0f;
  requests[2].presence_penalty = 4.0f;
  requests[2].repetition_penalty = 0.8f;  // below 1: seen tokens gain, against the other two
  requests[2].ignore_eos = true;
  requests[3].min_tokens = 12;
  requests[3].stop_token_ids = {1000, 2000};
  requests[3].logit_bias = {{2000, 40.0f}};  // 2000 is held off for 12 tokens, then ends the output
  // requests[4] adjusts nothing: it draws from the float rows of the steps its neighbours adjust.
  auto generate = [&](int32_t logprobs) {
    std::vector<std::vector<int32_t>> out;
    std::unique_ptr<ModelRunner> runner = CudaRunner(*loaded);  // graphs on
    if (runner == nullptr) return out;
    LlmEngine engine(std::move(runner), EngineConfig{});
    std::vector<RequestId> ids;
    for (size_t i = 0; i < requests.size(); ++i) {
      SamplingParams p = requests[i];
      p.logprobs = logprobs;
      ids.push_back(engine.AddRequest(prompts[i], p).value());
    }
    if (!Drain(engine)) return out;
    for (RequestId id : ids) out.push_back(engine.TakeFinished(id)->output);
    return out;
  };
  const auto device = generate(-1);
  const auto host = generate(0);
  ASSERT_EQ(device.size(), requests.size());
  ASSERT_EQ(host.size(), requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    size_t same = 0;
    while (same < device[i].size() && same < host[i].size() && device[i][same] == host[i][same]) ++same;
    EXPECT_EQ(device[i], host[i]) << "request " << i << ": device and host paths part at token " << same << " of "
                                  << device[i].size() << " / " << host[i].size();
  }
  ASSERT_FALSE(device[0].empty());
  EXPECT_EQ(device[0][0], 1000) << "the bias of request 0 did not reach the draw";
  EXPECT_LE(std::count(device[0].begin(), device[0].end(), 1000), 3) << "its frequency penalty did not";
  ASSERT_EQ(device[3].size(), 13u) << "min_tokens held 2000 off for 12 tokens, then its bias draws it";
  EXPECT_EQ(std::count(device[3].begin(), device[3].end() - 1, 2000), 0);
  EXPECT_EQ(device[3].back(), 2000);
  for (SamplingParams& p : requests) {  // the same requests with nothing adjusted
    p.frequency_penalty = p.presence_penalty = 0.0f;
    p.repetition_penalty = 1.0f;
    p.logit_bias.clear();
    p.min_tokens = 0;
  }
  const auto unadjusted = generate(-1);
  ASSERT_EQ(unadjusted.size(), requests.size());
  EXPECT_EQ(unadjusted[4], device[4]) << "a plain row changed with its neighbours' adjustments";
  for (size_t i = 0; i < 3; ++i) EXPECT_NE(unadjusted[i], device[i]) << "request " << i << "'s adjustments changed nothing";
}

TEST(CudaEngine, TooLittleMemoryIsAClearError) {
  testing::SkipWithoutGpu();
  if (IsSkipped()) return;
  Result<LoadedModel> loaded = LoadEmbedded();
  ASSERT_TRUE(loaded.ok());
  CudaRunnerOptions o;
  o.gpu_memory_utilization = 0.0001;
  Result<std::unique_ptr<ModelRunner>> r = CreateCudaModelRunner(loaded->config, loaded->weights, loaded->store, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(r.status().message().find("--gpu-memory-utilization"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace vt
