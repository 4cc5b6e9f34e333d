#include "governance/ownership.h"

#include <algorithm>
#include <memory>

#include "governance/anchors.h"
#include "governance/path_glob.h"

namespace vt::gate {
namespace {

struct TreeDeleter {
  void operator()(git_tree* tree) const { git_tree_free(tree); }
};
struct DiffDeleter {
  void operator()(git_diff* diff) const { git_diff_free(diff); }
};
using TreePtr = std::unique_ptr<git_tree, TreeDeleter>;

Result<TreePtr> TreeOf(git_commit* commit) {
  git_tree* tree = nullptr;
  if (git_commit_tree(&tree, commit) != 0)
    return Unavailable("cannot read the tree of " + OidHex(*git_commit_id(commit)) + ": " + LastGitError());
  return TreePtr(tree);
}

// The paths that differ between two trees (either may be null: the empty tree), sorted.
Result<std::vector<std::string>> DiffPaths(const Repository& repo, git_tree* old_tree, git_tree* new_tree,
                                           const std::string& what) {
  git_diff* raw = nullptr;
  if (git_diff_tree_to_tree(&raw, repo.raw(), old_tree, new_tree, nullptr) != 0)
    return Unavailable("cannot diff " + what + ": " + LastGitError());
  std::unique_ptr<git_diff, DiffDeleter> diff(raw);
  std::vector<std::string> files;
  for (size_t i = 0; i < git_diff_num_deltas(diff.get()); ++i) {
    const git_diff_delta* delta = git_diff_get_delta(diff.get(), i);
    files.push_back(delta->new_file.path);
    if (std::string(delta->old_file.path) != delta->new_file.path) files.push_back(delta->old_file.path);
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

struct CommitDeleter {
  void operator()(git_commit* commit) const { git_commit_free(commit); }
};

Result<TreePtr> TreeOfId(const Repository& repo, const git_oid& id) {
  git_commit* raw = nullptr;
  if (git_commit_lookup(&raw, repo.raw(), &id) != 0)
    return Unavailable("cannot read commit " + OidHex(id) + ": " + LastGitError());
  std::unique_ptr<git_commit, CommitDeleter> commit(raw);
  return TreeOf(commit.get());
}

}  // namespace

void OwnershipMap::Add(const Record& record, Anchored& into) {
  for (const RecordRow& row : record.rows) {
    for (Column column : {Column::kCode, Column::kTests}) {
      const MdCell* cell = row.Cell(column);
      if (!cell) continue;
      for (const AnchorTarget& target : CellAnchors(row.file, *cell)) {
        std::string path = target.path;
        while (!path.empty() && path.back() == '/') path.pop_back();
        std::vector<std::string>& ids = into[path];
        if (std::find(ids.begin(), ids.end(), row.id) == ids.end()) ids.push_back(row.id);
      }
    }
  }
}

OwnershipMap OwnershipMap::ForChange(const std::vector<Record>& base, const Record& after) {
  OwnershipMap map;
  for (const Record& record : base) Add(record, map.owners_);
  Add(after, map.claimed_);
  return map;
}

std::vector<std::string> OwnershipMap::OwnersIn(const Anchored& anchored, const std::string& path) {
  std::vector<std::string> owners;
  // The file itself, then each folder above it: `tests/governance` owns its files.
  for (std::string at = path;;) {
    if (auto it = anchored.find(at); it != anchored.end()) owners.insert(owners.end(), it->second.begin(), it->second.end());
    size_t slash = at.rfind('/');
    if (slash == std::string::npos) break;
    at.resize(slash);
  }
  std::sort(owners.begin(), owners.end());
  owners.erase(std::unique(owners.begin(), owners.end()), owners.end());
  return owners;
}

std::vector<std::string> OwnershipMap::Owners(const std::string& path) const {
  std::vector<std::string> owners = OwnersIn(owners_, path);
  return owners.empty() ? OwnersIn(claimed_, path) : owners;
}

Result<std::vector<std::string>> ChangedFiles(const Repository& repo, git_commit* commit) {
  Result<TreePtr> tree = TreeOf(commit);
  if (!tree.ok()) return tree.status();
  TreePtr parent_tree;
  if (git_commit_parentcount(commit) > 0) {
    git_commit* parent = nullptr;
    if (git_commit_parent(&parent, commit, 0) != 0)
      return Unavailable("cannot read the parent of " + OidHex(*git_commit_id(commit)) + ": " + LastGitError());
    Result<TreePtr> parent_tree_or = TreeOf(parent);
    git_commit_free(parent);
    if (!parent_tree_or.ok()) return parent_tree_or.status();
    parent_tree = std::move(parent_tree_or.value());
  }
  return DiffPaths(repo, parent_tree.get(), tree->get(), OidHex(*git_commit_id(commit)));
}

Result<std::vector<std::string>> ChangedFilesBetween(const Repository& repo, const git_oid& from, const git_oid& to) {
  Result<TreePtr> old_tree = TreeOfId(repo, from);
  if (!old_tree.ok()) return old_tree.status();
  Result<TreePtr> new_tree = TreeOfId(repo, to);
  if (!new_tree.ok()) return new_tree.status();
  return DiffPaths(repo, old_tree->get(), new_tree->get(), OidHex(from) + ".." + OidHex(to));
}

std::vector<std::string> UnownedChanges(const OwnershipMap& map, const OwnershipConfig& config,
                                        const std::vector<std::string>& rows, const std::vector<std::string>& files) {
  std::vector<std::string> problems;
  for (const std::string& file : files) {
    std::vector<std::string> owners = map.Owners(file);
    if (owners.empty()) continue;
    bool owned = std::any_of(rows.begin(), rows.end(), [&](const std::string& row) {
      return std::find(owners.begin(), owners.end(), row) != owners.end();
    });
    bool shared = std::any_of(config.shared.begin(), config.shared.end(),
                              [&](const std::string& glob) { return GlobMatch(glob, file); });
    if (owned || shared) continue;
    std::string list;
    for (const std::string& owner : owners) list += (list.empty() ? "" : ", ") + owner;
    problems.push_back(file + " (owned by " + list + ")");
  }
  return problems;
}

std::string UnownedMessage(const std::string& row_key, const std::vector<std::string>& rows,
                           const std::vector<std::string>& unowned) {
  std::string named;
  for (const std::string& row : rows) named += (named.empty() ? "" : ", ") + row;
  std::string text = row_key + ": " + (named.empty() ? "(none)" : named) + " changes files it does not own: ";
  for (size_t i = 0; i < unowned.size(); ++i) text += (i ? "; " : "") + unowned[i];
  return text;
}

}  // namespace vt::gate
