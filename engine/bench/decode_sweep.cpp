#include "engine/bench/decode_sweep.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <utility>

#include "engine/exec/step_loop.h"
#include "engine/sched/decode_pacing.h"

namespace vt::bench {

namespace {

using Clock = std::chrono::steady_clock;

// Beyond this a level's prompts are prefilled in chunks: a larger step budget would only grow the
// backend's activation buffers, while prefill is not what this benchmark measures.
constexpr int64_t kMaxPrefillTokensPerStep = 16384;
// Enough to run prefill and a few decode steps (and, on CUDA, whatever is built on first use).
constexpr int64_t kWarmupOutputTokens = 4;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

std::vector<int32_t> RandomPrompt(std::mt19937& rng, int32_t length, int64_t vocab) {
  std::uniform_int_distribution<int32_t> token(0, static_cast<int32_t>(vocab - 1));
  std::vector<int32_t> prompt(static_cast<size_t>(length));
  for (int32_t& t : prompt) t = token(rng);
  return prompt;
}

SamplingParams GreedyFixedLength(int64_t tokens) {
  SamplingParams params;
  params.temperature = 0.0f;
  params.ignore_eos = true;
  params.max_tokens = tokens;
  return params;
}

// As many requests as the level itself, so every batch size the level will step through has run
// once (a backend that captures a CUDA graph per batch size does so here, not inside the timing).
Status Warmup(LlmEngine& engine, std::mt19937& rng, const DecodeSweepOptions& o, int32_t concurrency) {
  const int64_t vocab = engine.model_config().vocab_size;
  std::vector<RequestId> ids;
  for (int32_t i = 0; i < concurrency; ++i) {
    Result<RequestId> id =
        engine.AddRequest(RandomPrompt(rng, o.input_len, vocab),
                          GreedyFixedLength(std::min<int64_t>(o.output_len, kWarmupOutputTokens)));
    if (!id.ok()) return id.status();
    ids.push_back(*id);
  }
  VT_RETURN_IF_ERROR(RunSteps(engine, [](const StepResult&) { return true; }));
  for (RequestId id : ids) engine.TakeFinished(id);
  return Status::Ok();
}

struct TokenTimes {
  Clock::time_point first, last;
  int64_t count = 0;
};

Result<DecodeLevelResult> RunLevel(LlmEngine& engine, std::mt19937& rng, const DecodeSweepOptions& o,
                                   int32_t concurrency, const SweepProgress& progress) {
  VT_RETURN_IF_ERROR(Warmup(engine, rng, o, concurrency));
  const int64_t vocab = engine.model_config().vocab_size;
  std::vector<std::vector<int32_t>> prompts;
  for (int32_t i = 0; i < concurrency; ++i) prompts.push_back(RandomPrompt(rng, o.input_len, vocab));

  const int64_t total = static_cast<int64_t>(concurrency) * o.output_len;
  std::map<RequestId, TokenTimes> times;
  const Clock::time_point start = Clock::now();
  for (std::vector<int32_t>& prompt : prompts) {
    Result<RequestId> id = engine.AddRequest(std::move(prompt), GreedyFixedLength(o.output_len));
    if (!id.ok()) return id.status();
    times.emplace(*id, TokenTimes{});
  }
  int64_t done = 0;
  std::vector<double> decode_itl, prefill_itl, prefilling_itl;
  int32_t first_tokens = 0;
  int64_t beside_prompts = 0;
  StepLoopTimes loop;
  VT_RETURN_IF_ERROR(RunSteps(engine, [&](const StepResult& step) {
    const Clock::time_point now = Clock::now();
    // Requests that had sampled before are this step's decodes, one token each; any other token
    // the step computed was a prompt token.
    int64_t decodes = 0;
    for (const SampledResult& sampled : step.tokens) decodes += times[sampled.id].count > 0 ? 1 : 0;
    std::vector<double>& itl = step.num_tokens > decodes ? prefill_itl : decode_itl;
    const bool prompts_waiting = first_tokens < concurrency;
    for (const SampledResult& sampled : step.tokens) {
      TokenTimes& t = times[sampled.id];
      if (t.count > 0) {
        itl.push_back(Ms(now - t.last));
        if (prompts_waiting) {
          prefilling_itl.push_back(itl.back());
          beside_prompts += &itl == &prefill_itl ? 1 : 0;
        }
      }
      if (t.count++ == 0) {
        t.first = now;
        ++first_tokens;
      }
      t.last = now;
    }
    done += static_cast<int64_t>(step.tokens.size());
    if (progress) progress(concurrency, done, total);
    return true;
  }, &loop));
  const Clock::time_point end = Clock::now();

  DecodeLevelResult level;
  level.concurrency = concurrency;
  level.seconds = std::chrono::duration<double>(end - start).count();
  std::vector<double> ttft, tpot;
  double last_first_ms = 0.0;
  for (const auto& [id, t] : times) {
    engine.TakeFinished(id);
    level.output_tokens += t.count;
    if (t.count == 0) continue;
    ttft.push_back(Ms(t.first - start));
    last_first_ms = std::max(last_first_ms, ttft.back());
    if (t.count > 1) tpot.push_back(Ms(t.last - t.first) / static_cast<double>(t.count - 1));
  }
  level.output_tokens_per_s = level.seconds > 0 ? static_cast<double>(level.output_tokens) / level.seconds : 0.0;
  level.prefill_tokens_per_s =
      last_first_ms > 0 ? static_cast<double>(concurrency) * o.input_len / (last_first_ms / 1e3) : 0.0;
  level.ttft_ms = Summarize(ttft);
  level.tpot_ms = Summarize(tpot);
  level.decode_itl_ms = Summarize(decode_itl);
  level.prefill_itl_ms = Summarize(prefill_itl);
  level.prefilling_itl_ms = Summarize(prefilling_itl);
  level.prefilling_itl_beside_prompts = beside_prompts;
  if (!prefilling_itl.empty()) {
    level.prefilling_itl_mean_ms = std::accumulate(prefilling_itl.begin(), prefilling_itl.end(), 0.0) /
                                   static_cast<double>(prefilling_itl.size());
  }
  level.between_steps_us =
      loop.steps > 0 ? static_cast<double>(loop.between_steps_ns.load()) / 1e3 / static_cast<double>(loop.steps) : 0.0;
  return level;
}

}  // namespace

Result<DecodeSweepOptions> NormalizeSweepOptions(DecodeSweepOptions o) {
  if (o.concurrencies.empty()) return InvalidArgument("--concurrency: give at least one level, e.g. 1,2,4,8");
  for (int32_t c : o.concurrencies) {
    if (c < 1) return InvalidArgument("--concurrency " + std::to_string(c) + ": levels must be at least 1");
  }
  if (o.input_len < 1) return InvalidArgument("--input-len " + std::to_string(o.input_len) + ": must be at least 1");
  if (o.output_len < 1) return InvalidArgument("--output-len " + std::to_string(o.output_len) + ": must be at least 1");
  VT_RETURN_IF_ERROR(CheckMaxDecodeSlowdown(o.max_decode_slowdown));
  std::sort(o.concurrencies.begin(), o.concurrencies.end());
  o.concurrencies.erase(std::unique(o.concurrencies.begin(), o.concurrencies.end()), o.concurrencies.end());
  return o;
}

Status CheckSweepFitsModel(const DecodeSweepOptions& o, const ModelConfig& model) {
  const int64_t length = static_cast<int64_t>(o.input_len) + o.output_len;
  if (length > model.max_position_embeddings) {
    return InvalidArgument("--input-len " + std::to_string(o.input_len) + " + --output-len " +
                           std::to_string(o.output_len) + " = " + std::to_string(length) +
                           " tokens exceeds the model's context of " + std::to_string(model.max_position_embeddings));
  }
  return Status::Ok();
}

EngineConfig SweepEngineConfig(const DecodeSweepOptions& o) {
  const int64_t max_concurrency = o.concurrencies.empty() ? 1 : o.concurrencies.back();
  const int64_t length = static_cast<int64_t>(o.input_len) + o.output_len;
  EngineConfig config;
  config.scheduler.max_num_seqs = static_cast<int32_t>(max_concurrency);
  config.scheduler.max_model_len = length;
  config.scheduler.max_num_batched_tokens =
      o.max_num_batched_tokens > 0 ? o.max_num_batched_tokens
                                   : std::clamp<int64_t>(max_concurrency * o.input_len, 512, kMaxPrefillTokensPerStep);
  if (o.max_prefill_tokens_beside_decodes > 0) {
    config.scheduler.max_prefill_tokens_beside_decodes = o.max_prefill_tokens_beside_decodes;
  }
  config.scheduler.max_decode_slowdown = o.max_decode_slowdown;
  return config;
}

KvDemand SweepKvDemand(const DecodeSweepOptions& o, int32_t block_size) {
  // The largest level at full length plus one sequence: nothing is preempted in a measured run, and
  // the blocks warm-up requests leave in the prefix cache are free ones, reused without recompute.
  const int64_t max_concurrency = o.concurrencies.empty() ? 1 : o.concurrencies.back();
  return KvDemand::Uniform(max_concurrency + 1, static_cast<int64_t>(o.input_len) + o.output_len, block_size);
}

double RooflineTokensPerSecond(int32_t concurrency, double copy_bandwidth_bytes_per_s, uint64_t weight_bytes,
                               double kv_bytes_per_sequence) {
  if (weight_bytes == 0) return 0.0;
  const double step_bytes = static_cast<double>(weight_bytes) + concurrency * kv_bytes_per_sequence;
  return static_cast<double>(concurrency) * copy_bandwidth_bytes_per_s / step_bytes;
}

double KvBytesPerSequence(const ModelConfig& model, int32_t kv_element_bytes, double context) {
  return 2.0 * static_cast<double>(model.num_layers) * static_cast<double>(model.kv_size()) * kv_element_bytes * context;
}

double PrefillFlops(const ModelConfig& model, int32_t sequences, int32_t prompt_len) {
  const double hidden = static_cast<double>(model.hidden_size), q = static_cast<double>(model.q_size());
  const double layer_weights = hidden * (q + 2.0 * static_cast<double>(model.kv_size())) + q * hidden +
                               3.0 * hidden * static_cast<double>(model.intermediate_size);
  const double tokens = static_cast<double>(sequences) * prompt_len;
  const double pairs = static_cast<double>(sequences) * prompt_len * (prompt_len + 1.0) / 2.0;
  const double layers = static_cast<double>(model.num_layers);
  return layers * (2.0 * layer_weights * tokens + 4.0 * q * pairs) +
         2.0 * hidden * static_cast<double>(model.vocab_size) * sequences;
}

Result<DecodeSweepResult> RunDecodeSweep(LlmEngine& engine, const DecodeSweepOptions& options,
                                         const SweepProgress& progress) {
  DecodeSweepResult result;
  result.backend = engine.runner().backend();
  result.weight_bytes = engine.runner().weight_bytes();
  Result<double> bandwidth = engine.runner().MeasureCopyBandwidth();
  if (!bandwidth.ok()) return bandwidth.status();
  result.copy_bandwidth_bytes_per_s = *bandwidth;
  // A backend without a matmul probe (the CPU) still gets its prefill rate, without an MFU.
  Result<double> matmul = engine.runner().MeasureMatmulPeak();
  result.matmul_flops_per_s = matmul.ok() ? *matmul : 0.0;

  std::mt19937 rng(static_cast<std::mt19937::result_type>(options.seed));
  for (int32_t concurrency : options.concurrencies) {
    Result<DecodeLevelResult> level = RunLevel(engine, rng, options, concurrency, progress);
    if (!level.ok()) return level.status();
    // Decode steps run at contexts from input_len to input_len + output_len: the mean is the middle.
    level->kv_bytes_per_sequence = KvBytesPerSequence(engine.model_config(), engine.runner().kv_element_bytes(),
                                                      options.input_len + options.output_len / 2.0);
    level->roofline_tokens_per_s = RooflineTokensPerSecond(concurrency, result.copy_bandwidth_bytes_per_s,
                                                           result.weight_bytes, level->kv_bytes_per_sequence);
    level->roofline_fraction =
        level->roofline_tokens_per_s > 0 ? level->output_tokens_per_s / level->roofline_tokens_per_s : 0.0;
    if (level->prefill_tokens_per_s > 0 && result.matmul_flops_per_s > 0) {
      const double seconds = static_cast<double>(concurrency) * options.input_len / level->prefill_tokens_per_s;
      level->prefill_mfu =
          PrefillFlops(engine.model_config(), concurrency, options.input_len) / seconds / result.matmul_flops_per_s;
    }
    result.levels.push_back(std::move(*level));
  }
  return result;
}

}  // namespace vt::bench
