// The step loop: scheduler step → one batched forward → sampling → scheduler
// update. One thread owns an LlmEngine; callers add requests and call Step()
// until nothing is left.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "engine/grammar/grammar_constraint.h"
#include "engine/grammar/grammar_matcher.h"
#include "engine/kv/kv_cache_manager.h"
#include "engine/exec/model_runner.h"
#include "engine/exec/forward_batch.h"
#include "engine/sched/scheduler.h"
#include "engine/tokenizer/tokenizer.h"
#include "kernels/cpu/thread_pool.h"

namespace vt {

struct EngineConfig {
  int32_t block_size = 16;
  int32_t num_kv_blocks = 0;  // the runner's pool decides; a backend factory sizes it by KvPoolBlocks
  bool prefix_caching = true;
  SchedulerConfig scheduler;
};

// The context a run serves: `requested` tokens (max_model_len), at most the model's own context;
// the model's when none is requested (<= 0).
int64_t ResolveMaxModelLen(int64_t requested, const ModelConfig& model);

struct StepResult {
  std::vector<SampledResult> tokens;  // one per request that sampled this step
  std::vector<RequestId> finished;
  int64_t num_tokens = 0;             // tokens computed
};

class LlmEngine {
 public:
  // Runs on `runner`, whose KV pool decides config's num_kv_blocks and block_size, and whose
  // buffers and model cap the scheduler's limits.
  LlmEngine(std::unique_ptr<ModelRunner> runner, EngineConfig config);

  // With a tokenizer the engine detokenises every output (SampledResult::text) and ends a request
  // at its first stop string; without one, requests with stop strings are refused.
  void set_tokenizer(std::shared_ptr<const Tokenizer> tokenizer) { tokenizer_ = std::move(tokenizer); }

  Result<RequestId> AddRequest(std::vector<int32_t> prompt, SamplingParams params);
  void Abort(RequestId id) {
    scheduler_.Abort(id);
    matchers_.erase(id);
  }

  Result<StepResult> Step();
  bool HasUnfinished() const { return scheduler_.HasUnfinished(); }

  std::unique_ptr<Request> TakeFinished(RequestId id) {
    matchers_.erase(id);
    return scheduler_.TakeFinished(id);
  }
  const ModelConfig& model_config() const { return runner_->config(); }
  ModelRunner& runner() { return *runner_; }
  const KvCacheManager& kv() const { return kv_; }
  const Scheduler& scheduler() const { return scheduler_; }
  const EngineConfig& config() const { return config_; }

 private:
  // The tokens request `id`'s grammar lets it draw next, EOS included where the grammar may end;
  // an error when there are none.
  Status GrammarMask(RequestId id, const grammar::GrammarConstraint& constraint, grammar::TokenBitmask* mask);
  // Records the token request `id` drew; its grammar advances over it before its next mask.
  void AdvanceGrammar(RequestId id, int32_t token);
  // Plans the adjustments and computes the grammar masks of a step's draws (the runner calls it
  // while the forward runs); a row whose grammar cannot go on is marked in `failed`.
  void PrepareRows(const std::vector<RowDraw>& draws, const std::vector<const Request*>& drawn_for,
                   std::vector<char>* failed);
  // Detokenises this step's tokens and finishes the requests whose text reached a stop string.
  void ApplyText(StepResult& result);

  std::unique_ptr<ModelRunner> runner_;
  EngineConfig config_;
  KvCacheManager kv_;
  Scheduler scheduler_;
  RequestId next_id_ = 0;
  std::mt19937_64 seed_source_;
  // The grammar state of each constrained request, advanced by every token it draws. The advance
  // waits for the request's next mask (`drawn`), which the device path computes while the GPU runs
  // the next forward, so it costs the step nothing.
  struct GrammarState {
    grammar::GrammarMatcher matcher;
    int32_t drawn = -1;  // the token drawn last, not yet advanced over; -1: none
  };
  std::unordered_map<RequestId, GrammarState> matchers_;
  std::vector<grammar::TokenBitmask> masks_;  // scratch: one step's grammar masks, by sampling row
  std::vector<LogitsAdjustment> adjustments_;  // scratch: one step's planned adjustments, by sampling row
  // Rows are independent (each its own matcher; the shared mask table locks what it memoises), so a
  // step of many constrained rows prepares them on a few threads: serially, 64 rows' masks can
  // outlast a short forward and delay the draw. Started by the first such step.
  std::unique_ptr<kernels::cpu::ThreadPool> prepare_pool_;
  std::shared_ptr<const Tokenizer> tokenizer_;
};

}  // namespace vt
