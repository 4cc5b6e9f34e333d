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

void ResultStream::Push(const SampledResult& token) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.tokens.push_back(token);
  }
  Wake();
}

void ResultStream::PushFinal(const SampledResult& token, FinishReason reason) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.tokens.push_back(token);
    pending_.finish = reason;
    done_ = true;
  }
  Wake();
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

void EngineService::AdmitPending() {
  std::deque<Pending> batch;
  {
    std::lock_guard<std::mutex> lock(mu_);
    batch.swap(pending_);
  }
  for (Pending& p : batch) {
    const int64_t prompt_tokens = static_cast<int64_t>(p.prompt.size());
    Result<RequestId> id = engine_->AddRequest(std::move(p.prompt), std::move(p.params));
    if (!id.ok()) {
      p.stream->Fail(id.status());
      continue;
    }
    metrics_.prompt_tokens.fetch_add(prompt_tokens);
    live_[*id] = p.stream;
  }
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

void EngineService::Publish(const StepResult& step) {
  const Clock::time_point now = Clock::now();
  std::map<RequestId, FinishReason> finished;
  for (RequestId id : step.finished) {
    std::unique_ptr<Request> r = engine_->TakeFinished(id);
    finished[id] = r ? r->finish : FinishReason::kAborted;
  }
  for (const SampledResult& t : step.tokens) {
    auto it = live_.find(t.id);
    if (it == live_.end()) continue;
    ResultStream& s = *it->second;
    const double since = std::chrono::duration<double>(now - (s.last_token_ ? *s.last_token_ : s.arrival_)).count();
    (s.last_token_ ? metrics_.inter_token_latency : metrics_.time_to_first_token).Observe(since);
    s.last_token_ = now;
    metrics_.generation_tokens.fetch_add(1);
    auto done = finished.find(t.id);
    if (done == finished.end()) {
      s.Push(t);
      continue;
    }
    s.PushFinal(t, done->second);
    metrics_.e2e_latency.Observe(std::chrono::duration<double>(now - s.arrival_).count());
    metrics_.requests_finished.fetch_add(1);
    live_.erase(it);
    finished.erase(done);
  }
  for (const auto& [id, reason] : finished) {  // finished without a token this step
    auto it = live_.find(id);
    if (it == live_.end()) continue;
    metrics_.e2e_latency.Observe(std::chrono::duration<double>(now - it->second->arrival_).count());
    metrics_.requests_finished.fetch_add(1);
    it->second->Finish(reason);
    live_.erase(it);
  }
}

void EngineService::RefreshGauges() {
  std::lock_guard<std::mutex> lock(mu_);
  gauges_.running = static_cast<int64_t>(engine_->scheduler().num_running());
  gauges_.waiting = static_cast<int64_t>(engine_->scheduler().num_waiting());
  const int32_t blocks = engine_->kv().num_blocks();
  gauges_.kv_cache_usage = blocks > 0 ? 1.0 - double(engine_->kv().num_free_blocks()) / blocks : 0.0;
  metrics_.prefix_cache_hit_tokens.store(engine_->kv().prefix_hit_tokens());
  metrics_.num_preemptions.store(engine_->scheduler().num_preemptions());
}

void EngineService::Loop() {
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !pending_.empty() || !live_.empty(); });
      if (stopping_) break;
    }
    AdmitPending();
    AbortCancelled();
    // Between steps: tokens out, then new requests in and cancelled ones out, until shutdown.
    const Status ran = RunSteps(*engine_, [&](const StepResult& step) {
      Publish(step);
      RefreshGauges();
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (stopping_) return false;
      }
      AdmitPending();
      AbortCancelled();
      return true;
    }, &metrics_.step_loop);
    if (!ran.ok()) {
      for (auto& [id, stream] : live_) {
        engine_->Abort(id);
        engine_->TakeFinished(id);
        stream->Fail(ran);
      }
      live_.clear();
    }
    RefreshGauges();
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
