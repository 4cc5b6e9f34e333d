// The engine behind the HTTP server: one thread owns the LlmEngine and runs the step loop;
// HTTP threads submit requests and read each request's tokens, with the text the engine's
// detokenizer released for them, from its ResultStream. A cancelled stream (the client went away) is aborted at the next step, which frees its KV
// blocks.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "base/status.h"
#include "engine/exec/llm_engine.h"
#include "engine/server/metrics.h"
#include "engine/server/wake_queue.h"

namespace vt::server {

struct StreamUpdate {
  std::vector<SampledResult> tokens;   // new since the last Wait, each with its text
  std::optional<FinishReason> finish;  // set with the last update
  Status error;                        // the engine could not run the request
};

class ResultStream {
 public:
  // Returns what arrived since the last call, without waiting.
  StreamUpdate Take();
  // `wake` runs after an update finds everything before it taken (and once now when one is
  // already there): on an I/O thread once the server has attached them (EngineService::WakeOn),
  // else on the engine thread. The server's connection takes it from there, so nothing polls or
  // sleeps; an update that arrives before the last one was taken needs no wake of its own.
  void OnUpdate(std::function<void()> wake);
  // Asks the engine to abort this request at its next step.
  void Cancel() { cancelled_.store(true); }
  bool cancelled() const { return cancelled_.load(); }

 private:
  friend class EngineService;
  friend class WakeQueue;
  // A step's token and, when the request ended with it, the end (the two arrive together, so a
  // reader never sees one without the other), or the end alone; the caller wakes the reader when
  // this returns true (it had taken everything before, so no wake is on its way).
  bool Add(const SampledResult* token, std::optional<FinishReason> finish);
  void Finish(FinishReason reason);
  void Fail(Status status);
  // Calls the wake function, outside the lock: it may take other locks (the connection's).
  void Wake();

  std::mutex mu_;
  std::function<void()> wake_;
  StreamUpdate pending_;
  bool done_ = false;
  std::atomic<bool> cancelled_{false};
  std::chrono::steady_clock::time_point arrival_ = std::chrono::steady_clock::now();
  std::optional<std::chrono::steady_clock::time_point> last_token_;
};

class EngineService {
 public:
  // max_waiting: requests queued beyond the running batch before Submit answers Unavailable.
  EngineService(std::unique_ptr<LlmEngine> engine, int max_waiting);
  ~EngineService();

  Result<std::shared_ptr<ResultStream>> Submit(std::vector<int32_t> prompt, SamplingParams params);
  // Thread-safe. Where the streams a step woke are woken: `runner` runs a function on the
  // server's I/O threads. Until then the engine thread wakes them itself.
  void WakeOn(WakeQueue::Runner runner) { wakes_->SetRunner(std::move(runner)); }
  ServerGauges Gauges() const;
  const ServerMetrics& metrics() const { return metrics_; }
  const ModelConfig& model_config() const { return model_config_; }
  int64_t max_model_len() const { return max_model_len_; }

  // Aborts everything still in flight and joins the engine thread.
  void Stop();

 private:
  struct Pending {
    std::vector<int32_t> prompt;
    SamplingParams params;
    std::shared_ptr<ResultStream> stream;
  };
  void Loop();
  // The engine thread's work between two steps; false once the service is stopping.
  bool BetweenSteps(const StepResult& step);
  // Takes the queued requests (under mu_) and adds them to the engine.
  void TakePending();
  void AdmitPending();
  void AbortCancelled();
  void Publish(const StepResult& step);
  void RefreshGaugesLocked();

  std::unique_ptr<LlmEngine> engine_;
  const ModelConfig model_config_;
  const int64_t max_model_len_;
  const int max_waiting_;
  ServerMetrics metrics_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Pending> pending_;
  bool stopping_ = false;
  ServerGauges gauges_;  // refreshed by the engine thread after every step

  // Engine thread only; the vectors are kept for their capacity, so a step allocates nothing.
  std::map<RequestId, std::shared_ptr<ResultStream>> live_;
  std::vector<Pending> admitting_;
  std::vector<std::shared_ptr<ResultStream>> woken_;  // the streams this step woke
  const std::shared_ptr<WakeQueue> wakes_ = std::make_shared<WakeQueue>();
  std::thread thread_;
};

}  // namespace vt::server
