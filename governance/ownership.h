// "The row that anchors a file owns it" (AGENTS.md): a row's code and test
// anchors name the files it owns, and a commit may change an owned file only
// under the Row trailer of one of its owners. Files no row anchors are free;
// `record.ownership.shared` lists owned files any row may change (build files,
// shared fixtures). Checked by the trailers gate over ranges and pushes.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "governance/config.h"
#include "governance/git_repository.h"
#include "governance/record.h"

namespace vt::gate {

class OwnershipMap {
 public:
  // The owners a change is held to. Were they read from the record after the
  // change, a change could take a file over by anchoring it to its own row in
  // the same commit. So the records at the change's base decide (one per commit
  // the change starts from, all rows of all of them owning; none for a change
  // from a root commit), and `after` only names owners for files no row owned
  // there: a change may claim a free file, never take an owned one.
  static OwnershipMap ForChange(const std::vector<Record>& base, const Record& after);

  // The rows owning `path`, sorted: those anchoring the file itself or a
  // folder above it. Empty when no row anchors it.
  std::vector<std::string> Owners(const std::string& path) const;

 private:
  using Anchored = std::map<std::string, std::vector<std::string>>;  // anchored path -> row ids
  static void Add(const Record& record, Anchored& into);
  static std::vector<std::string> OwnersIn(const Anchored& anchored, const std::string& path);

  Anchored owners_;
  Anchored claimed_;  // after the change: consulted for files `owners_` leaves free
};

// The paths `commit` changes against its first parent (every path of a root
// commit), sorted.
Result<std::vector<std::string>> ChangedFiles(const Repository& repo, git_commit* commit);

// The paths that differ between the trees of commits `from` and `to`, sorted
// (a pull request's whole change: merge-base..head).
Result<std::vector<std::string>> ChangedFilesBetween(const Repository& repo, const git_oid& from, const git_oid& to);

// One line per changed file that `rows` (a commit's Row values) do not own:
// "governance/x.cpp (owned by GATE-CORE)". Shared files are never listed.
std::vector<std::string> UnownedChanges(const OwnershipMap& map, const OwnershipConfig& config,
                                        const std::vector<std::string>& rows, const std::vector<std::string>& files);

// "Row: A, B changes files it does not own: x (owned by C); ...", the finding's text.
std::string UnownedMessage(const std::string& row_key, const std::vector<std::string>& rows,
                           const std::vector<std::string>& unowned);

}  // namespace vt::gate
