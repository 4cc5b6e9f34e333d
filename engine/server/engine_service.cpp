#include "engine/server/engine_service.h"

#include <utility>

#include "engine/exec/step_loop.h"

namespace vt::server {

using Clock = std::chrono::steady_clock;

StreamUpdate ResultStream::Take() {
  std::lock_guard<std::mutex> lock(mu_);
  StreamUpdate out = std::move(pending_);
  pending_ = StreamUpdate{};
  return out;
}

void ResultStream::OnUpdate(std::function<void()> wake) {
  bool ready = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    wake_ = std::move(wake);
    ready = !pending_.tokens.empty() || done_;
  }
  if (ready) Wake();
}

void ResultStream::Wake() {
  std::function<void()> wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    wake = wake_;
  }
  if (wake) wake();
}

bool ResultStream::Add(const SampledResult* token, std::optional<FinishReason> finish) {
  std::lock_guard<std::mutex> lock(mu_);
  const bool taken = pending_.tokens.empty() && !pending_.finish;
  if (token != nullptr) pending_.tokens.push_back(*token);
  if (finish) {
    pending_.finish = finish;
    done_ = true;
  }
  // Without a wake function nobody reads yet: OnUpdate wakes once it is set.
  return taken && wake_ != nullptr;
}

void ResultStream::Finish(FinishReason reason) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.finish = reason;
    done_ = true;
  }
  Wake();
}

void ResultStream::Fail(Status status) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.error = std::move(status);
    done_ = true;
  }
  Wake();
}

EngineService::EngineService(std::unique_ptr<LlmEngine> engine, int max_waiting)
    : engine_(std::move(engine)),
      model_config_(engine_->model_config()),
      max_model_len_(engine_->config().scheduler.max_model_len),
      max_waiting_(max_waiting) {
  thread_ = std::thread([this] { Loop(); });
}

EngineService::~EngineService() { Stop(); }

void EngineService::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Result<std::shared_ptr<ResultStream>> EngineService::Submit(std::vector<int32_t> prompt, SamplingParams params) {
  auto stream = std::make_shared<ResultStream>();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return Unavailable("the server is shutting down");
    if (static_cast<int64_t>(pending_.size()) + gauges_.waiting >= max_waiting_) {
      return Unavailable("the server is overloaded: " + std::to_string(max_waiting_) + " requests are already waiting");
    }
    pending_.push_back({std::move(prompt), std::move(params), stream});
  }
  cv_.notify_all();
  return stream;
}

ServerGauges EngineService::Gauges() const {
  std::lock_guard<std::mutex> lock(mu_);
  ServerGauges g = gauges_;
  g.waiting += static_cast<int64_t>(pending_.size());
  return g;
}

void EngineService::TakePending() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    admitting_.swap(pending_);
  }
  AdmitPending();
}

void EngineService::AdmitPending() {
  for (Pending& p : admitting_) {
    const int64_t prompt_tokens = static_cast<int64_t>(p.prompt.size());
    Result<RequestId> id = engine_->AddRequest(std::move(p.prompt), std::move(p.params));
    if (!id.ok()) {
      p.stream->Fail(id.status());
      continue;
    }
    metrics_.prompt_tokens.fetch_add(prompt_tokens);
    live_[*id] = p.stream;
  }
  admitting_.clear();
}

void EngineService::AbortCancelled() {
  for (auto it = live_.begin(); it != live_.end();) {
    if (!it->second->cancelled()) {
      ++it;
      continue;
    }
    engine_->Abort(it->first);
    engine_->TakeFinished(it->first);
    it->second->Finish(FinishReason::kAborted);
    it = live_.erase(it);
  }
}

