// Prometheus metrics of the server, in the names vLLM's dashboards use with a `vt:` prefix.
// Counters and histograms are lock-free to update from the engine thread.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/exec/step_loop.h"

namespace vt::server {

class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void Observe(double value);
  // Prometheus text: NAME_bucket{le=...}, NAME_sum, NAME_count.
  std::string Render(const std::string& name, const std::string& help) const;

 private:
  std::vector<double> bounds_;
  std::vector<std::atomic<int64_t>> buckets_;  // one per bound, plus +Inf
  std::atomic<int64_t> count_{0};
  std::atomic<int64_t> sum_micros_{0};
};

struct ServerMetrics {
  std::atomic<int64_t> prompt_tokens{0};
  std::atomic<int64_t> generation_tokens{0};
  std::atomic<int64_t> prefix_cache_hit_tokens{0};
  std::atomic<int64_t> requests_finished{0};
  std::atomic<int64_t> num_preemptions{0};
  std::atomic<int64_t> paced_steps{0};
  Histogram time_to_first_token{{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0}};
  Histogram inter_token_latency{{0.001, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5}};
  Histogram e2e_latency{{0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0}};
  // The engine thread's steps and its time between them (publishing tokens, admitting and
  // aborting requests): what serving costs the device beyond the engine's own loop.
  StepLoopTimes step_loop;
};

// Gauges read at scrape time.
struct ServerGauges {
  int64_t running = 0;
  int64_t waiting = 0;
  double kv_cache_usage = 0;  // 0..1
};

std::string RenderPrometheus(const ServerMetrics& m, const ServerGauges& g);

}  // namespace vt::server
