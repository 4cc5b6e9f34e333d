#include "governance/preflight.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "governance/base_diagnosis.h"
#include "governance/builtin_gates.h"
#include "governance/external_gate.h"
#include "governance/git_range.h"

namespace vt::gate {
namespace {

// Each gate opens its own repository handle: libgit2 objects must not be
// shared between threads.
GateReport RunBuiltin(const GateSpec& spec, const std::string& repo_path, GateContext context) {
  Result<Repository> repo = Repository::Open(repo_path);
  const BuiltinGate* gate = FindBuiltinGate(spec.name);
  if (!repo.ok() || gate == nullptr) {
    GateReport report;
    report.gate = spec.name;
    report.status = GateStatus::kFail;
    report.reason = repo.ok() ? "no built-in gate named '" + spec.name + "'" : repo.status().message();
    return report;
  }
  context.repo = &repo.value();
  return RunBuiltinGate(*gate, context);
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
  GateContext context;
  context.config = &config;
  context.inputs = options.inputs;
  context.scope = options.scope;
  context.staged = options.staged;
  Result<git_oid> pinned = PinBase(repo.value(), config.base);
  if (pinned.ok()) {
    context.base = pinned.value();
    summary.base = OidHex(pinned.value());
  } else if (pinned.status().code() == StatusCode::kUnavailable) {
    context.base_unavailable = pinned.status().message();
  } else {
    return pinned.status();
  }
  std::string root = repo->root();

  std::vector<GateSpec> gates;
  for (const std::string& name : options.except) {
    if (std::none_of(config.gates.begin(), config.gates.end(), [&](const GateSpec& g) { return g.name == name; }))
      return InvalidArgument("'" + name + "' is not a gate of " + config.path + "'s preflight");
  }
  for (const GateSpec& gate : config.gates) {
    if (std::find(options.except.begin(), options.except.end(), gate.name) == options.except.end())
      gates.push_back(gate);
  }
  bool listed = std::any_of(gates.begin(), gates.end(), [](const GateSpec& g) { return g.name == "staged"; });
  if (options.staged && !listed) gates.push_back(GateSpec{"staged", {}, {}, 300, 0});
  summary.gates.resize(gates.size());
  std::vector<std::thread> threads;
  threads.reserve(gates.size());
  for (size_t i = 0; i < gates.size(); ++i) {
    threads.emplace_back([&, i] {
      const GateSpec& gate = gates[i];
      summary.gates[i] = gate.command.empty() ? RunBuiltin(gate, root, context) : RunExternalGate(gate, root, options.search_path);
    });
  }
  for (std::thread& t : threads) t.join();
  if (options.explain_base) {
    Result<BaseDiagnosis> diagnosis = pinned.ok() ? ExplainBase(repo.value(), config, pinned.value(), summary.gates)
                                                  : Result<BaseDiagnosis>(pinned.status());
    summary.base_note = diagnosis.ok() ? diagnosis->summary : "not explained: " + diagnosis.status().message();
  }
  summary.elapsed_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

int PreflightExitCode(const PreflightSummary& summary) {
  switch (OverallStatus(summary)) {
    case GateStatus::kOk:
      return kExitOk;
    case GateStatus::kFail:
      return kExitFail;
    case GateStatus::kSkip:
      return summary.fail_on_skip ? kExitFail : kExitOk;
  }
  return kExitFail;
}

}  // namespace vt::gate
