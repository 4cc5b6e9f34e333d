#include "governance/git_repository.h"

#include "governance/object_integrity.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <string_view>

namespace vt::gate {

std::string LastGitError() {
  const git_error* error = git_error_last();
  return error && error->message ? error->message : "unknown libgit2 error";
}

std::string OidHex(const git_oid& oid) {
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof(buf), &oid);
  return buf;
}

Result<Repository> Repository::Open(const std::string& path) {
  EnsureLibgit2();
  git_repository* repo = nullptr;
  if (git_repository_open_ext(&repo, path.c_str(), 0, nullptr) != 0) {
    return NotFound("not a git repository: " + path + " (" + LastGitError() + ")");
  }
  Repository out;
  out.repo_.reset(repo);
  VT_RETURN_IF_ERROR(InstallObjectGuard(repo));
  return out;
}

std::string Repository::root() const {
  const char* workdir = git_repository_workdir(repo_.get());
  return workdir ? workdir : git_repository_path(repo_.get());
}

std::string Repository::git_dir() const { return git_repository_path(repo_.get()); }

std::string Repository::common_dir() const { return git_repository_commondir(repo_.get()); }

std::string Repository::ConfigString(const char* name, const std::string& fallback) const {
  git_config* config = nullptr;
  if (git_repository_config_snapshot(&config, repo_.get()) != 0) return fallback;
  const char* value = nullptr;
  std::string out = fallback;
  if (git_config_get_string(&value, config, name) == 0 && value) out = value;
  git_config_free(config);
  return out;
}

TrailerSyntax Repository::ReadTrailerSyntax() const {
  TrailerSyntax syntax;
  git_config* config = nullptr;
  if (git_repository_config_snapshot(&config, repo_.get()) != 0) return syntax;
  const char* value = nullptr;
  // "auto" picks a character per commit in git; '#' is what it starts from.
  if (git_config_get_string(&value, config, "core.commentChar") == 0 && value && value[0] &&
      value[1] == '\0') {
    syntax.comment_char = value[0];
  }
  if (git_config_get_string(&value, config, "trailer.separators") == 0 && value && value[0]) {
    syntax.separators = value;
  }
  // Like git (trailer.c git_trailer_config), any of these variables makes
  // <name> a configured trailer; only `key` renames the tokens it matches.
  // Every entry is read and the names compared here: libgit2's glob iterator
  // runs a regular expression per entry, and PCRE2's match frames were 143 KB
  // of the commit-msg hook's 358 KB heap (valgrind's dhat). libgit2 gives the
  // section and variable in lower case, the subsection <name> as written.
  static constexpr std::string_view kVariables[] = {"key", "command", "cmd", "where", "ifexists", "ifmissing"};
  git_config_iterator* it = nullptr;
  if (git_config_iterator_new(&it, config) == 0) {
    git_config_entry* entry = nullptr;
    while (git_config_next(&entry, it) == 0) {
      const std::string_view full = entry->name;  // trailer.<name>.<variable>
      const size_t dot = full.rfind('.');
      if (!full.starts_with("trailer.") || dot == std::string_view::npos || dot <= 8 ||
          std::find(std::begin(kVariables), std::end(kVariables), full.substr(dot + 1)) == std::end(kVariables)) {
        continue;
      }
      std::string name(full.substr(8, dot - 8));
      auto same_name = [&](const ConfiguredTrailer& item) {
        return item.name.size() == name.size() &&
               std::equal(name.begin(), name.end(), item.name.begin(), [](char a, char b) {
                 return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
               });
      };
      auto item = std::find_if(syntax.configured.begin(), syntax.configured.end(), same_name);
      if (item == syntax.configured.end()) item = syntax.configured.insert(item, {name, ""});
      if (full.compare(dot + 1, std::string::npos, "key") == 0) item->key = entry->value ? entry->value : "";
    }
    git_config_iterator_free(it);
  }
  git_config_free(config);
  return syntax;
}

bool Repository::ConfigBool(const char* name, bool fallback) const {
  git_config* config = nullptr;
  if (git_repository_config_snapshot(&config, repo_.get()) != 0) return fallback;
  int value = 0;
  bool out = git_config_get_bool(&value, config, name) == 0 ? value != 0 : fallback;
  git_config_free(config);
  return out;
}

int Repository::PendingMergeHeads() const {
  int count = 0;
  git_repository_mergehead_foreach(
      repo_.get(),
      [](const git_oid*, void* payload) {
        ++*static_cast<int*>(payload);
        return 0;
      },
      &count);
  return count;
}

}  // namespace vt::gate
