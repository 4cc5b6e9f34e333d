#include "engine/server/metrics.h"

#include <cstdio>
#include <string>

namespace vt::server {

Histogram::Histogram(std::vector<double> bounds) : bounds_(std::move(bounds)), buckets_(bounds_.size() + 1) {}

void Histogram::Observe(double value) {
  size_t i = 0;
  while (i < bounds_.size() && value > bounds_[i]) ++i;
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
  sum_micros_.fetch_add(static_cast<int64_t>(value * 1e6), std::memory_order_relaxed);
}

std::string Histogram::Render(const std::string& name, const std::string& help) const {
  std::string out = "# HELP " + name + " " + help + "\n# TYPE " + name + " histogram\n";
  int64_t cumulative = 0;
  char line[256];
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    cumulative += buckets_[i].load(std::memory_order_relaxed);
    if (i < bounds_.size()) {
      std::snprintf(line, sizeof line, "%s_bucket{le=\"%g\"} %lld\n", name.c_str(), bounds_[i],
                    static_cast<long long>(cumulative));
    } else {
      std::snprintf(line, sizeof line, "%s_bucket{le=\"+Inf\"} %lld\n", name.c_str(), static_cast<long long>(cumulative));
    }
    out += line;
  }
  std::snprintf(line, sizeof line, "%s_sum %.6f\n%s_count %lld\n", name.c_str(),
                static_cast<double>(sum_micros_.load()) / 1e6, name.c_str(), static_cast<long long>(count_.load()));
  return out + line;
}

namespace {

std::string Gauge(const std::string& name, const std::string& help, const std::string& type, double value) {
  char line[128];
  std::snprintf(line, sizeof line, "%g", value);
  return "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n" + name + " " + line + "\n";
}

// A count of steps, written exactly (%g would round it to 6 digits): `vt bench serve` divides their
// differences.
std::string StepCounter(const std::string& name, const std::string& help, int64_t value) {
  return "# HELP " + name + " " + help + "\n# TYPE " + name + " counter\n" + name + " " + std::to_string(value) + "\n";
}

}  // namespace

std::string RenderPrometheus(const ServerMetrics& m, const ServerGauges& g) {
  std::string out;
  out += Gauge("vt:num_requests_running", "Requests in the running batch.", "gauge", double(g.running));
  out += Gauge("vt:num_requests_waiting", "Requests waiting to be scheduled.", "gauge", double(g.waiting));
  out += Gauge("vt:kv_cache_usage_perc", "Fraction of KV-cache blocks in use (0-1).", "gauge", g.kv_cache_usage);
  out += Gauge("vt:prompt_tokens_total", "Prompt tokens processed.", "counter", double(m.prompt_tokens.load()));
  out += Gauge("vt:generation_tokens_total", "Tokens generated.", "counter", double(m.generation_tokens.load()));
  out += Gauge("vt:prefix_cache_hits_total", "Prompt tokens served from the prefix cache.", "counter",
               double(m.prefix_cache_hit_tokens.load()));
  out += Gauge("vt:request_success_total", "Requests finished.", "counter", double(m.requests_finished.load()));
  out += Gauge("vt:num_preemptions_total", "Requests preempted for KV-cache space.", "counter",
               double(m.num_preemptions.load()));
  out += StepCounter("vt:paced_steps_total",
                     "Steps the pace (--max-decode-slowdown) gave the running decodes alone while prompt tokens waited.",
                     m.paced_steps.load());
  out += StepCounter("vt:engine_steps_total", "Engine steps run.", m.step_loop.steps.load());
  char line[256];
  std::snprintf(line, sizeof line,
                "# HELP vt:engine_between_steps_seconds_total Engine-thread time between a step's result and the "
                "next step.\n# TYPE vt:engine_between_steps_seconds_total counter\n"
                "vt:engine_between_steps_seconds_total %.9f\n",
                static_cast<double>(m.step_loop.between_steps_ns.load()) / 1e9);
  out += line;
  out += m.time_to_first_token.Render("vt:time_to_first_token_seconds", "Time to the first generated token.");
  out += m.inter_token_latency.Render("vt:inter_token_latency_seconds", "Time between consecutive generated tokens.");
  out += m.e2e_latency.Render("vt:e2e_request_latency_seconds", "Time from arrival to the last token.");
  return out;
}

}  // namespace vt::server
