#include "governance/builtin_gates.h"

#include "governance/gencode_gate.h"
#include "governance/intake_gate.h"
#include "governance/ratchet.h"
#include "governance/record_gate.h"
#include "governance/rows_gate.h"
#include "governance/staged_scan.h"
#include "governance/trailer_gate.h"

namespace vt::gate {
namespace {

GateReport RunTrailers(const GateContext& context) {
  if (context.scope) return CheckTrailerScope(*context.repo, *context.config, *context.scope);
  if (!context.base) return SkipReport("trailers", context.base_unavailable);
  return CheckTrailerRange(*context.repo, *context.config, *context.base);
}

GateReport RunStaged(const GateContext& context) { return ScanStagedConflictMarkers(*context.repo); }

GateReport RunRecord(const GateContext& context) {
  return CheckRecord(*context.repo, *context.config, context.staged);
}

GateReport RunIntake(const GateContext& context) {
  IntakeInput input;
  input.base = context.base;
  input.base_unavailable = context.base_unavailable;
  input.scope = context.scope;
  input.description = context.inputs.description;
  input.description_text = context.inputs.description_text;
  input.description_name = context.inputs.description_name;
  input.staged = context.staged;
  return CheckIntake(*context.repo, *context.config, input);
}

GateReport RunRows(const GateContext& context) {
  return CheckRows(*context.repo, *context.config, context.base, context.base_unavailable);
}

GateReport RunGencode(const GateContext& context) {
  return CheckGencode(*context.config->gencode,
                      {context.repo->root(), context.inputs.compile_commands, context.inputs.cuobjdump_list});
}

}  // namespace

const std::vector<BuiltinGate>& BuiltinGates() {
  static const std::vector<BuiltinGate> kGates = {
      {"trailers", RunTrailers}, {"staged", RunStaged}, {"record", RunRecord},
      {"intake", RunIntake},     {"rows", RunRows},     {"gencode", RunGencode},
  };
  return kGates;
}

const BuiltinGate* FindBuiltinGate(const std::string& name) {
  for (const BuiltinGate& gate : BuiltinGates()) {
    if (name == gate.name) return &gate;
  }
  return nullptr;
}

GateReport RunBuiltinGate(const BuiltinGate& gate, const GateContext& context) {
  GateReport report = gate.run(context);
  ApplyRatchets(*context.repo, *context.config, context.base, report);
  return report;
}

}  // namespace vt::gate
