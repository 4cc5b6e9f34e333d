// Where the record gates read files: the work tree (the default), the
// index (`preflight --staged`: the tree the next commit will have, so a
// partly staged change cannot pass on files that stay behind in the work
// tree), or a commit's tree (`--explain-base` re-runs a gate on the base
// alone). Paths are relative to the repository root.
#pragma once

#include <git2.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "governance/git_repository.h"

namespace vt::gate {

class FileSource {
 public:
  static FileSource WorkTree(const Repository& repo);
  // kUnavailable for a bare repository or an unreadable index.
  static Result<FileSource> Index(const Repository& repo);
  // kUnavailable when the commit or its tree cannot be read.
  static Result<FileSource> Commit(const Repository& repo, const git_oid& commit);

  // The file's bytes, or nullopt when there is no such regular file.
  std::optional<std::string> Read(const std::string& path) const;
  bool IsDirectory(const std::string& path) const;
  // The files matching `glob` (see path_glob.h), sorted.
  std::vector<std::string> Glob(const std::string& glob) const;
  // "the work tree", "the index" or "commit <id>", for messages.
  const std::string& name() const { return name_; }
  const std::string& root() const { return root_; }

 private:
  std::string root_;  // work tree root, trailing slash
  std::string name_ = "the work tree";
  bool index_ = false;                      // read `entries_` (the index or a commit's tree)
  git_repository* repo_ = nullptr;          // not owned; blob lookups for `entries_`
  std::map<std::string, git_oid> entries_;  // path -> blob id
};

}  // namespace vt::gate