// Runs on the engine thread between steps, so it does no per-token work beyond what a token must
// cost: each stream's lock and a copy of its token. The streams to wake are handed to the I/O
// threads in one batch (wake_queue.h); text and SSE events are made there, when they poll.
void EngineService::Publish(const StepResult& step) {
  const Clock::time_point now = Clock::now();
  std::map<RequestId, FinishReason> finished;
  for (RequestId id : step.finished) {
    std::unique_ptr<Request> r = engine_->TakeFinished(id);
    finished[id] = r ? r->finish : FinishReason::kAborted;
  }
  int64_t tokens = 0;
  for (const SampledResult& t : step.tokens) {
    auto it = live_.find(t.id);
    if (it == live_.end()) continue;
    ResultStream& s = *it->second;
    const double since = std::chrono::duration<double>(now - (s.last_token_ ? *s.last_token_ : s.arrival_)).count();
    (s.last_token_ ? metrics_.inter_token_latency : metrics_.time_to_first_token).Observe(since);
    s.last_token_ = now;
    ++tokens;
    auto done = finished.find(t.id);
    if (done == finished.end()) {
      if (s.Add(&t, std::nullopt)) woken_.push_back(it->second);
      continue;
    }
    if (s.Add(&t, done->second)) woken_.push_back(it->second);
    metrics_.e2e_latency.Observe(std::chrono::duration<double>(now - s.arrival_).count());
    metrics_.requests_finished.fetch_add(1);
    live_.erase(it);
    finished.erase(done);
  }
  metrics_.generation_tokens.fetch_add(tokens);
  for (const auto& [id, reason] : finished) {  // finished without a token this step
    auto it = live_.find(id);
    if (it == live_.end()) continue;
    metrics_.e2e_latency.Observe(std::chrono::duration<double>(now - it->second->arrival_).count());
    metrics_.requests_finished.fetch_add(1);
    if (it->second->Add(nullptr, reason)) woken_.push_back(it->second);
    live_.erase(it);
  }
  wakes_->Hand(woken_);
}

void EngineService::RefreshGaugesLocked() {
  gauges_.running = static_cast<int64_t>(engine_->scheduler().num_running());
  gauges_.waiting = static_cast<int64_t>(engine_->scheduler().num_waiting());
  const int32_t blocks = engine_->kv().num_blocks();
  gauges_.kv_cache_usage = blocks > 0 ? 1.0 - double(engine_->kv().num_free_blocks()) / blocks : 0.0;
  metrics_.prefix_cache_hit_tokens.store(engine_->kv().prefix_hit_tokens());
  metrics_.num_preemptions.store(engine_->scheduler().num_preemptions());
  metrics_.paced_steps.store(engine_->scheduler().num_paced_steps());
}

// Tokens out, then new requests in and cancelled ones out: one lock of mu_ for the gauges, the
// stop flag and the queued requests.
bool EngineService::BetweenSteps(const StepResult& step) {
  Publish(step);
  {
    std::lock_guard<std::mutex> lock(mu_);
    RefreshGaugesLocked();
    if (stopping_) return false;
    admitting_.swap(pending_);
  }
  AdmitPending();
  AbortCancelled();
  return true;
}

void EngineService::Loop() {
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !pending_.empty() || !live_.empty(); });
      if (stopping_) break;
    }
    TakePending();
    AbortCancelled();
    const Status ran =
        RunSteps(*engine_, [this](const StepResult& step) { return BetweenSteps(step); }, &metrics_.step_loop);
    if (!ran.ok()) {
      for (auto& [id, stream] : live_) {
        engine_->Abort(id);
        engine_->TakeFinished(id);
        stream->Fail(ran);
      }
      live_.clear();
    }
    std::lock_guard<std::mutex> lock(mu_);
    RefreshGaugesLocked();
  }
  for (auto& [id, stream] : live_) {
    engine_->Abort(id);
    engine_->TakeFinished(id);
    stream->Finish(FinishReason::kAborted);
  }
  live_.clear();
  std::lock_guard<std::mutex> lock(mu_);
  for (Pending& p : pending_) p.stream->Fail(Unavailable("the server is shutting down"));
  pending_.clear();
  gauges_ = ServerGauges{};
}

}  // namespace vt::server
