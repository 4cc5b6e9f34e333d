#include "engine/backends/runner_options.h"

#include <cstdlib>
#include <string>

namespace vt {
namespace {

std::string Setting(const SettingLookup& lookup, const char* name) {
  const char* value = lookup(name);
  return value != nullptr ? value : "";
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
  if (const std::string threads = Setting(lookup, "VT_NUM_THREADS"); !threads.empty()) {
    char* end = nullptr;
    const long n = std::strtol(threads.c_str(), &end, 10);
    if (end == threads.c_str() || *end != '\0' || n <= 0 || n > 4096) {
      return InvalidArgument("VT_NUM_THREADS='" + threads + "': expected a thread count from 1 to 4096");
    }
    o.num_threads = static_cast<int>(n);
  }
  const std::string arm = Setting(lookup, "VT_ATTN_DECODE"), split = Setting(lookup, "VT_ATTN_SPLIT");
  Result<kernels::cuda::DecodeOverrides> attention = kernels::cuda::ParseDecodeOverrides(arm.c_str(), split.c_str());
  if (!attention.ok()) {
    return InvalidArgument("VT_ATTN_DECODE='" + arm + "', VT_ATTN_SPLIT='" + split + "': " +
                           attention.status().message());
  }
  o.attention = *attention;
  Result<bool> tc = ParseChoice(lookup, "VT_ATTN_PREFILL", true, "tc", "decode");
  if (!tc.ok()) return tc.status();
  o.tensor_core_prefill = *tc;
  Result<bool> graphs = ParseChoice(lookup, "VT_CUDA_GRAPHS", true, "1", "0");
  if (!graphs.ok()) return graphs.status();
  o.cuda_graphs = *graphs;
  Result<bool> skinny = ParseChoice(lookup, "VT_DENSE_GEMM", true, "auto", "cublas");
  if (!skinny.ok()) return skinny.status();
  o.skinny_dense_gemm = *skinny;
  Result<bool> fused = ParseChoice(lookup, "VT_FUSE_MLP", true, "1", "0");
  if (!fused.ok()) return fused.status();
  o.fused_gate_up = *fused;
  Result<bool> pdl = ParseChoice(lookup, "VT_PDL", true, "1", "0");
  if (!pdl.ok()) return pdl.status();
  o.dependent_launch = *pdl;
  return o;
}

Result<RunnerOptions> RunnerOptionsFromEnvironment() {
  return ParseRunnerOptions([](const char* name) { return std::getenv(name); });
}

}  // namespace vt
