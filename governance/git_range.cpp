#include "governance/git_range.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <vector>

#include "governance/limited_walk.h"
#include "governance/object_integrity.h"

namespace vt::gate {
namespace {

struct ObjectDeleter {
  void operator()(git_object* object) const { git_object_free(object); }
};
using ObjectPtr = std::unique_ptr<git_object, ObjectDeleter>;

bool LooksLikeRefName(const std::string& spec) {
  return !spec.empty() && spec.find_first_of("^~:@{}?*[\\ ") == std::string::npos;
}

// git's ref DWIM order; more than one existing candidate is ambiguous.
int CountRefCandidates(const Repository& repo, const std::string& spec) {
  const std::string candidates[] = {"refs/" + spec, "refs/tags/" + spec, "refs/heads/" + spec,
                                    "refs/remotes/" + spec, "refs/remotes/" + spec + "/HEAD"};
  int found = 0;
  for (const std::string& name : candidates) {
    git_oid oid;
    if (git_reference_name_to_id(&oid, repo.raw(), name.c_str()) == 0) ++found;
  }
  return found;
}

// The commits where a shallow clone's history is cut (.git/shallow).
std::set<std::string> ShallowBoundary(const Repository& repo) {
  std::set<std::string> ids;
  if (!git_repository_is_shallow(repo.raw())) return ids;
  std::ifstream in(repo.git_dir() + "shallow");
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() >= GIT_OID_HEXSZ) ids.insert(line.substr(0, GIT_OID_HEXSZ));
  }
  return ids;
}

// libgit2 1.5 does not read .git/shallow: its revwalk and merge base fail on
// the missing parents of boundary commits. In a shallow clone vt-gate walks by
// hand and treats boundary commits as parentless, as git does. Shallow clones
// are small, so plain sets are enough here.
class ShallowHistory {
 public:
  explicit ShallowHistory(const Repository& repo) : repo_(repo), boundary_(ShallowBoundary(repo)) {}

  bool IsBoundary(const git_oid& oid) const { return boundary_.count(OidHex(oid)) > 0; }

  // The parents a walk may follow: none for a boundary commit.
  Status Parents(const git_oid& oid, bool first_parent, std::vector<git_oid>* parents) const {
    parents->clear();
    if (IsBoundary(oid)) return Status::Ok();
    git_commit* commit = nullptr;
    if (git_commit_lookup(&commit, repo_.raw(), &oid) != 0) {
      return Unavailable("shallow clone: commit " + OidHex(oid) + " is missing (git fetch --unshallow)");
    }
    unsigned count =
        first_parent ? std::min(1u, git_commit_parentcount(commit)) : git_commit_parentcount(commit);
    for (unsigned i = 0; i < count; ++i) parents->push_back(*git_commit_parent_id(commit, i));
    git_commit_free(commit);
    return Status::Ok();
  }

  // Every commit reachable from `tips`, stopping at the boundary.
  Status Reachable(const std::vector<git_oid>& tips, std::set<std::string>* out) const {
    std::vector<git_oid> stack(tips.begin(), tips.end());
    std::vector<git_oid> parents;
    while (!stack.empty()) {
      git_oid oid = stack.back();
      stack.pop_back();
      if (!out->insert(OidHex(oid)).second) continue;
      VT_RETURN_IF_ERROR(Parents(oid, false, &parents));
      stack.insert(stack.end(), parents.begin(), parents.end());
    }
    return Status::Ok();
  }

 private:
  const Repository& repo_;
  std::set<std::string> boundary_;
};

Status Unrelated(const git_oid& base, const git_oid& head) {
  return Unavailable("unrelated histories: " + OidHex(base) + " and " + OidHex(head) + " share no commit");
}

Status CutAt(const git_oid& oid) {
  return Unavailable("shallow clone: history is cut at " + OidHex(oid) +
                     ", inside the range; the commits below it cannot be checked (git fetch --unshallow)");
}

// merge-base..head in a shallow clone: the first commits of head's history
// that base also reaches. Reaching the boundary first means the range is cut.
Result<git_oid> ShallowMergeBase(const Repository& repo, const git_oid& base, const git_oid& head) {
  ShallowHistory history(repo);
  std::set<std::string> from_base;
  VT_RETURN_IF_ERROR(history.Reachable({base}, &from_base));
  std::set<std::string> seen;
  std::vector<git_oid> queue = {head};
  std::vector<git_oid> parents;
  for (size_t i = 0; i < queue.size(); ++i) {
    git_oid oid = queue[i];
    if (from_base.count(OidHex(oid))) return oid;
    if (!seen.insert(OidHex(oid)).second) continue;
    if (history.IsBoundary(oid)) return CutAt(oid);
    VT_RETURN_IF_ERROR(history.Parents(oid, false, &parents));
    queue.insert(queue.end(), parents.begin(), parents.end());
  }
  return Unrelated(base, head);
}

