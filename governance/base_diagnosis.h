// `--explain-base`: is a red gate red because of the change, or because of the
// base the change forked from? A change 46 commits behind its upstream inherits
// whatever its fork point's record got wrong; blaming the change for it teaches
// people to ignore red. The failing tree gates (record, intake) are re-run on
// the fork point alone, and each finding is labelled `from-base` (the fork
// point has it too) or `from-change` (only the change's tree has it).
#pragma once

#include <string>
#include <vector>

#include "governance/config.h"
#include "governance/git_repository.h"
#include "governance/report.h"

namespace vt::gate {

struct BaseDiagnosis {
  git_oid fork_point{};  // merge-base(upstream, HEAD)
  int behind = 0;        // commits the upstream has that the fork point lacks
  int ahead = 0;         // the change's commits: fork point..HEAD
  std::string summary;   // one line for people
};

// Labels the findings of the failed gates in `reports` against the fork point
// of HEAD from `upstream` (the pinned base). Per gate:
//   record, intake: re-run on the fork point's tree (closing commits against
//     the fork point, intake's table only); a finding with the same rule, file
//     and message there is from-base. A note counts both kinds and says how
//     many of the base's findings the upstream's own tree no longer has (a
//     rebase drops those).
//   trailers: its findings are the change's own commits: from-change.
//   other gates (rows, gencode, external commands) read no tree of the
//     change's; a note says they were not re-run.
// kUnavailable when HEAD and the upstream share no history (or it cannot be read).
Result<BaseDiagnosis> ExplainBase(const Repository& repo, const Config& config, const git_oid& upstream,
                                  std::vector<GateReport>& reports);

}  // namespace vt::gate
