// The `trailers` gate: the rules of config.trailers over a commit range, the
// commits of a push, or one message file.
#pragma once

#include <istream>
#include <optional>
#include <string>

#include "governance/config.h"
#include "governance/git_range.h"
#include "governance/report.h"

namespace vt::gate {

// Checks every commit in merge-base(base, head)..head. `base` is already
// pinned by the caller.
GateReport CheckTrailerRange(const Repository& repo, const Config& config, const git_oid& base,
                             const std::string& head_spec = "HEAD");

// Checks the commits of a scope chosen by the caller (CI's pushed commits, a
// pull request's head excluding its base).
GateReport CheckTrailerScope(const Repository& repo, const Config& config, const ChangeScope& scope);

// Checks a message that is not committed yet, cleaned as git would clean it
// (core.commentChar, commit.cleanup, commit.verbose) when `repo` is given.
// `editor_used` is false when git committed without an editor (`-m`, `-F`:
// git runs the hook with GIT_EDITOR=:), which changes git's default cleanup.
// A merge in progress (MERGE_HEAD) makes the message a merge's. `path` "-"
// reads stdin.
GateReport CheckTrailerMessageFile(const Repository* repo, const Config& config, const std::string& path,
                                   bool editor_used = true);

// pre-push: reads "<local ref> <local sha> <remote ref> <remote sha>" lines
// and checks the pushed commits from the object database (no checkout).
// Deletions push nothing; a new branch is checked against the remote's
// tracking refs, else (a remote this repository knows nothing of) every
// commit it reaches above the cutover is. `base` is only reported.
GateReport CheckTrailerPush(const Repository& repo, const Config& config, std::istream& ref_lines,
                            const std::string& remote, const std::optional<git_oid>& base);

}  // namespace vt::gate
