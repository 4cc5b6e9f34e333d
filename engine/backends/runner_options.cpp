#include "engine/backends/runner_options.h"

#include <cstdlib>
#include <string>

namespace vt {
namespace {

std::string Setting(const SettingLookup& lookup, const char* name) {
  const char* value = lookup(name);
  return value != nullptr ? value : "";
}

// An unset or empty setting keeps `*field`; otherwise it must be a whole number from `low` to `high`.
Status ParseCount(const SettingLookup& lookup, const char* name, long low, long high, const char* what, int* field) {
  const std::string value = Setting(lookup, name);
  if (value.empty()) return Status::Ok();
  char* end = nullptr;
  const long n = std::strtol(value.c_str(), &end, 10);
  if (end == value.c_str() || *end != '\0' || n < low || n > high) {
    return InvalidArgument(std::string(name) + "='" + value + "': expected " + what + " from " + std::to_string(low) +
                           " to " + std::to_string(high));
  }
  *field = static_cast<int>(n);
  return Status::Ok();
}

// An unset or empty setting takes `unset`; otherwise it must be `on` or `off`.
Result<bool> ParseChoice(const SettingLookup& lookup, const char* name, bool unset, const char* on, const char* off) {
  const std::string value = Setting(lookup, name);
  if (value.empty()) return unset;
  if (value == on) return true;
  if (value == off) return false;
  return InvalidArgument(std::string(name) + "='" + value + "': expected " + on + " or " + off);
}

}  // namespace

Result<RunnerOptions> ParseRunnerOptions(const SettingLookup& lookup) {
  RunnerOptions o;
  VT_RETURN_IF_ERROR(ParseCount(lookup, "VT_NUM_THREADS", 1, 4096, "a thread count", &o.num_threads));
  const std::string arm = Setting(lookup, "VT_ATTN_DECODE"), split = Setting(lookup, "VT_ATTN_SPLIT");
  Result<kernels::cuda::DecodeOverrides> attention = kernels::cuda::ParseDecodeOverrides(arm.c_str(), split.c_str());
  if (!attention.ok()) {
    return InvalidArgument("VT_ATTN_DECODE='" + arm + "', VT_ATTN_SPLIT='" + split + "': " +
                           attention.status().message());
  }
  o.attention = *attention;
  // Each switch: its setting, the field it sets (unset keeps the field's default), on and off.
  struct Switch {
    const char* name;
    bool RunnerOptions::*field;
    const char* on;
    const char* off;
  };
  static constexpr Switch kSwitches[] = {{"VT_ATTN_PREFILL", &RunnerOptions::tensor_core_prefill, "tc", "decode"},
                                         {"VT_ATTN_PREFILL_MMA", &RunnerOptions::warpgroup_prefill, "auto", "warp"},
                                         {"VT_CUDA_GRAPHS", &RunnerOptions::cuda_graphs, "1", "0"},
                                         {"VT_DENSE_GEMM", &RunnerOptions::skinny_dense_gemm, "auto", "cublas"},
                                         {"VT_DENSE_GEMM_MID", &RunnerOptions::batch_dense_gemm, "batch", "cublas"},
                                         {"VT_W4A16_FORM", &RunnerOptions::chosen_w4a16_forms, "auto", "spread"},
                                         {"VT_W4A16_LARGE", &RunnerOptions::dequantised_large_w4a16, "dequant", "kernel"},
                                         {"VT_PDL", &RunnerOptions::dependent_launch, "1", "0"},
                                         {"VT_DECODE_MLP", &RunnerOptions::fused_decode_mlp, "fused", "ops"}};
  for (const Switch& sw : kSwitches) {
    Result<bool> value = ParseChoice(lookup, sw.name, o.*sw.field, sw.on, sw.off);
    if (!value.ok()) return value.status();
    o.*sw.field = *value;
  }
  return o;
}

Result<RunnerOptions> RunnerOptionsFromEnvironment() {
  return ParseRunnerOptions([](const char* name) { return std::getenv(name); });
}

}  // namespace vt
