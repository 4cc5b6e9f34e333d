#include "governance/ci_scope.h"

#include "governance/walked_commit.h"

namespace vt::gate {
namespace {

bool IsZeroId(const std::string& hex) { return hex.find_first_not_of('0') == std::string::npos; }

std::string Short(const git_oid& oid) { return OidHex(oid).substr(0, 12); }

// A commit the clone has, by full id.
std::optional<git_oid> ExistingCommit(const Repository& repo, const std::string& hex) {
  git_oid oid;
  if (IsZeroId(hex) || git_oid_fromstr(&oid, hex.c_str()) != 0) return std::nullopt;
  Result<git_oid> commit = ResolveCommit(repo, hex);
  if (!commit.ok()) return std::nullopt;
  return commit.value();
}

std::optional<git_oid> RemoteBranch(const Repository& repo, const std::string& remote, std::string branch) {
  if (branch.rfind("refs/heads/", 0) == 0) branch = branch.substr(11);
  if (branch.empty()) return std::nullopt;
  git_oid oid;
  std::string name = "refs/remotes/" + remote + "/" + branch;
  if (git_reference_name_to_id(&oid, repo.raw(), name.c_str()) != 0) return std::nullopt;
  return oid;
}

Result<CiScope> PushScope(const Repository& repo, const GithubEvent& event, const std::string& remote) {
  CiScope scope;
  if (event.deleted || IsZeroId(event.after)) {
    scope.deletion = true;
    scope.summary = "push deletes " + event.ref + ": no commits to check";
    return scope;
  }
  std::optional<git_oid> after = ExistingCommit(repo, event.after);
  if (!after) {
    return Unavailable("push to " + event.ref + ": the pushed commit " + event.after +
                       " is not in this clone (check out the event's commit)");
  }
  ChangeScope commits;
  commits.head = *after;
  std::string what = "push to " + event.ref + (event.forced ? " (forced)" : "");
  if (std::optional<git_oid> before = ExistingCommit(repo, event.before)) {
    commits.hide.push_back(*before);
    commits.describe = Short(*before) + ".." + Short(*after) + ", " + what;
  } else {
    std::string why = IsZeroId(event.before) ? "a new ref" : "its old tip " + event.before.substr(0, 12) +
                                                                 " is not in this clone";
    bool pushes_default = event.ref == "refs/heads/" + event.default_branch;
    std::optional<git_oid> default_tip;
    if (!pushes_default) default_tip = RemoteBranch(repo, remote, event.default_branch);
    if (default_tip) {
      commits.hide.push_back(*default_tip);
      commits.describe = "commits of " + Short(*after) + " not on " + remote + "/" + event.default_branch + ", " +
                         what + " (" + why + ")";
    } else {
      commits.describe = "every commit of " + Short(*after) + ", " + what + " (" + why + "; " +
                         (pushes_default ? "it is the default branch"
                                         : "no " + remote + "/" + event.default_branch + " in this clone") +
                         ")";
    }
  }
  scope.summary = commits.describe;
  scope.commits = std::move(commits);
  return scope;
}

// A pull request or a merge group: head excluding base.
Result<CiScope> HeadExcludingBase(const Repository& repo, const GithubEvent& event, const std::string& remote,
                                  const std::string& what) {
  std::optional<git_oid> head = ExistingCommit(repo, event.head_sha);
  if (!head) {
    return Unavailable(what + ": the head commit " + event.head_sha +
                       " is not in this clone (actions/checkout with fetch-depth: 0 fetches it)");
  }
  std::optional<git_oid> base = ExistingCommit(repo, event.base_sha);
  std::string base_name;
  if (!base) {
    base = RemoteBranch(repo, remote, event.base_ref);
    base_name = " (" + remote + "/" + event.base_ref + ": the event's base " + event.base_sha.substr(0, 12) +
                " is not in this clone)";
  }
  if (!base) {
    return Unavailable(what + ": neither the base commit " + event.base_sha + " nor " + remote + "/" +
                       event.base_ref + " is in this clone");
  }
  CiScope scope;
  ChangeScope commits;
  commits.head = *head;
  commits.hide.push_back(*base);
  commits.describe = Short(*base) + ".." + Short(*head) + ", " + what + base_name;
  scope.summary = commits.describe;
  scope.commits = std::move(commits);
  return scope;
}

// The tree-reading gates (record, intake, rows) read the checkout, so it must
// be the event's commit, or the merge of its head into its base that
// actions/checkout makes for a pull request. `pull_request_target` checks out
// the base by default: checking that tree would pass whatever the head breaks.
// GitHub recomputes that merge when the base branch moves, while the payload's
// base may still name the older commit: a first parent that descends from the
// base is that merge too.
Status CheckoutIsTheEvents(const Repository& repo, const ChangeScope& commits) {
  Result<git_oid> head = ResolveCommit(repo, "HEAD");
  if (!head.ok()) {
    return Unavailable("the checkout is not the event's commit " + OidHex(commits.head) + ": " + head.status().message());
  }
  if (git_oid_equal(&head.value(), &commits.head)) return Status::Ok();
  Result<WalkedCommit> checkout = WalkedCommit::Read(repo, head.value());
  if (checkout.ok() && checkout->parent_count() == 2 && !commits.hide.empty() &&
      git_oid_equal(&checkout->parent(1), &commits.head)) {
    const git_oid& base = commits.hide.front();
    const git_oid& first = checkout->parent(0);
    if (git_oid_equal(&first, &base) || git_graph_descendant_of(repo.raw(), &first, &base) == 1) return Status::Ok();
  }
  return Unavailable("the checkout (HEAD " + OidHex(head.value()) + ") is neither the event's commit " +
                     OidHex(commits.head) + " nor its merge into the base: the gates that read the tree would " +
                     "check another one (check out the event's commit)");
}

Result<CiScope> ScopeOf(const Repository& repo, const GithubEvent& event, const std::string& remote) {
  if (event.IsPush()) return PushScope(repo, event, remote);
  if (event.IsMergeGroup()) return HeadExcludingBase(repo, event, remote, "merge group");
  if (event.IsPullRequest()) {
    std::string what = "pull request #" + std::to_string(event.number);
    Result<CiScope> scope = HeadExcludingBase(repo, event, remote, what);
    if (!scope.ok()) return scope;
    scope->description_name = what;
    scope->description_text = event.title + "\n\n" + event.body;
    scope->summary += "; its title and body are the change description";
    return scope;
  }
  CiScope scope;
  scope.summary = "event '" + event.name + "' names no change: the gates use the configured base";
  return scope;
}

}  // namespace

Result<CiScope> ScopeForGithubEvent(const Repository& repo, const GithubEvent& event, const std::string& remote) {
  Result<CiScope> scope = ScopeOf(repo, event, remote);
  if (scope.ok() && scope->commits) VT_RETURN_IF_ERROR(CheckoutIsTheEvents(repo, *scope->commits));
  return scope;
}

}  // namespace vt::gate
