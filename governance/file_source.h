// Where the record gates read files: the work tree (the default), or the
// index (`preflight --staged`: the tree the next commit will have, so a
// partly staged change cannot pass on files that stay behind in the work
// tree). Paths are relative to the repository root.
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

  // The file's bytes, or nullopt when there is no such regular file.
  std::optional<std::string> Read(const std::string& path) const;
  bool IsDirectory(const std::string& path) const;
  // The files matching `glob` (see path_glob.h), sorted.
  std::vector<std::string> Glob(const std::string& glob) const;
  // "the work tree" or "the index", for messages.
  const char* name() const { return index_ ? "the index" : "the work tree"; }
  const std::string& root() const { return root_; }

 private:
  std::string root_;  // work tree root, trailing slash
  bool index_ = false;
  git_repository* repo_ = nullptr;          // not owned; blob lookups for the index
  std::map<std::string, git_oid> entries_;  // index path -> blob id
};

}  // namespace vt::gate
