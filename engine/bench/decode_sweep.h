// The decode sweep behind `vt bench decode`: for each concurrency c, c requests of random prompt
// ids arrive at once and decode greedily to a fixed length on one LlmEngine; per level it
// reports output throughput, TTFT, TPOT and inter-token latencies, and the weights + KV roofline
// (every decode step reads every weight once and each sequence's K/V once, so c sequences cannot
// outrun c × copy bandwidth / (weight bytes + c × KV bytes of a sequence at its mean context)).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/bench/latency_stats.h"
#include "engine/config/model_config.h"
#include "base/status.h"
#include "engine/exec/kv_sizing.h"
#include "engine/exec/llm_engine.h"

namespace vt::bench {

struct DecodeSweepOptions {
  std::vector<int32_t> concurrencies;
  int32_t input_len = 32;
  int32_t output_len = 128;
  uint64_t seed = 0;  // prompts are a pure function of the seed and the concurrency list
  int64_t max_num_batched_tokens = 0;             // a step's token budget; 0: every prompt of a level at once
  int64_t max_prefill_tokens_beside_decodes = 0;  // 0: the scheduler's default
  double max_decode_slowdown = 0.0;               // SchedulerConfig's; 0: no bound
};

struct DecodeLevelResult {
  int32_t concurrency = 0;
  int64_t output_tokens = 0;
  double seconds = 0.0;  // from adding the requests to the last token
  double output_tokens_per_s = 0.0;
  LatencySummary ttft_ms;
  LatencySummary tpot_ms;
  // Inter-token latencies of the running decodes, split by whether the step that produced the token
  // also computed prompt tokens: what a long prompt arriving costs the requests already decoding.
  LatencySummary decode_itl_ms;   // steps of decodes alone
  LatencySummary prefill_itl_ms;  // steps that also prefilled
  double kv_bytes_per_sequence = 0.0;  // K/V one decode step reads per sequence, at the mean context
  double roofline_tokens_per_s = 0.0;
  double roofline_fraction = 0.0;
  // Prefill: the level's prompt tokens over the time to its last first token (every prompt is
  // prefilled by then), and that rate's model FLOPs over the backend's matmul peak (0: no probe).
  double prefill_tokens_per_s = 0.0;
  double prefill_mfu = 0.0;
  // The loop's own time between a step's result and the next step, a step: the reference for
  // the server's (`vt bench serve`'s engine_between_steps_us).
  double between_steps_us = 0.0;
  // Every decode step while some prompt of the level still waits for its first token, prefilling
  // or not: the decodes' TPOT while prompts prefill, which a pace (--max-decode-slowdown) bounds.
  LatencySummary prefilling_itl_ms{};
  double prefilling_itl_mean_ms = 0.0;
  int64_t prefilling_itl_beside_prompts = 0;  // of those, from steps that also computed prompt tokens
};

struct DecodeSweepResult {
  std::string backend;
  uint64_t weight_bytes = 0;
  double copy_bandwidth_bytes_per_s = 0.0;
  double matmul_flops_per_s = 0.0;  // the backend's dense bf16 matmul peak; 0 where it has none
  std::vector<DecodeLevelResult> levels;
};

// Called after every engine step: the level being run and its output tokens so far.
using SweepProgress = std::function<void(int32_t concurrency, int64_t tokens_done, int64_t tokens_total)>;

// Checks the sizes (before a model is loaded) and sorts and deduplicates the concurrencies.
Result<DecodeSweepOptions> NormalizeSweepOptions(DecodeSweepOptions options);

// A prompt and its output must fit the model's context.
Status CheckSweepFitsModel(const DecodeSweepOptions& options, const ModelConfig& model);

// The scheduler's limits for a sweep: the largest level's sequences at full length, and (where it
// fits the usual budget) all prompts of a level prefilled in one step.
EngineConfig SweepEngineConfig(const DecodeSweepOptions& options);

// A KV pool that holds every level without preemption: all sequences of the largest level at
// full length, and one more.
KvDemand SweepKvDemand(const DecodeSweepOptions& options, int32_t block_size);

// kv_bytes_per_sequence: the K/V one decode step reads for one sequence (0: weights only).
double RooflineTokensPerSecond(int32_t concurrency, double copy_bandwidth_bytes_per_s, uint64_t weight_bytes,
                               double kv_bytes_per_sequence = 0.0);

// The K/V bytes a decode step reads for one sequence at `context` tokens.
double KvBytesPerSequence(const ModelConfig& model, int32_t kv_element_bytes, double context);

// The model FLOPs of prefilling `sequences` prompts of `prompt_len` tokens: 2 per weight of every
// layer's projections per token, causal attention (4 x head_dim x query heads per query-key pair,
// keys 0..i for query i), and the LM head for each prompt's last token (the only logits a prefill
// computes). Embedding lookups and norms are not FLOPs that count.
double PrefillFlops(const ModelConfig& model, int32_t sequences, int32_t prompt_len);

// Measures the runner's copy bandwidth and matmul peak once, then runs every level (each after a short warm-up
// request) to completion.
Result<DecodeSweepResult> RunDecodeSweep(LlmEngine& engine, const DecodeSweepOptions& options,
                                         const SweepProgress& progress);

}  // namespace vt::bench
