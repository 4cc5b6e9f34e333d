#include "engine/sched/scheduler.h"

#include <algorithm>

namespace vt {

Scheduler::Scheduler(SchedulerConfig config, KvCacheManager* kv)
    : config_(std::move(config)), kv_(kv), pacing_(config_.max_decode_slowdown) {}

Status Scheduler::Add(std::unique_ptr<Request> r) {
  if (r->prompt.empty()) return InvalidArgument("request " + std::to_string(r->id) + ": empty prompt");
  if (r->params.max_tokens < 1) return InvalidArgument("max_tokens must be at least 1");
  if (r->num_tokens() >= config_.max_model_len) {
    return InvalidArgument("prompt of " + std::to_string(r->num_tokens()) + " tokens does not fit the context of " +
                           std::to_string(config_.max_model_len));
  }
  // A request that fits the pool alone always finishes: preemption frees
  // everyone else's blocks before it would ever have to preempt itself. (max_tokens is bounded by the
  // context first: near INT64_MAX the sum would wrap negative and pass the check.)
  const int64_t longest =
      std::min(r->num_tokens() + std::min(r->params.max_tokens, config_.max_model_len), config_.max_model_len);
  // Without chunked prefill a prompt, and after a preemption the prompt and its output, must be computed
  // in one step: a request that could outgrow the step's budget would wait at the queue's head forever.
  if (!config_.chunked_prefill && longest > config_.max_num_batched_tokens) {
    return InvalidArgument("request of up to " + std::to_string(longest) + " tokens exceeds the step budget of " +
                           std::to_string(config_.max_num_batched_tokens) + " tokens, and chunked prefill is off");
  }
  const int64_t blocks = (longest + kv_->block_size() - 1) / kv_->block_size();
  if (blocks > kv_->num_blocks()) {
    return Status(StatusCode::kResourceExhausted,
                  "request needs " + std::to_string(blocks) + " KV blocks, the cache has " +
                      std::to_string(kv_->num_blocks()));
  }
  if (requests_.count(r->id)) return InvalidArgument("duplicate request id " + std::to_string(r->id));
  Request* raw = r.get();
  raw->state = RequestState::kWaiting;
  requests_.emplace(raw->id, std::move(r));
  waiting_.push_back(raw);
  return Status::Ok();
}

void Scheduler::Abort(RequestId id) {
  auto it = requests_.find(id);
  if (it == requests_.end() || it->second->state == RequestState::kFinished) return;
  Finish(it->second.get(), FinishReason::kAborted);
}

void Scheduler::FinishWith(RequestId id, FinishReason reason) {
  auto it = requests_.find(id);
  if (it == requests_.end()) return;
  Request* r = it->second.get();
  if (r->state == RequestState::kFinished) {
    r->finish = reason;
    return;
  }
  Finish(r, reason);
}

ScheduledChunk Scheduler::MakeChunk(const Request& r, int64_t n) const {
  ScheduledChunk c;
  c.id = r.id;
  c.start_pos = r.num_computed;
  for (int64_t i = 0; i < n; ++i) c.tokens.push_back(r.TokenAt(r.num_computed + i));
  c.block_table = kv_->BlockTable(r.id);
  c.sample = r.num_computed + n == r.num_tokens();
  return c;
}

SchedulerStep Scheduler::Schedule() {
  SchedulerStep step;
  int64_t budget = config_.max_num_batched_tokens;
  std::vector<std::pair<Request*, int64_t>> planned;

  // Gives running request r n more tokens, preempting the newest running requests while blocks run
  // out; false when r preempted itself. A victim planned earlier in this step loses its place.
  auto plan_running = [&](Request* r, int64_t n) {
    while (!kv_->Allocate(r->id, r->num_computed + n)) {
      Request* victim = running_.back();
      running_.pop_back();
      Preempt(victim);
      step.preempted.push_back(victim->id);
      auto it = std::find_if(planned.begin(), planned.end(), [&](const auto& p) { return p.first == victim; });
      if (it != planned.end()) {
        budget += it->second;
        planned.erase(it);
      }
      if (victim == r) return false;
    }
    planned.emplace_back(r, n);
    budget -= n;
    return true;
  };

  // Decodes first (running requests with one token to compute): a long prompt's chunks can then
  // delay them by at most one step's prefill share, never skip them. Iterating a copy, since a
  // preemption removes requests from running_.
  const std::vector<Request*> running = running_;
  auto still_running = [&](Request* r) { return r->state == RequestState::kRunning; };
  for (Request* r : running) {
    if (budget <= 0) break;
    if (!still_running(r) || r->num_tokens() - r->num_computed != 1) continue;
    if (!plan_running(r, 1)) break;
  }
  // Prefill chunks share a step with decodes up to their own budget, so the decodes' inter-token
  // latency stays bounded while long prompts prefill, and not at all while the pace says the
  // decodes are owed steps of their own; a step without decodes takes the whole budget.
  std::vector<Request*> decoding;  // a preemption below may still take some of them out of the step
  for (const auto& [r, n] : planned) decoding.push_back(r);
  if (!decoding.empty()) {
    const bool paced = !pacing_.AllowsPrefillBeside(static_cast<int64_t>(decoding.size()));
    budget = paced ? 0 : std::min(budget, config_.max_prefill_tokens_beside_decodes);
    // Counted only when a prompt had tokens to run; looked for only on the steps the pace holds.
    auto prefilling = [&](Request* r) { return still_running(r) && r->num_tokens() - r->num_computed > 1; };
    if (paced && (!waiting_.empty() || std::any_of(running.begin(), running.end(), prefilling))) ++num_paced_steps_;
  }
  for (Request* r : running) {
    if (budget <= 0) break;
    const int64_t remaining = r->num_tokens() - r->num_computed;
    if (!still_running(r) || remaining <= 1) continue;
    if (!plan_running(r, std::min(remaining, budget))) break;
  }

  // Admitting while preempting would only thrash: wait for blocks to free up.
  if (step.preempted.empty()) {
    while (!waiting_.empty() && budget > 0 && static_cast<int32_t>(running_.size()) < config_.max_num_seqs) {
      Request* r = waiting_.front();
      const std::vector<int32_t> tokens = r->AllTokens();
      if (r->num_computed == 0) r->num_computed = kv_->AttachCachedPrefix(r->id, tokens);
      const int64_t remaining = r->num_tokens() - r->num_computed;
      const int64_t n = std::min(remaining, budget);
      if ((n < remaining && !config_.chunked_prefill) || !kv_->Allocate(r->id, r->num_computed + n)) {
        kv_->Free(r->id);
        r->num_computed = 0;
        break;
      }
      waiting_.pop_front();
      r->state = RequestState::kRunning;
      running_.push_back(r);
      planned.emplace_back(r, n);
      budget -= n;
    }
  }

  for (const auto& [r, n] : planned) {
    step.chunks.push_back(MakeChunk(*r, n));
    step.num_tokens += n;
    if (std::find(decoding.begin(), decoding.end(), r) != decoding.end()) ++step.num_decodes;
  }
  return step;
}

void Scheduler::RecordStepTime(const SchedulerStep& step, double seconds) {
  pacing_.Record(step.num_decodes, step.num_tokens - step.num_decodes, seconds);
}

std::vector<RequestId> Scheduler::Update(const SchedulerStep& step, const std::vector<SampledResult>& sampled) {
  std::vector<RequestId> finished;
  size_t next = 0;
  for (const ScheduledChunk& c : step.chunks) {
    // The chunk's sample is consumed before anything skips the chunk, so the chunks after it still
    // find their own.
    const bool sampled_here = c.sample && next < sampled.size() && sampled[next].id == c.id;
    const SampledToken* token = sampled_here ? &sampled[next++].token : nullptr;
    auto it = requests_.find(c.id);
    if (it == requests_.end()) continue;  // aborted and taken during the step
    Request* r = it->second.get();
    // Aborted during the step: its blocks are already gone.
    if (r->state != RequestState::kRunning) continue;
    r->num_computed = c.start_pos + static_cast<int64_t>(c.tokens.size());
    if (kv_->HasBlocksToCache(r->id, r->num_computed)) kv_->CacheComputed(r->id, r->AllTokens(), r->num_computed);
    if (token == nullptr) continue;
    r->output.push_back(token->token);
    if (r->params.logprobs >= 0) r->output_logprobs.push_back(*token);
    if (CheckStop(r)) finished.push_back(r->id);
  }
  return finished;
}

bool Scheduler::CheckStop(Request* r) {
  const int32_t last = r->output.back();
  const auto& stops = r->params.stop_token_ids;
  const auto& eos = config_.eos_token_ids;
  if (std::find(stops.begin(), stops.end(), last) != stops.end() ||
      (!r->params.ignore_eos && std::find(eos.begin(), eos.end(), last) != eos.end())) {
    Finish(r, FinishReason::kStop);
    return true;
  }
  if (static_cast<int64_t>(r->output.size()) >= r->params.max_tokens || r->num_tokens() >= config_.max_model_len) {
    Finish(r, FinishReason::kLength);
    return true;
  }
  return false;
}

void Scheduler::Preempt(Request* r) {
  kv_->Free(r->id);
  r->num_computed = 0;
  r->state = RequestState::kWaiting;
  ++r->num_preemptions;
  ++num_preemptions_;
  waiting_.push_front(r);
}

void Scheduler::Finish(Request* r, FinishReason reason) {
  kv_->Free(r->id);
  r->state = RequestState::kFinished;
  r->finish = reason;
  running_.erase(std::remove(running_.begin(), running_.end(), r), running_.end());
  waiting_.erase(std::remove(waiting_.begin(), waiting_.end(), r), waiting_.end());
}

std::unique_ptr<Request> Scheduler::TakeFinished(RequestId id) {
  auto it = requests_.find(id);
  if (it == requests_.end() || it->second->state != RequestState::kFinished) return nullptr;
  std::unique_ptr<Request> r = std::move(it->second);
  requests_.erase(it);
  return r;
}

const Request* Scheduler::Find(RequestId id) const {
  auto it = requests_.find(id);
  return it == requests_.end() ? nullptr : it->second.get();
}

Request* Scheduler::Find(RequestId id) {
  auto it = requests_.find(id);
  return it == requests_.end() ? nullptr : it->second.get();
}

}  // namespace vt
