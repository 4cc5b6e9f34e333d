// Ratchets: a counted finding class of a gate (findings with one rule id)
// pinned in a baseline file that may only go down. At the baseline the
// findings are accepted and noted; above it they fail; below it the change
// must lower the baseline too (the count may not silently regain slack); and a
// baseline higher than the base commit's is refused.
#pragma once

#include <optional>

#include "governance/config.h"
#include "governance/git_repository.h"
#include "governance/report.h"

namespace vt::gate {

// Applies every ratchet configured for report.gate. Without a base the
// "never raised" check cannot run and the gate is reported as skipped.
void ApplyRatchets(const Repository& repo, const Config& config, const std::optional<git_oid>& base,
                   GateReport& report);

}  // namespace vt::gate
