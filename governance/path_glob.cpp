#include "governance/path_glob.h"

#include <algorithm>
#include <filesystem>

namespace vt::gate {
namespace {

bool Match(const char* g, const char* p) {
  while (*g) {
    if (g[0] == '*' && g[1] == '*') {
      g += 2;
      if (*g == '/') ++g;  // `**/` also matches no folder at all
      for (const char* q = p;; ++q) {
        if (Match(g, q)) return true;
        if (!*q) return false;
      }
    }
    if (*g == '*') {
      ++g;
      for (const char* q = p;; ++q) {
        if (Match(g, q)) return true;
        if (!*q || *q == '/') return false;
      }
    }
    if (!*p || (*g == '?' ? *p == '/' : *g != *p)) return false;
    ++g;
    ++p;
  }
  return *p == '\0';
}

}  // namespace

bool GlobMatch(const std::string& glob, const std::string& path) { return Match(glob.c_str(), path.c_str()); }

std::vector<std::string> ExpandGlob(const std::string& root, const std::string& glob) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  size_t wildcard = glob.find_first_of("*?");
  if (wildcard == std::string::npos) {
    std::error_code ec;
    if (fs::is_regular_file(fs::path(root) / glob, ec)) out.push_back(glob);
    return out;
  }
  size_t slash = glob.rfind('/', wildcard);
  std::string prefix = slash == std::string::npos ? "" : glob.substr(0, slash);
  std::error_code ec;
  fs::path start = fs::path(root) / prefix;
  if (!fs::is_directory(start, ec)) return out;
  for (fs::recursive_directory_iterator it(start, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename() == ".git") {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(ec)) continue;
    std::string relative = fs::path(it->path()).lexically_relative(root).generic_string();
    if (GlobMatch(glob, relative)) out.push_back(relative);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace vt::gate
