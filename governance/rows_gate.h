// The `rows` gate: the live row audit. For every row in a live state it looks
// for the row's branches (`row/<ID>` by default, local and remote-tracking)
// and for commits on the base that mention the id as a whole token (one
// revwalk builds the id -> commits index). Verdicts:
//   IN-FLIGHT  a row branch has commits the base does not have;
//   LANDED     the base mentions the row (and no row branch is left over);
//   ABANDONED  neither — a failure.
// A row branch fully merged while its row stays live is a failure too: the
// work landed, so the row must move on. Row branches whose id is no row fail.
// Without the base, or without any branch information at all (a detached
// checkout with no branches and no remote-tracking refs), it skips.
#pragma once

#include <optional>
#include <string>

#include "governance/config.h"
#include "governance/git_repository.h"
#include "governance/report.h"

namespace vt::gate {

GateReport CheckRows(const Repository& repo, const Config& config, const std::optional<git_oid>& base,
                     const std::string& base_unavailable);

}  // namespace vt::gate
