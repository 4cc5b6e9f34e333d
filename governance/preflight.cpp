#include "governance/preflight.h"

#include <chrono>
#include <optional>
#include <thread>

#include "governance/external_gate.h"
#include "governance/git_range.h"
#include "governance/staged_scan.h"
#include "governance/trailer_gate.h"

namespace vt::gate {
namespace {

struct PinnedBase {
  std::optional<git_oid> oid;
  std::string skip_reason;  // why range gates cannot verify when oid is empty
};

GateReport RunBuiltin(const std::string& name, const std::string& repo_path, const Config& config,
                      const PinnedBase& base) {
  Result<Repository> repo = Repository::Open(repo_path);
  if (!repo.ok()) {
    GateReport report;
    report.gate = name;
    report.status = GateStatus::kFail;
    report.reason = repo.status().message();
    return report;
  }
  if (name == "staged") return ScanStagedConflictMarkers(repo.value());
  if (name == "trailers") {
    if (!base.oid) return SkipReport(name, base.skip_reason);
    return CheckTrailerRange(repo.value(), config, *base.oid);
  }
  GateReport report;
  report.gate = name;
  report.status = GateStatus::kFail;
  report.reason = "no built-in gate named '" + name + "'";
  return report;
}

}  // namespace

Result<PreflightSummary> RunPreflight(const std::string& repo_path, const Config& config,
                                      const PreflightOptions& options) {
  auto start = std::chrono::steady_clock::now();
  Result<Repository> repo = Repository::Open(repo_path);
  if (!repo.ok()) return repo.status();
  PreflightSummary summary;
  summary.base_spec = config.base;
  summary.fail_on_skip = options.fail_on_skip;
  PinnedBase base;
  Result<git_oid> pinned = PinBase(repo.value(), config.base);
  if (pinned.ok()) {
    base.oid = pinned.value();
    summary.base = OidHex(pinned.value());
  } else if (pinned.status().code() == StatusCode::kUnavailable) {
    base.skip_reason = pinned.status().message();
  } else {
    return pinned.status();
  }
  std::string root = repo->root();

  std::vector<GateSpec> gates = config.gates;
  if (options.staged) gates.push_back(GateSpec{"staged", {}, {}, 300, 0});
  summary.gates.resize(gates.size());
  std::vector<std::thread> threads;
  threads.reserve(gates.size());
  for (size_t i = 0; i < gates.size(); ++i) {
    threads.emplace_back([&, i] {
      const GateSpec& gate = gates[i];
      summary.gates[i] = gate.command.empty() ? RunBuiltin(gate.name, root, config, base) : RunExternalGate(gate, root);
    });
  }
  for (std::thread& t : threads) t.join();
  summary.elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

int PreflightExitCode(const PreflightSummary& summary) {
  switch (OverallStatus(summary)) {
    case GateStatus::kOk: return kExitOk;
    case GateStatus::kFail: return kExitFail;
    case GateStatus::kSkip: return summary.fail_on_skip ? kExitFail : kExitOk;
  }
  return kExitFail;
}

}  // namespace vt::gate
