#include "governance/builtin_gates.h"

#include "governance/staged_scan.h"
#include "governance/trailer_gate.h"

namespace vt::gate {
namespace {

GateReport RunTrailers(const GateContext& context) {
  if (!context.base) return SkipReport("trailers", context.base_unavailable);
  return CheckTrailerRange(*context.repo, *context.config, *context.base);
}

GateReport RunStaged(const GateContext& context) { return ScanStagedConflictMarkers(*context.repo); }

}  // namespace

const std::vector<BuiltinGate>& BuiltinGates() {
  static const std::vector<BuiltinGate> kGates = {
      {"trailers", RunTrailers},
      {"staged", RunStaged},
  };
  return kGates;
}

const BuiltinGate* FindBuiltinGate(const std::string& name) {
  for (const BuiltinGate& gate : BuiltinGates()) {
    if (name == gate.name) return &gate;
  }
  return nullptr;
}

}  // namespace vt::gate
