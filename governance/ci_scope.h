// What CI should check for a GitHub event: the commits the event brings (a
// push's new commits, a pull request's head excluding its base) and, for a
// pull request, its title and body as the change description. This is what
// `vt-gate ci github` hands to preflight in place of merge-base(base, HEAD)..HEAD,
// which on a push to the base itself is empty.
#pragma once

#include <optional>
#include <string>

#include "governance/git_range.h"
#include "governance/github_event.h"

namespace vt::gate {

struct CiScope {
  // The commits to check; empty when the event names none (a deletion, or an
  // event such as workflow_dispatch): the gates then use the configured base.
  std::optional<ChangeScope> commits;
  bool deletion = false;          // a pushed deletion: nothing to check
  std::string description_name;   // a pull request's, e.g. "pull request #7"
  std::string description_text;   // its title, a blank line, its body
  std::string summary;            // one line: the event and what is checked
};

// Chooses the scope for `event` in `repo`, whose remote-tracking refs are
// under refs/remotes/<remote>/ (actions/checkout names it origin):
//   push, `before` in the clone: the commits of `after` not reachable from
//     `before` (a force push included: what `before` reached, the remote had);
//   push of a new ref, or a `before` the clone lacks (a force push's old tip
//     is fetched by nobody): the commits of `after` not on the remote's default
//     branch; when the pushed ref is the default branch itself, every commit.
//     Other remote refs are not trusted to say what is old: a push of several
//     refs at once updates them all before the run starts;
//   pull request and merge group: head excluding base (the remote's base
//     branch when the base commit is not in the clone).
// A shallow clone whose history is cut inside the scope is found by the walk
// and reported as a skip by the gates, never as green. Object ids the clone
// does not have are kUnavailable, and so is a checkout (HEAD) that is neither
// the event's commit nor a merge whose parents are the base and that commit:
// the gates that read the tree would check another one.
Result<CiScope> ScopeForGithubEvent(const Repository& repo, const GithubEvent& event, const std::string& remote);

}  // namespace vt::gate
