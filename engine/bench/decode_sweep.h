// The decode sweep behind `vt bench decode`: for each concurrency c, c requests of random prompt
// ids arrive at once and decode greedily to a fixed length on one LlmEngine; per level it
// reports output throughput, TTFT and TPOT, and the weights-only roofline (every decode step
// reads every weight once, so c sequences cannot outrun c × copy bandwidth / weight bytes).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/bench/latency_stats.h"
#include "engine/config/model_config.h"
#include "engine/core/status.h"
#include "engine/exec/llm_engine.h"

namespace vt::bench {

struct DecodeSweepOptions {
  std::vector<int32_t> concurrencies;
  int32_t input_len = 32;
  int32_t output_len = 128;
  uint64_t seed = 0;  // prompts are a pure function of the seed and the concurrency list
};

struct DecodeLevelResult {
  int32_t concurrency = 0;
  int64_t output_tokens = 0;
  double seconds = 0.0;  // from adding the requests to the last token
  double output_tokens_per_s = 0.0;
  LatencySummary ttft_ms;
  LatencySummary tpot_ms;
  double roofline_tokens_per_s = 0.0;
  double roofline_fraction = 0.0;
};

struct DecodeSweepResult {
  std::string backend;
  uint64_t weight_bytes = 0;
  double copy_bandwidth_bytes_per_s = 0.0;
  std::vector<DecodeLevelResult> levels;
};

// Called after every engine step: the level being run and its output tokens so far.
using SweepProgress = std::function<void(int32_t concurrency, int64_t tokens_done, int64_t tokens_total)>;

// Checks the sizes (before a model is loaded) and sorts and deduplicates the concurrencies.
Result<DecodeSweepOptions> NormalizeSweepOptions(DecodeSweepOptions options);

// A prompt and its output must fit the model's context.
Status CheckSweepFitsModel(const DecodeSweepOptions& options, const ModelConfig& model);

// An engine config that holds every level without preemption: all sequences of the largest level
// in the KV pool at full length, and (where it fits the usual budget) all prompts of a level
// prefilled in one step.
EngineConfig SweepEngineConfig(const DecodeSweepOptions& options, const ModelConfig& model);

double RooflineTokensPerSecond(int32_t concurrency, double copy_bandwidth_bytes_per_s, uint64_t weight_bytes);

// Measures the runner's copy bandwidth once, then runs every level (each after a short warm-up
// request) to completion.
Result<DecodeSweepResult> RunDecodeSweep(LlmEngine& engine, const DecodeSweepOptions& options,
                                         const SweepProgress& progress);

}  // namespace vt::bench
