// A commit as the history walks read it: the raw object, parsed only as far as
// the walk and the message checks need (parents, committer time, encoding,
// message, the author's name and email), exactly as libgit2 1.5's commit_parse reads those fields.
//
// libgit2's git_commit_lookup also parses both signatures, copies the header
// and the message and caches the result: 12% of a `trailers --range` over
// 5,000 commits, for fields the gates rarely read. Anything but a well-formed
// header (the tree, parents, an author and a committer line with a numeric
// time) is handed to git_commit_lookup, so malformed commits fail as before;
// the full commit is also what Full() returns, read on first use (authors,
// trees, diffs).
#pragma once

#include <git2.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "governance/git_repository.h"

namespace vt::gate {

// "Name <email>" of a libgit2 signature ("" for none): how the gates match authors.
std::string SignatureText(const git_signature* signature);

class WalkedCommit {
 public:
  // Reads `oid`, with its author when `author` (a walk holds many commits: the author's bytes are
  // kept only for a rule that reads them); errors are libgit2's (the caller names the object).
  static Result<WalkedCommit> Read(const Repository& repo, const git_oid& oid, bool author = false);
  // Wraps a commit read elsewhere; it stays the caller's. With `author`, author() holds its author.
  static WalkedCommit Borrow(git_commit* commit, bool author = true);

  WalkedCommit(WalkedCommit&& other) noexcept;
  WalkedCommit& operator=(WalkedCommit&& other) noexcept;
  WalkedCommit(const WalkedCommit&) = delete;
  WalkedCommit& operator=(const WalkedCommit&) = delete;
  ~WalkedCommit();

  const git_oid& id() const { return id_; }
  git_time_t time() const { return time_; }  // the committer's
  unsigned parent_count() const { return static_cast<unsigned>(parents_.size()); }
  const git_oid& parent(unsigned i) const { return parents_[i]; }
  // As git_commit_message: leading newlines skipped, up to a NUL.
  std::string_view message() const { return owns_message_ ? std::string_view(own_message_) : message_; }
  // As git_commit_message_encoding: null when the header names none.
  const char* encoding() const { return has_encoding_ ? encoding_.c_str() : nullptr; }
  // The author as "Name <email>", split and trimmed as git_commit_author has it; empty when the
  // commit was read without it.
  const std::string& author() const;
  // libgit2's commit, read on first use; null when it cannot be read.
  git_commit* Full() const;

 private:
  WalkedCommit() = default;
  void Release();

  const Repository* repo_ = nullptr;
  git_oid id_{};
  git_time_t time_ = 0;
  std::vector<git_oid> parents_;
  // A walk holds every commit of a range until it is visited: the message is
  // copied out and the raw object freed at once (kept raw objects cost 460
  // more page faults over 5,000 commits than libgit2's parsed commits did).
  std::string own_message_;
  bool owns_message_ = false;
  std::string_view message_;  // in full_, when the commit came from libgit2
  std::string encoding_;
  bool has_encoding_ = false;
  std::unique_ptr<const std::string> author_;  // a pointer: most walks never ask, and hold many commits
  mutable git_commit* full_ = nullptr;  // owned unless borrowed
  bool borrowed_ = false;
};

}  // namespace vt::gate
