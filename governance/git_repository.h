// An open libgit2 repository and the few repository facts the gates need.
// Everything is read in-process; no `git` subprocess on the check path.
#pragma once

#include <git2.h>

#include <memory>
#include <string>

#include "base/status.h"
#include "governance/trailer_parser.h"

namespace vt::gate {

// Calls git_libgit2_init once per process, offline (governance/libgit2_runtime.cpp).
void EnsureLibgit2();

// The message of the last libgit2 error, for Status messages.
std::string LastGitError();

struct RepoDeleter {
  void operator()(git_repository* repo) const { git_repository_free(repo); }
};
using RepoPtr = std::unique_ptr<git_repository, RepoDeleter>;

class Repository {
 public:
  // Opens the repository containing `path` (searching upwards like git).
  static Result<Repository> Open(const std::string& path);

  git_repository* raw() const { return repo_.get(); }
  // The work tree root with a trailing slash, or the git dir for a bare repository.
  std::string root() const;
  std::string git_dir() const;
  // The git dir its linked worktrees share (git_dir() itself outside a linked worktree): where git
  // looks for hooks, config and refs.
  std::string common_dir() const;

  // The trailer syntax from git config: core.commentChar, trailer.separators,
  // trailer.<name>.key.
  TrailerSyntax ReadTrailerSyntax() const;
  // A git config string, or `fallback` when unset.
  std::string ConfigString(const char* name, const std::string& fallback) const;
  // A git config boolean (git's spellings, numbers too), or `fallback` when unset or unreadable.
  bool ConfigBool(const char* name, bool fallback) const;
  // The commits in MERGE_HEAD: a commit made now gets them as extra parents.
  int PendingMergeHeads() const;

 private:
  RepoPtr repo_;
};

// A commit id as 40 hex characters.
std::string OidHex(const git_oid& oid);

}  // namespace vt::gate
