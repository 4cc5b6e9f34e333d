#include "governance/report.h"

namespace vt::gate {

const char* StatusName(GateStatus status) {
  switch (status) {
    case GateStatus::kOk:
      return "ok";
    case GateStatus::kFail:
      return "fail";
    case GateStatus::kSkip:
      return "skip";
  }
  return "unknown";
}

int ExitCodeFor(const GateReport& report) { return ExitCodeFor(report.status); }

int ExitCodeFor(GateStatus status) {
  switch (status) {
    case GateStatus::kOk:
      return kExitOk;
    case GateStatus::kFail:
      return kExitFail;
    case GateStatus::kSkip:
      return kExitUnverified;
  }
  return kExitFail;
}

}  // namespace vt::gate

namespace vt::gate {

std::string Counted(size_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

GateReport SkipReport(std::string gate, std::string reason, std::string base) {
  GateReport report;
  report.gate = std::move(gate);
  report.status = GateStatus::kSkip;
  report.reason = std::move(reason);
  report.base = std::move(base);
  return report;
}

}  // namespace vt::gate
