// The report every gate returns: a status (ok / fail / skip), the reason for a
// skip or failure, and findings that point at a commit, a file and a line.
#pragma once

#include <string>
#include <vector>

namespace vt::gate {

enum class GateStatus { kOk, kFail, kSkip };

// Process exit codes shared by every vt-gate command.
enum ExitCode : int {
  kExitOk = 0,
  kExitFail = 1,
  kExitUsage = 2,       // bad arguments or a bad config file
  kExitUnverified = 3,  // a gate could not verify (skip)
};

struct Finding {
  std::string rule;    // rule id, e.g. "required:Row"
  std::string commit;  // full 40-hex id, empty when not about a commit
  std::string file;    // path relative to the repository root
  int line = 0;        // 1-based; 0 when unknown
  std::string message;
  // --explain-base: "from-base" when the gate finds it on the base alone too,
  // "from-change" when only the change's tree has it; empty when not asked.
  std::string origin{};
};

// A landed exception: a known violation accepted in config, shown on every
// run so the debt stays visible.
struct Debt {
  std::string rule;
  std::string commit;
  std::string reason;
};

struct GateReport {
  std::string gate;  // "trailers", "record", ...
  GateStatus status = GateStatus::kOk;
  std::string reason;  // always set for kSkip and kFail
  std::string base;    // the pinned base commit id, empty when none
  int checked = 0;     // commits, rows or files examined
  double elapsed_ms = 0;
  std::vector<Finding> findings;
  std::vector<Debt> debt;
  std::vector<std::string> notes;  // what was deliberately not checked, e.g. "2 merge commits skipped"
};

const char* StatusName(GateStatus status);

// The exit code of a single gate's report.
int ExitCodeFor(const GateReport& report);
// ok 0, fail 1, skip 3.
int ExitCodeFor(GateStatus status);

// "1 finding", "3 findings": counts in reasons and notes read as English.
std::string Counted(size_t n, const std::string& noun);

// A skip always carries its reason.
GateReport SkipReport(std::string gate, std::string reason, std::string base = "");

}  // namespace vt::gate