Status ShallowWalk(const Repository& repo, const git_oid& tip, const std::vector<git_oid>& hide,
                   const WalkOptions& options, const std::function<bool(const WalkedCommit&)>& visit) {
  ShallowHistory history(repo);
  std::set<std::string> hidden;
  std::vector<git_oid> hidden_tips(hide.begin(), hide.end());
  if (options.floor) hidden_tips.push_back(*options.floor);
  VT_RETURN_IF_ERROR(history.Reachable(hidden_tips, &hidden));
  std::set<std::string> seen;
  std::vector<git_oid> queue = {tip};
  std::vector<git_oid> parents;
  for (size_t i = 0; i < queue.size(); ++i) {
    git_oid oid = queue[i];
    std::string hex = OidHex(oid);
    if (hidden.count(hex) || !seen.insert(hex).second) continue;
    git_commit* commit = nullptr;
    if (git_commit_lookup(&commit, repo.raw(), &oid) != 0) return CutAt(oid);
    bool keep_going = visit(WalkedCommit::Borrow(commit));
    git_commit_free(commit);
    if (history.IsBoundary(oid)) return CutAt(oid);
    if (!keep_going) return Status::Ok();
    VT_RETURN_IF_ERROR(history.Parents(oid, options.first_parent, &parents));
    queue.insert(queue.end(), parents.begin(), parents.end());
  }
  return Status::Ok();
}

// When `spec` starts with a ref or a full id whose history holds an object
// that cannot be read: kUnavailable naming it. Ok otherwise.
Status UnreadableObjectBehind(const Repository& repo, const std::string& spec) {
  std::string name = spec.substr(0, spec.find_first_of("~^@:{"));
  git_oid oid;
  bool found = false;
  git_reference* ref = nullptr;
  if (git_reference_dwim(&ref, repo.raw(), name.c_str()) == 0) {
    git_reference* resolved = nullptr;
    if (git_reference_resolve(&resolved, ref) == 0) {
      oid = *git_reference_target(resolved);
      found = true;
      git_reference_free(resolved);
    }
    git_reference_free(ref);
  } else {
    found = name.size() == GIT_OID_HEXSZ && git_oid_fromstr(&oid, name.c_str()) == 0;
  }
  if (!found) return Status::Ok();
  Status status = HistoryReadFailure(repo, {oid}, "'" + spec + "'");
  return status.code() == StatusCode::kUnavailable ? status : Status::Ok();
}

// Hands the walk's commits to `visit`, each released once visited.
void Visit(LimitedWalkResult& walk, const std::function<bool(const WalkedCommit&)>& visit) {
  for (WalkedCommit& commit : walk.commits) {
    WalkedCommit visited = std::move(commit);
    if (!visit(visited)) return;
  }
}

// Where base..head starts, from the commits the walk stopped at. Every common
// ancestor of base and head lies below a boundary commit the base reaches, so
// the merge base is the boundary commit no other one reaches; a first-parent
// chain has one boundary commit, where it enters the base's history. Only
// what the boundary cannot tell goes to git_merge_base: a floor (cutover)
// that stopped the walk first, criss-cross merges, which have more than one
// merge base, and a walk that met no hidden commit at all. That last one is
// unrelated histories, a first-parent chain that ran to a root, or committer
// dates so far out of order that the walk stopped before the base's painting
// reached the tip's history (git log stops there too).
Result<git_oid> RangeStart(const Repository& repo, const CommitRange& range,
                           const std::vector<BoundaryCommit>& boundary) {
  std::vector<git_oid> candidates;
  for (const BoundaryCommit& commit : boundary) {
    if (!commit.hidden) return MergeBase(repo, range.base, range.head);
    candidates.push_back(commit.oid);
  }
  if (candidates.empty()) return MergeBase(repo, range.base, range.head);
  if (candidates.size() == 1) return candidates[0];
  std::vector<git_oid> independent;
  for (size_t i = 0; i < candidates.size(); ++i) {
    std::vector<git_oid> others = candidates;
    others.erase(others.begin() + static_cast<std::ptrdiff_t>(i));
    int rc = git_graph_reachable_from_any(repo.raw(), &candidates[i], others.data(), others.size());
    if (rc < 0) return HistoryReadFailure(repo, {range.base, range.head}, "merge base");
    if (rc == 0) independent.push_back(candidates[i]);
  }
  if (independent.size() == 1) return independent[0];
  return MergeBase(repo, range.base, range.head);
}

}  // namespace

