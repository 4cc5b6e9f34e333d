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

}  // namespace vt::gate
