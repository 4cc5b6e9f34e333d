#include "governance/object_integrity.h"

#include <git2/sys/odb_backend.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <type_traits>

#include "governance/git_repository.h"

namespace vt::gate {
namespace {

// libgit2 gives packs priority 2 and loose objects 1, and asks higher
// priorities first: at 2 the guard comes after the packs (no extra work for
// packed objects) and before every loose backend.
constexpr int kGuardPriority = 2;
// libgit2's own limit on nested alternates.
constexpr int kMaxAlternateDepth = 5;

enum class StreamState { kComplete, kTruncated, kCorrupt };

// Inflates the whole file, discarding the output: the only way to know that
// a deflate stream ends is to decode it. Loose objects are small; this runs
// only for objects that are not packed.
StreamState CheckZlibStream(std::FILE* file) {
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return StreamState::kCorrupt;
  std::unique_ptr<z_stream, int (*)(z_stream*)> cleanup(&z, inflateEnd);
  unsigned char in[1 << 14];
  unsigned char out[1 << 16];
  while (true) {
    size_t got = std::fread(in, 1, sizeof(in), file);
    if (got == 0) return StreamState::kTruncated;
    z.next_in = in;
    z.avail_in = static_cast<uInt>(got);
    do {
      z.next_out = out;
      z.avail_out = sizeof(out);
      int rc = inflate(&z, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) return StreamState::kComplete;
      if (rc != Z_OK && rc != Z_BUF_ERROR) return StreamState::kCorrupt;
    } while (z.avail_out == 0);
  }
}

struct GuardBackend {
  git_odb_backend parent;  // first: libgit2 hands the guard back as this
  std::vector<std::string>* loose_dirs;
};
static_assert(std::is_standard_layout_v<GuardBackend>, "libgit2 casts the backend to its first member");

GuardBackend* GuardOf(git_odb_backend* backend) { return reinterpret_cast<GuardBackend*>(backend); }

// An error for libgit2 to pass up, or GIT_PASSTHROUGH to let the next backend read.
int CheckLooseFile(const std::string& path, const std::string& hex) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) return GIT_PASSTHROUGH;
  StreamState state = CheckZlibStream(file);
  std::fclose(file);
  if (state == StreamState::kComplete) return GIT_PASSTHROUGH;
  std::string message = "corrupt object " + hex + ": " +
                        (state == StreamState::kTruncated ? "truncated" : "invalid") +
                        " zlib stream in loose object file " + path;
  git_error_set_str(GIT_ERROR_ODB, message.c_str());
  return GIT_ERROR;
}

int GuardRead(void**, size_t*, git_object_t*, git_odb_backend* backend, const git_oid* oid) {
  std::string hex = OidHex(*oid);
  // The loose backend that would read it is the first directory holding the file.
  for (const std::string& dir : *GuardOf(backend)->loose_dirs) {
    std::string path = dir + hex.substr(0, 2) + "/" + hex.substr(2);
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) return CheckLooseFile(path, hex);
  }
  return GIT_PASSTHROUGH;
}

int GuardReadPrefix(git_oid*, void**, size_t*, git_object_t*, git_odb_backend* backend, const git_oid* short_id,
                    size_t length) {
  std::string prefix = OidHex(*short_id).substr(0, length);
  if (prefix.size() < 2) return GIT_PASSTHROUGH;
  for (const std::string& dir : *GuardOf(backend)->loose_dirs) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir + prefix.substr(0, 2), ec)) {
      std::string name = entry.path().filename().string();
      if (name.compare(0, prefix.size() - 2, prefix, 2) != 0) continue;
      int rc = CheckLooseFile(entry.path().string(), prefix.substr(0, 2) + name);
      if (rc != GIT_PASSTHROUGH) return rc;
    }
  }
  return GIT_PASSTHROUGH;
}

void GuardFree(git_odb_backend* backend) {
  GuardBackend* guard = GuardOf(backend);
  delete guard->loose_dirs;
  delete guard;
}

// The objects directory and its alternates (objects/info/alternates), as
// libgit2 reads them: one path a line, `#` comments, relative to the
// directory that lists them.
void CollectObjectDirs(const std::filesystem::path& dir, int depth, std::vector<std::string>* out) {
  std::string name = dir.lexically_normal().string();
  if (name.empty() || name.back() != '/') name += '/';
  for (const std::string& known : *out) {
    if (known == name) return;
  }
  out->push_back(name);
  if (depth >= kMaxAlternateDepth) return;
  std::ifstream alternates(dir / "info/alternates");
  std::string line;
  while (std::getline(alternates, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::filesystem::path alternate(line);
    CollectObjectDirs(alternate.is_absolute() ? alternate : dir / alternate, depth + 1, out);
  }
}

}  // namespace

Status InstallObjectGuard(git_repository* repo) {
  git_buf objects = GIT_BUF_INIT;
  if (git_repository_item_path(&objects, repo, GIT_REPOSITORY_ITEM_OBJECTS) != 0) {
    return Internal("objects directory: " + LastGitError());
  }
  auto dirs = std::make_unique<std::vector<std::string>>();
  CollectObjectDirs(objects.ptr, 0, dirs.get());
  git_buf_dispose(&objects);

  git_odb* odb = nullptr;
  if (git_repository_odb(&odb, repo) != 0) return Internal("object database: " + LastGitError());
  auto guard = std::make_unique<GuardBackend>();
  git_odb_init_backend(&guard->parent, GIT_ODB_BACKEND_VERSION);
  guard->parent.read = GuardRead;
  guard->parent.read_prefix = GuardReadPrefix;
  guard->parent.free = GuardFree;
  guard->loose_dirs = dirs.release();
  int rc = git_odb_add_backend(odb, &guard->parent, kGuardPriority);
  git_odb_free(odb);
  if (rc != 0) {
    delete guard->loose_dirs;
    return Internal("object guard: " + LastGitError());
  }
  guard.release();  // the object database owns it now and frees it through GuardFree
  return Status::Ok();
}

Status HistoryReadFailure(const Repository& repo, const std::vector<git_oid>& tips, const std::string& what) {
  std::string cause = LastGitError();
  std::set<std::string> seen;
  std::vector<git_oid> stack(tips.begin(), tips.end());
  while (!stack.empty()) {
    git_oid oid = stack.back();
    stack.pop_back();
    if (!seen.insert(OidHex(oid)).second) continue;
    git_commit* commit = nullptr;
    int rc = git_commit_lookup(&commit, repo.raw(), &oid);
    if (rc != 0) {
      std::string why = LastGitError();
      std::string kind = rc == GIT_ENOTFOUND ? "missing object " : "corrupt object ";
      // The guard's message already names the object.
      if (why.rfind(kind + OidHex(oid), 0) == 0) return Unavailable(why);
      return Unavailable(kind + OidHex(oid) + ": " + why);
    }
    for (unsigned i = 0; i < git_commit_parentcount(commit); ++i) stack.push_back(*git_commit_parent_id(commit, i));
    git_commit_free(commit);
  }
  return Internal(what + ": " + cause);
}

}  // namespace vt::gate
