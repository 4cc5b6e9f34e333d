// Tiny model configs and engines for tests: real layer plans at sizes that
// run in milliseconds on two cores.
#pragma once

#include <memory>
#include <vector>

#include "engine/config/model_config.h"
#include "engine/backends/cpu/cpu_model_runner.h"
#include "engine/exec/llm_engine.h"
#include "engine/loader/dummy_weights.h"
#include "kernels/cpu/thread_pool.h"

namespace vt::testing {

inline ModelConfig TinyConfig(Architecture arch = Architecture::kQwen3) {
  ModelConfig c;
  c.arch = arch;
  c.hidden_size = 64;
  c.intermediate_size = 96;
  c.num_layers = 2;
  c.num_heads = 4;
  c.num_kv_heads = 2;
  c.head_dim = 16;
  c.vocab_size = 256;
  c.max_position_embeddings = 512;
  c.rope_theta = 10000.0;
  c.qk_norm = arch == Architecture::kQwen3;
  c.attention_bias = arch == Architecture::kQwen2;
  c.tie_word_embeddings = false;
  c.eos_token_ids = {};
  return c;
}

// The CPU reference runner over `weights`, its pool sized by `ec` (num_kv_blocks, block_size).
inline std::unique_ptr<ModelRunner> CpuRunner(ModelConfig c, ModelWeights weights, const EngineConfig& ec) {
  auto model = std::make_unique<DecoderModel>(std::move(c), std::move(weights), &kernels::cpu::DefaultThreadPool());
  return std::make_unique<CpuModelRunner>(std::move(model), ec.num_kv_blocks, ec.block_size);
}

inline std::unique_ptr<LlmEngine> MakeEngine(const ModelConfig& c, EngineConfig ec = {},
                                             kernels::cpu::DType dtype = kernels::cpu::DType::kBF16,
                                             uint64_t seed = 7) {
  if (ec.num_kv_blocks == 0) ec.num_kv_blocks = 256;
  return std::make_unique<LlmEngine>(CpuRunner(c, MakeDummyWeights(c, dtype, seed, kernels::cpu::DefaultThreadPool()), ec), ec);
}

// Runs every prompt to completion in one engine; outputs in prompt order.
inline std::vector<std::vector<int32_t>> Generate(LlmEngine& engine, const std::vector<std::vector<int32_t>>& prompts,
                                                  const SamplingParams& params) {
  std::vector<RequestId> ids;
  for (const auto& p : prompts) ids.push_back(engine.AddRequest(p, params).value());
  while (engine.HasUnfinished()) {
    if (!engine.Step().ok()) return {};
  }
  std::vector<std::vector<int32_t>> out;
  for (RequestId id : ids) out.push_back(engine.TakeFinished(id)->output);
  return out;
}

// Deterministic pseudo-random prompt of n ids below vocab.
inline std::vector<int32_t> Prompt(int n, int salt, int vocab = 256) {
  std::vector<int32_t> p;
  uint32_t x = 2654435761u * static_cast<uint32_t>(salt + 1);
  for (int i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    p.push_back(static_cast<int32_t>((x >> 8) % static_cast<uint32_t>(vocab)));
  }
  return p;
}

}  // namespace vt::testing
