#include "governance/file_source.h"

#include <filesystem>
#include <fstream>
#include <sstream>

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

std::optional<std::string> FileSource::Read(const std::string& path) const {
  if (!index_) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(root_ + path, ec)) return std::nullopt;
    std::ifstream in(root_ + path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
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
