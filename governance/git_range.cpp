#include "governance/git_range.h"

#include <fstream>
#include <set>
#include <vector>

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

struct WalkDeleter {
  void operator()(git_revwalk* walk) const { git_revwalk_free(walk); }
};

}  // namespace

Result<git_oid> ResolveCommit(const Repository& repo, const std::string& spec) {
  if (LooksLikeRefName(spec) && CountRefCandidates(repo, spec) > 1) {
    return InvalidArgument("'" + spec + "' is ambiguous: more than one ref has that name; use the full name (e.g. refs/heads/" +
                           spec + ")");
  }
  git_object* object = nullptr;
  int rc = git_revparse_single(&object, repo.raw(), spec.c_str());
  if (rc == GIT_EAMBIGUOUS) return InvalidArgument("'" + spec + "' is ambiguous: it matches more than one object");
  if (rc != 0) return NotFound("'" + spec + "' does not name a commit (" + LastGitError() + ")");
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
  if (oid.ok() || oid.status().code() == StatusCode::kInvalidArgument) return oid;
  std::string hint;
  if (size_t slash = spec.find('/'); slash != std::string::npos) {
    hint = " (fetch it: git fetch " + spec.substr(0, slash) + " " + spec.substr(slash + 1) + ")";
  }
  return Unavailable("base '" + spec + "' not found" + hint);
}

std::string CommitRange::Describe() const { return OidHex(merge_base) + ".." + OidHex(head); }

Result<CommitRange> ResolveRange(const Repository& repo, const git_oid& base, const std::string& head_spec) {
  if (head_spec == "HEAD" && git_repository_head_unborn(repo.raw()) == 1) {
    return Unavailable("HEAD is unborn: the branch has no commits yet");
  }
  Result<git_oid> head = ResolveCommit(repo, head_spec);
  if (!head.ok()) {
    if (head.status().code() == StatusCode::kInvalidArgument) return head.status();
    return Unavailable(head.status().message());
  }
  CommitRange range;
  range.base = base;
  range.head = head.value();
  int rc = git_merge_base(&range.merge_base, repo.raw(), &range.base, &range.head);
  if (rc != 0) {
    if (git_repository_is_shallow(repo.raw())) {
      return Unavailable("shallow clone: the merge base of " + OidHex(base) + " and " + OidHex(range.head) +
                         " lies beyond the clone's depth (git fetch --unshallow)");
    }
    if (rc == GIT_ENOTFOUND) {
      return Unavailable("unrelated histories: " + OidHex(base) + " and " + OidHex(range.head) +
                         " share no commit");
    }
    return Internal("merge base: " + LastGitError());
  }
  return range;
}

Status WalkExcluding(const Repository& repo, const git_oid& tip, const std::vector<git_oid>& hide,
                     const WalkOptions& options, const std::function<bool(git_commit*)>& visit) {
  git_revwalk* raw_walk = nullptr;
  if (git_revwalk_new(&raw_walk, repo.raw()) != 0) return Internal("revwalk: " + LastGitError());
  std::unique_ptr<git_revwalk, WalkDeleter> walk(raw_walk);
  git_revwalk_sorting(walk.get(), GIT_SORT_TOPOLOGICAL);
  if (options.first_parent) git_revwalk_simplify_first_parent(walk.get());
  if (git_revwalk_push(walk.get(), &tip) != 0) return Internal("revwalk: " + LastGitError());
  for (const git_oid& oid : hide) {
    if (git_revwalk_hide(walk.get(), &oid) != 0) return Internal("revwalk: " + LastGitError());
  }
  if (options.floor && git_revwalk_hide(walk.get(), &*options.floor) != 0) {
    return Unavailable("cutover commit " + OidHex(*options.floor) + " is not in this repository");
  }
  std::set<std::string> boundary = ShallowBoundary(repo);
  git_oid oid;
  int rc = 0;
  while ((rc = git_revwalk_next(&oid, walk.get())) == 0) {
    git_commit* commit = nullptr;
    if (git_commit_lookup(&commit, repo.raw(), &oid) != 0) return Internal("commit: " + LastGitError());
    bool keep_going = visit(commit);
    bool cut = !boundary.empty() && git_commit_parentcount(commit) > 0 && boundary.count(OidHex(oid));
    git_commit_free(commit);
    if (cut) {
      return Unavailable("shallow clone: history is cut at " + OidHex(oid) +
                         ", inside the range; its parents cannot be checked (git fetch --unshallow)");
    }
    if (!keep_going) return Status::Ok();
  }
  if (rc != GIT_ITEROVER) {
    if (!boundary.empty()) {
      return Unavailable("shallow clone: the range reaches past the clone's depth (git fetch --unshallow)");
    }
    return Internal("revwalk: " + LastGitError());
  }
  return Status::Ok();
}

Status WalkRange(const Repository& repo, const CommitRange& range, const WalkOptions& options,
                 const std::function<bool(git_commit*)>& visit) {
  return WalkExcluding(repo, range.head, {range.merge_base}, options, visit);
}

}  // namespace vt::gate
