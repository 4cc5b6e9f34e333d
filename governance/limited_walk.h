// The commits a tip brings over hidden ones (`git log TIP ^HIDE...`), read
// the way git reads them: newest first by committer date, each commit read
// once, and the walk stops as soon as nothing left to read can be the tip's
// (git's limit_list, with its slop of five commits for clock skew).
//
// libgit2's revwalk does the same walk but hands out ids only, so each commit
// was read a second time to check it, and a range walk first needed the merge
// base, which git_merge_base found by painting the whole range once more
// (39% of a `trailers --range`). Here the walk keeps the commits it read and
// says where it met the hidden history (its boundary), which is where the
// merge base is.
#pragma once

#include <git2.h>

#include <optional>
#include <vector>

#include "governance/git_repository.h"
#include "governance/walked_commit.h"

namespace vt::gate {

struct LimitedWalkInput {
  git_oid tip{};
  std::vector<git_oid> hide;     // these and their ancestors are not the tip's
  std::optional<git_oid> floor;  // nor are it and its ancestors (the cutover)
  bool first_parent = false;     // the tip's commits follow first parents only
  bool authors = false;          // the commits carry their authors (WalkedCommit::author)
};

// A commit that is not the tip's but is a parent of one of its commits, or the
// tip itself when a hidden commit reaches it.
struct BoundaryCommit {
  git_oid oid{};
  bool hidden = false;       // a hidden tip reaches it
  bool below_floor = false;  // the floor reaches it
};

struct LimitedWalkResult {
  // The tip's commits in libgit2's GIT_SORT_TOPOLOGICAL order: a commit
  // before its parents, a merge's last parent's line first.
  std::vector<WalkedCommit> commits;
  std::vector<BoundaryCommit> boundary;
};

// A commit that cannot be read is kUnavailable naming it (HistoryReadFailure);
// a floor that is not in the repository is kUnavailable saying so.
Result<LimitedWalkResult> RunLimitedWalk(const Repository& repo, const LimitedWalkInput& input);

}  // namespace vt::gate
