// The staged-change checks of `preflight --staged`: conflict markers in the
// lines a commit would add, and unmerged index entries. Reads the index and
// object database only; the work tree is neither read nor written.
#pragma once

#include "governance/git_repository.h"
#include "governance/report.h"

namespace vt::gate {

// Gate "staged": lines added between HEAD (or the empty tree on an unborn
// branch) and the index that start with a conflict marker.
GateReport ScanStagedConflictMarkers(const Repository& repo);

}  // namespace vt::gate
