#include "engine/bench/decode_report.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "base/build_source.h"

namespace vt::bench {

namespace {

nlohmann::json LatencyJson(const LatencySummary& s) {
  // No samples (TPOT of one-token outputs) is null rather than a misleading zero.
  if (s.count == 0) return {{"median", nullptr}, {"p99", nullptr}};
  return {{"median", s.median}, {"p99", s.p99}};
}

// The decodes' ITL while prompts wait, with its mean (a TPOT over those steps), its samples and
// how many of them came from steps that also computed prompt tokens.
nlohmann::json PrefillingItlJson(const DecodeLevelResult& level) {
  nlohmann::json j = LatencyJson(level.prefilling_itl_ms);
  j["mean"] =
      level.prefilling_itl_ms.count > 0 ? nlohmann::json(level.prefilling_itl_mean_ms) : nlohmann::json(nullptr);
  j["count"] = level.prefilling_itl_ms.count;
  j["beside_prompts"] = level.prefilling_itl_beside_prompts;
  return j;
}

std::string Format(const char* format, auto... args) {
  std::string text(static_cast<size_t>(std::snprintf(nullptr, 0, format, args...)), '\0');
  std::snprintf(text.data(), text.size() + 1, format, args...);
  return text;
}

// "median/p99", aligned on the slash; "-" where there were no samples.
std::string LatencyCell(const LatencySummary& s) {
  if (s.count == 0) return Format("%9s/%-9s", "-", "-");
  return Format("%9.2f/%-9.2f", s.median, s.p99);
}

}  // namespace

std::string SweepJson(const SweepReport& report) {
  nlohmann::json results = nlohmann::json::array();
  for (const DecodeLevelResult& level : report.result.levels) {
    results.push_back({{"concurrency", level.concurrency},
                       {"output_tokens", level.output_tokens},
                       {"seconds", level.seconds},
                       {"output_tokens_per_s", level.output_tokens_per_s},
                       {"ttft_ms", LatencyJson(level.ttft_ms)},
                       {"tpot_ms", LatencyJson(level.tpot_ms)},
                       {"decode_itl_ms", LatencyJson(level.decode_itl_ms)},
                       {"prefill_itl_ms", LatencyJson(level.prefill_itl_ms)},
                       {"prefilling_itl_ms", PrefillingItlJson(level)},
                       {"between_steps_us", level.between_steps_us},
                       {"kv_bytes_per_sequence", level.kv_bytes_per_sequence},
                       {"roofline_tokens_per_s", level.roofline_tokens_per_s},
                       {"roofline_fraction", level.roofline_fraction},
                       {"prefill_tokens_per_s", level.prefill_tokens_per_s},
                       {"prefill_mfu", report.result.matmul_flops_per_s > 0 ? nlohmann::json(level.prefill_mfu)
                                                                            : nlohmann::json(nullptr)}});
  }
  const nlohmann::json doc = {{"build_source", BuildSource()},
                              {"model", report.model},
                              {"backend", report.result.backend},
                              {"weight_bytes", report.result.weight_bytes},
                              {"copy_bandwidth_gb_s", report.result.copy_bandwidth_bytes_per_s / 1e9},
                              {"matmul_tflop_s", report.result.matmul_flops_per_s > 0
                                                     ? nlohmann::json(report.result.matmul_flops_per_s / 1e12)
                                                     : nlohmann::json(nullptr)},
                              {"input_len", report.options.input_len},
                              {"output_len", report.options.output_len},
                              {"max_decode_slowdown", report.options.max_decode_slowdown},
                              {"results", results}};
  return doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string SweepTable(const SweepReport& report) {
  const DecodeSweepResult& r = report.result;
  std::string out = Format("%s on %s: weights %.1f MiB, copy bandwidth %.1f GB/s, %d prompt + %d output tokens\n",
                           report.model.c_str(), r.backend.c_str(), static_cast<double>(r.weight_bytes) / (1 << 20),
                           r.copy_bandwidth_bytes_per_s / 1e9, report.options.input_len, report.options.output_len);
  if (r.matmul_flops_per_s > 0) out += Format("matmul peak %.1f TFLOP/s (bf16, 8192^3)\n", r.matmul_flops_per_s / 1e12);
  out += Format("%11s %10s %19s %19s %19s %19s %15s %12s %14s %8s\n", "concurrency", "tok/s", "TTFT ms (med/p99)",
                "TPOT ms (med/p99)", "ITL decode-only", "ITL with prefill", "roofline tok/s", "of roofline",
                "prefill tok/s", "MFU");
  for (const DecodeLevelResult& l : r.levels) {
    const std::string mfu = r.matmul_flops_per_s > 0 ? Format("%7.1f%%", 100.0 * l.prefill_mfu) : Format("%8s", "-");
    out += Format("%11d %10.1f %s %s %s %s %15.1f %11.1f%% %14.0f %s\n", l.concurrency, l.output_tokens_per_s,
                  LatencyCell(l.ttft_ms).c_str(), LatencyCell(l.tpot_ms).c_str(), LatencyCell(l.decode_itl_ms).c_str(),
                  LatencyCell(l.prefill_itl_ms).c_str(), l.roofline_tokens_per_s, 100.0 * l.roofline_fraction,
                  l.prefill_tokens_per_s, mfu.c_str());
  }
  return out;
}

Result<std::map<int32_t, double>> ThroughputFromSweepJson(const std::string& json_text) {
  const nlohmann::json doc = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("results") || !doc["results"].is_array()) {
    return InvalidArgument("not a `vt bench decode --json` document");
  }
  std::map<int32_t, double> throughput;
  for (const nlohmann::json& level : doc["results"]) {
    if (!level.is_object() || !level.contains("concurrency") || !level["concurrency"].is_number_integer() ||
        !level.contains("output_tokens_per_s") || !level["output_tokens_per_s"].is_number()) {
      return InvalidArgument("a `vt bench decode --json` result lacks concurrency or output_tokens_per_s");
    }
    throughput[level["concurrency"].get<int32_t>()] = level["output_tokens_per_s"].get<double>();
  }
  return throughput;
}

}  // namespace vt::bench
