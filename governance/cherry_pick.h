// Cherry-pick provenance: a commit whose message carries git's
// `(cherry picked from commit X)` line (written by `git cherry-pick -x`)
// claims X as its origin. The claim is checked against the repository: X must
// exist and be a commit, and the commit must keep X's author (git cherry-pick
// does) unless a configured trailer, e.g. `Co-authored-by: <X's author>`,
// says who the original author was.
//
// Rule ids: `cherry-pick:source` (X is missing, ambiguous or not a commit)
// and `cherry-pick:author` (the authors differ with no waiver).
#pragma once

#include <git2.h>

#include <string>
#include <string_view>
#include <vector>

#include "governance/config.h"
#include "governance/git_repository.h"
#include "governance/trailer_rules.h"

namespace vt::gate {

// One `(cherry picked from commit X)` line of a message.
struct CherryPickClaim {
  std::string source;  // X as written (4-40 hex digits when well formed)
  int line = 0;        // 1-based line in the message
  bool well_formed = false;
};

// Every cherry-pick line of `message`, in order. git writes the line at the
// end, but an amended or re-picked message can move it, so the whole message
// is read; only lines starting "(cherry picked from commit " count.
std::vector<CherryPickClaim> FindCherryPickClaims(std::string_view message);

struct ProvenanceVerdict {
  std::vector<RuleFinding> findings;
  // Sources that could not be looked up, in words ("<X>: not in this shallow
  // clone"): the provenance is unverified, never assumed good.
  std::vector<std::string> unverified;
};

// Checks the claims of `commit` against `repo`. In a shallow clone a missing
// source is unverified rather than a finding: it may lie below the cut.
ProvenanceVerdict CheckCherryPickProvenance(const Repository& repo, const CherryPickRule& rule,
                                            const TrailerSyntax& syntax, git_commit* commit);

}  // namespace vt::gate
