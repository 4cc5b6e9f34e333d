// `preflight`: every configured gate exactly once, in parallel (the gates are
// independent: each reads the repository through its own handle), with one
// base pinned before any gate starts.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "governance/builtin_gates.h"
#include "governance/config.h"
#include "governance/report_format.h"

namespace vt::gate {

struct PreflightOptions {
  bool staged = false;        // add the staged-change checks
  bool fail_on_skip = false;  // a skip fails the run
  GateInputs inputs{};        // command-line inputs for the built-in gates
  std::string search_path{};  // where external gates' commands are found (the CLI passes PATH)
  std::optional<ChangeScope> scope{};  // CI's view of the change (vt-gate ci); else base..HEAD
  // Configured gates this run leaves out (a CI job without nvcc leaves gencode
  // to the job that has it). A name that is not configured is an error.
  std::vector<std::string> except{};
  bool explain_base = false;  // label failing findings from-base / from-change (base_diagnosis.h)
};

// Errors (an ambiguous base, an unreadable repository) are usage errors.
Result<PreflightSummary> RunPreflight(const std::string& repo_path, const Config& config,
                                      const PreflightOptions& options);

// 0 when nothing failed (and, with fail_on_skip, nothing was skipped), else 1.
int PreflightExitCode(const PreflightSummary& summary);

}  // namespace vt::gate
