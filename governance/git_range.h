// The pinned base and the commit range every range-based gate checks.
// The base is resolved to a commit id once per run; gates receive the id,
// never the name, so a fetch mid-run cannot change the verdict.
//
// Status codes: kUnavailable means "could not verify" (a skip with its
// reason: missing base, unborn HEAD, unrelated histories, shallow boundary);
// kInvalidArgument is a usage error (an ambiguous name).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "governance/git_repository.h"
#include "governance/walked_commit.h"

namespace vt::gate {

// Resolves a revision to a commit id. Ambiguous short names (a branch and a
// tag both called `main`, a short id matching two objects) are rejected
// (kInvalidArgument); a name that names nothing is kNotFound; a name whose
// object cannot be read is kUnavailable naming the object.
Result<git_oid> ResolveCommit(const Repository& repo, const std::string& spec);

// The base, pinned: a missing base is kUnavailable with a hint to fetch it;
// an unreadable one is kUnavailable naming the corrupt object.
Result<git_oid> PinBase(const Repository& repo, const std::string& spec);

// base..head as git reads it: what head reaches and base does not.
struct CommitRange {
  git_oid base{};
  git_oid head{};
};

// Resolves the head of base..head; the history is read by WalkRange. HEAD
// unborn is kUnavailable.
Result<CommitRange> ResolveRange(const Repository& repo, const git_oid& base, const std::string& head_spec);

// merge-base(base, head), for callers that need the fork point itself.
// Unrelated histories, or a shallow history that hides the merge base, give
// kUnavailable.
Result<git_oid> MergeBase(const Repository& repo, const git_oid& base, const git_oid& head);

// "<start>..<head>", as reports name a range.
std::string DescribeRange(const git_oid& start, const git_oid& head);

struct WalkOptions {
  bool first_parent = false;
  std::optional<git_oid> floor;  // the cutover: it and its ancestors are not visited
  bool authors = false;          // parse each commit's author (WalkedCommit::author)
};

// Visits the commits of `range`, newest first; `visit` returns false to stop.
// Returns where the range starts, read off the walk's boundary: the merge base
// (with first_parent: the commit where the first-parent chain enters the
// base's history). Unrelated histories are kUnavailable before anything is
// visited, and so is a shallow clone whose boundary lies inside the range:
// commits below it cannot be seen.
Result<git_oid> WalkRange(const Repository& repo, const CommitRange& range, const WalkOptions& options,
                          const std::function<bool(const WalkedCommit&)>& visit);

// Visits the commits reachable from `tip` but from none of `hide`.
Status WalkExcluding(const Repository& repo, const git_oid& tip, const std::vector<git_oid>& hide,
                     const WalkOptions& options, const std::function<bool(const WalkedCommit&)>& visit);

// The commits a change brings when the caller knows them better than
// merge-base(base, HEAD)..HEAD: CI's pushed commits (what the remote did not
// have before) or a pull request's head excluding its base.
struct ChangeScope {
  git_oid head{};
  std::vector<git_oid> hide;  // these and their ancestors are not the change's
  std::string describe;       // how the scope was chosen, for reports
};

Status WalkScope(const Repository& repo, const ChangeScope& scope, const WalkOptions& options,
                 const std::function<bool(const WalkedCommit&)>& visit);

}  // namespace vt::gate
