#include "governance/file_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "governance/path_glob.h"

namespace vt::gate {

FileSource FileSource::WorkTree(const Repository& repo) {
  FileSource source;
  source.root_ = repo.root();
  return source;
}

Result<FileSource> FileSource::Index(const Repository& repo) {
  FileSource source;
  source.root_ = repo.root();
  source.name_ = "the index";
  source.index_ = true;
  source.repo_ = repo.raw();
  git_index* index = nullptr;
  if (git_repository_index(&index, repo.raw()) != 0)
    return Unavailable("cannot read the index: " + LastGitError());
  size_t count = git_index_entrycount(index);
  for (size_t i = 0; i < count; ++i) {
    const git_index_entry* entry = git_index_get_byindex(index, i);
    // Stage 0 only: an unmerged path has no single content (the staged gate reports it).
    if (entry && GIT_INDEX_ENTRY_STAGE(entry) == 0) source.entries_.emplace(entry->path, entry->id);
  }
  git_index_free(index);
  return source;
}

Result<FileSource> FileSource::Commit(const Repository& repo, const git_oid& commit_id) {
  FileSource source;
  source.root_ = repo.root();
  source.name_ = "commit " + OidHex(commit_id).substr(0, 12);
  source.index_ = true;
  source.repo_ = repo.raw();
  git_commit* commit = nullptr;
  git_tree* tree = nullptr;
  if (git_commit_lookup(&commit, repo.raw(), &commit_id) != 0 || git_commit_tree(&tree, commit) != 0) {
    git_commit_free(commit);
    return Unavailable("cannot read the tree of " + source.name_ + ": " + LastGitError());
  }
  git_commit_free(commit);
  auto collect = [](const char* root, const git_tree_entry* entry, void* payload) -> int {
    if (git_tree_entry_type(entry) == GIT_OBJECT_BLOB) {
      static_cast<FileSource*>(payload)->entries_.emplace(std::string(root) + git_tree_entry_name(entry),
                                                          *git_tree_entry_id(entry));
    }
    return 0;
  };
  int rc = git_tree_walk(tree, GIT_TREEWALK_PRE, collect, &source);
  git_tree_free(tree);
  if (rc != 0) return Unavailable("cannot read the tree of " + source.name_ + ": " + LastGitError());
  return source;
}

std::optional<std::string> FileSource::Read(const std::string& path) const {
  if (!index_) {
    // One open and an fstat: a record check reads a thousand files, and each path walk costs.
    int fd = open((root_ + path).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    struct stat st;
    std::optional<std::string> text;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
      text.emplace(static_cast<size_t>(st.st_size), '\0');
      size_t done = 0;
      while (done < text->size()) {
        ssize_t n = read(fd, text->data() + done, text->size() - done);
        if (n <= 0) break;
        done += static_cast<size_t>(n);
      }
      text->resize(done);
    }
    close(fd);
    return text;
  }
  auto it = entries_.find(path);
  if (it == entries_.end()) return std::nullopt;
  git_blob* blob = nullptr;
  if (git_blob_lookup(&blob, repo_, &it->second) != 0) return std::nullopt;
  std::string text(static_cast<const char*>(git_blob_rawcontent(blob)), git_blob_rawsize(blob));
  git_blob_free(blob);
  return text;
}

bool FileSource::IsDirectory(const std::string& path) const {
  if (!index_) {
    std::error_code ec;
    return std::filesystem::is_directory(root_ + path, ec);
  }
  std::string prefix = path.empty() || path.back() == '/' ? path : path + "/";
  auto it = entries_.lower_bound(prefix);
  return it != entries_.end() && it->first.compare(0, prefix.size(), prefix) == 0;
}

std::vector<std::string> FileSource::Glob(const std::string& glob) const {
  if (!index_) return ExpandGlob(root_, glob);
  std::vector<std::string> out;
  for (const auto& [path, oid] : entries_) {
    if (GlobMatch(glob, path)) out.push_back(path);
  }
  return out;
}

}  // namespace vt::gate
