// The `record` gate: the roadmap record's rows, states, anchors, specs,
// claims, closing commits, relative links and summary counts, each finding
// with file:line. Reads the work tree; HEAD answers the closing-commit checks.
#pragma once

#include "governance/config.h"
#include "governance/git_repository.h"
#include "governance/report.h"

namespace vt::gate {

// `staged`: read the record, specs and anchored files from the index instead of the work tree.
GateReport CheckRecord(const Repository& repo, const Config& config, bool staged = false);

// The record as `commit` has it, closing commits checked against `commit`
// (what the gate said, or would have said, on that commit alone).
GateReport CheckRecordAt(const Repository& repo, const Config& config, const git_oid& commit);

}  // namespace vt::gate
