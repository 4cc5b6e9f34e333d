// The `intake` gate: an issue number agrees in three places — the intake
// table (issue -> rows), the spec of each of those rows, and the change
// description (a PR body given with --description, else the messages of the
// commits in merge-base(base, HEAD)..HEAD: `Refs #N`, `Closes #N`, `Row: ID`).
// Only the issues a change references must be owned by a row.
#pragma once

#include <optional>
#include <string>

#include "governance/config.h"
#include "governance/git_range.h"
#include "governance/git_repository.h"
#include "governance/report.h"

namespace vt::gate {

struct IntakeInput {
  std::optional<git_oid> base;   // pinned; used when no description file is given
  std::string base_unavailable;  // why `base` is empty
  std::string description;       // a file, "-" for stdin, or empty for the commits of the range
  std::string description_text;  // or the description itself (CI's pull request), when
  std::string description_name;  //   description_name is set: how reports name it
  std::optional<ChangeScope> scope;  // the change's commits, when the caller knows them (CI)
  bool staged = false;           // read the intake table and specs from the index
  // Read them from this commit's tree and check only them, no description:
  // the gate on that commit alone (--explain-base).
  std::optional<git_oid> at_commit;
};

GateReport CheckIntake(const Repository& repo, const Config& config, const IntakeInput& input);

}  // namespace vt::gate