Result<git_oid> ResolveCommit(const Repository& repo, const std::string& spec) {
  if (LooksLikeRefName(spec) && CountRefCandidates(repo, spec) > 1) {
    return InvalidArgument(
        "'" + spec + "' is ambiguous: more than one ref has that name; use the full name (e.g. refs/heads/" +
        spec + ")");
  }
  git_object* object = nullptr;
  int rc = git_revparse_single(&object, repo.raw(), spec.c_str());
  if (rc == GIT_EAMBIGUOUS)
    return InvalidArgument("'" + spec + "' is ambiguous: it matches more than one object");
  if (rc != 0) {
    // libgit2 reports an unreadable object on the way as "not found" too.
    std::string cause = LastGitError();
    VT_RETURN_IF_ERROR(UnreadableObjectBehind(repo, spec));
    if (rc == GIT_ENOTFOUND || rc == GIT_EINVALIDSPEC)
      return NotFound("'" + spec + "' does not name a commit (" + cause + ")");
    return Unavailable("'" + spec + "' cannot be read: " + cause);
  }
  ObjectPtr owned(object);
  git_object* commit = nullptr;
  if (git_object_peel(&commit, object, GIT_OBJECT_COMMIT) != 0) {
    return NotFound("'" + spec + "' does not name a commit");
  }
  git_oid oid = *git_object_id(commit);
  git_object_free(commit);
  return oid;
}

Result<git_oid> PinBase(const Repository& repo, const std::string& spec) {
  Result<git_oid> oid = ResolveCommit(repo, spec);
  if (oid.status().code() != StatusCode::kNotFound) return oid;
  std::string hint;
  if (size_t slash = spec.find('/'); slash != std::string::npos) {
    hint = " (fetch it: git fetch " + spec.substr(0, slash) + " " + spec.substr(slash + 1) + ")";
  }
  return Unavailable("base '" + spec + "' not found" + hint);
}

std::string DescribeRange(const git_oid& start, const git_oid& head) { return OidHex(start) + ".." + OidHex(head); }

Result<CommitRange> ResolveRange(const Repository& repo, const git_oid& base, const std::string& head_spec) {
  if (head_spec == "HEAD" && git_repository_head_unborn(repo.raw()) == 1) {
    return Unavailable("HEAD is unborn: the branch has no commits yet");
  }
  Result<git_oid> head = ResolveCommit(repo, head_spec);
  if (!head.ok()) {
    if (head.status().code() == StatusCode::kInvalidArgument) return head.status();
    return Unavailable(head.status().message());
  }
  return CommitRange{base, head.value()};
}

Result<git_oid> MergeBase(const Repository& repo, const git_oid& base, const git_oid& head) {
  if (git_repository_is_shallow(repo.raw())) return ShallowMergeBase(repo, base, head);
  git_oid merge_base;
  int rc = git_merge_base(&merge_base, repo.raw(), &base, &head);
  if (rc == GIT_ENOTFOUND) return Unrelated(base, head);
  if (rc != 0) return HistoryReadFailure(repo, {base, head}, "merge base");
  return merge_base;
}

Status WalkExcluding(const Repository& repo, const git_oid& tip, const std::vector<git_oid>& hide,
                     const WalkOptions& options, const std::function<bool(const WalkedCommit&)>& visit) {
  if (git_repository_is_shallow(repo.raw())) return ShallowWalk(repo, tip, hide, options, visit);
  Result<LimitedWalkResult> walk = RunLimitedWalk(repo, {tip, hide, options.floor, options.first_parent, options.authors});
  if (!walk.ok()) return walk.status();
  Visit(walk.value(), visit);
  return Status::Ok();
}

Status WalkScope(const Repository& repo, const ChangeScope& scope, const WalkOptions& options,
                 const std::function<bool(const WalkedCommit&)>& visit) {
  return WalkExcluding(repo, scope.head, scope.hide, options, visit);
}

Result<git_oid> WalkRange(const Repository& repo, const CommitRange& range, const WalkOptions& options,
                          const std::function<bool(const WalkedCommit&)>& visit) {
  if (git_repository_is_shallow(repo.raw())) {
    Result<git_oid> merge_base = ShallowMergeBase(repo, range.base, range.head);
    if (!merge_base.ok()) return merge_base.status();
    VT_RETURN_IF_ERROR(ShallowWalk(repo, range.head, {merge_base.value()}, options, visit));
    return merge_base;
  }
  Result<LimitedWalkResult> walk =
      RunLimitedWalk(repo, {range.head, {range.base}, options.floor, options.first_parent, options.authors});
  if (!walk.ok()) return walk.status();
  Result<git_oid> start = RangeStart(repo, range, walk->boundary);
  if (!start.ok()) return start.status();
  if (walk->boundary.empty()) {
    // Related after all, with dates that hid it from the walk: the merge base
    // the painting found marks the base's history, as it did before the walk
    // took the merge base from its boundary.
    walk = RunLimitedWalk(repo, {range.head, {range.base, start.value()}, options.floor, options.first_parent, options.authors});
    if (!walk.ok()) return walk.status();
  }
  Visit(walk.value(), visit);
  return start;
}

}  // namespace vt::gate
