#include "engine/bench/ab_compare.h"

#include <cctype>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "engine/bench/latency_stats.h"

namespace vt::bench {

namespace {

bool IsEnvName(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

std::string Fixed(double v, const char* format) {
  char text[64];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

}  // namespace

Result<EnvSetting> ParseEnvSetting(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || !IsEnvName(text.substr(0, eq))) {
    return InvalidArgument("--ab '" + text + "': expected NAME=VALUE, e.g. VT_ATTN_DECODE=block");
  }
  return EnvSetting{text.substr(0, eq), text.substr(eq + 1)};
}

Result<std::vector<AbLevel>> CompareAbRuns(const std::vector<ThroughputByConcurrency>& a_runs,
                                           const std::vector<ThroughputByConcurrency>& b_runs) {
  if (a_runs.empty() || a_runs.size() != b_runs.size()) {
    return InvalidArgument("A/B: " + std::to_string(a_runs.size()) + " A runs and " + std::to_string(b_runs.size()) +
                           " B runs do not pair up");
  }
  std::vector<AbLevel> levels;
  for (const auto& [concurrency, unused] : a_runs.front()) {
    AbLevel level;
    level.concurrency = concurrency;
    for (size_t round = 0; round < a_runs.size(); ++round) {
      const auto a = a_runs[round].find(concurrency), b = b_runs[round].find(concurrency);
      if (a == a_runs[round].end() || b == b_runs[round].end() || a_runs[round].size() != b_runs[round].size() ||
          a_runs[round].size() != a_runs.front().size()) {
        return Internal("A/B round " + std::to_string(round + 1) + " did not measure the same concurrencies as round 1");
      }
      if (!(a->second > 0)) {
        return Internal("A/B round " + std::to_string(round + 1) + ": A measured no throughput at concurrency " +
                        std::to_string(concurrency));
      }
      level.a_tokens_per_s.push_back(a->second);
      level.b_tokens_per_s.push_back(b->second);
      level.ratios.push_back(b->second / a->second);
    }
    level.median_ratio = Percentile(level.ratios, 50.0);
    levels.push_back(std::move(level));
  }
  return levels;
}

std::string AbTable(const AbReport& r) {
  std::string out = "A: " + r.a.text() + "   B: " + r.b.text() + "   (" + std::to_string(r.rounds) +
                    " rounds, run A B A B ...)\n";
  out += "concurrency  A tok/s (median)  B tok/s (median)  median B/A  B/A per round\n";
  for (const AbLevel& l : r.levels) {
    std::string per_round;
    for (double ratio : l.ratios) per_round += (per_round.empty() ? "" : " ") + Fixed(ratio, "%.3f");
    char row[128];
    std::snprintf(row, sizeof row, "%11d  %16.1f  %16.1f  %10.3f  ", l.concurrency, Percentile(l.a_tokens_per_s, 50.0),
                  Percentile(l.b_tokens_per_s, 50.0), l.median_ratio);
    out += row + per_round + "\n";
  }
  return out;
}

std::string AbJson(const AbReport& r) {
  nlohmann::json results = nlohmann::json::array();
  for (const AbLevel& l : r.levels) {
    results.push_back({{"concurrency", l.concurrency},
                       {"a_tokens_per_s", l.a_tokens_per_s},
                       {"b_tokens_per_s", l.b_tokens_per_s},
                       {"ratios", l.ratios},
                       {"median_ratio", l.median_ratio}});
  }
  const nlohmann::json doc = {{"a", r.a.text()}, {"b", r.b.text()}, {"rounds", r.rounds}, {"results", results}};
  return doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace vt::bench
