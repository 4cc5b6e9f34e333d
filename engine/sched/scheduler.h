// Continuous batching: every step takes the running decodes first (one token
// each), then the next chunks of running prompts, then admits waiting requests
// in arrival order while the token budget and KV blocks last; prompt chunks
// beside decodes keep to a smaller budget of their own, so long prompts cannot
// stall the decodes, and optionally a pace (decode_pacing.h) that bounds the decodes'
// mean step time while prompts prefill. When blocks run out the newest running request is
// preempted (its blocks freed, to be recomputed later) instead of anything failing.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "engine/kv/kv_cache_manager.h"
#include "engine/sched/decode_pacing.h"
#include "engine/sched/request.h"
#include "engine/sched/scheduler_step.h"

namespace vt {

struct SchedulerConfig {
  int64_t max_num_batched_tokens = 512;  // token budget of one step
  // Prompt tokens a step may carry beside running decodes (their inter-token latency grows with
  // it); a step without decodes uses the whole budget above.
  int64_t max_prefill_tokens_beside_decodes = 256;
  // While prompts prefill beside running decodes, the decodes' mean step time stays within this
  // multiple of a step of decodes alone (decode_pacing.h): prompts then wait out some steps. 0: no
  // such bound (prompts join the decodes at every step, up to the share above).
  double max_decode_slowdown = 0.0;
  int32_t max_num_seqs = 64;
  bool chunked_prefill = true;
  int64_t max_model_len = 4096;
  std::vector<int32_t> eos_token_ids;
};

struct SampledResult {
  RequestId id = 0;
  SampledToken token;
  // The text this token released (the engine's detokenizer; empty without a tokenizer): cut
  // before a stop string, and with the held-back tail when the request finished here.
  std::string text;
};

class Scheduler {
 public:
  Scheduler(SchedulerConfig config, KvCacheManager* kv);

  // Queues a request; rejects one that could never fit the context or the
  // whole KV pool.
  Status Add(std::unique_ptr<Request> request);

  // Finishes a request now (client gone), freeing its blocks.
  void Abort(RequestId id);

  // Finishes a request for a reason found outside the scheduler (a stop string in its text),
  // freeing its blocks; one that already finished this step takes `reason` instead of its own.
  void FinishWith(RequestId id, FinishReason reason);

  SchedulerStep Schedule();

  // Applies a step's results: advances computed counts, appends sampled
  // tokens, applies stop conditions and frees finished requests' blocks.
  // Returns the ids that finished.
  std::vector<RequestId> Update(const SchedulerStep& step, const std::vector<SampledResult>& sampled);

  // How long a scheduled step took to run, wall time: what paces prompts beside the decodes.
  void RecordStepTime(const SchedulerStep& step, double seconds);

  // Finished requests are kept until taken.
  std::unique_ptr<Request> TakeFinished(RequestId id);

  const Request* Find(RequestId id) const;
  Request* Find(RequestId id);
  bool HasUnfinished() const { return !waiting_.empty() || !running_.empty(); }
  size_t num_waiting() const { return waiting_.size(); }
  size_t num_running() const { return running_.size(); }
  int64_t num_preemptions() const { return num_preemptions_; }
  // Steps in which the pace (SchedulerConfig::max_decode_slowdown) kept prompt tokens that could
  // have run out of a step of decodes: how often the bound costs prompts their time.
  int64_t num_paced_steps() const { return num_paced_steps_; }

 private:
  void Preempt(Request* r);
  void Finish(Request* r, FinishReason reason);
  bool CheckStop(Request* r);
  ScheduledChunk MakeChunk(const Request& r, int64_t n) const;

  SchedulerConfig config_;
  KvCacheManager* kv_;
  std::map<RequestId, std::unique_ptr<Request>> requests_;
  std::deque<Request*> waiting_;
  std::vector<Request*> running_;  // in admission order; the back is preempted first
  DecodePacing pacing_;
  int64_t num_preemptions_ = 0;
  int64_t num_paced_steps_ = 0;
};

}  // namespace vt
