#include "governance/anchors.h"

#include <cctype>
#include <filesystem>

namespace vt::gate {
namespace {

bool AllDigits(const std::string& s) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// "12" or "12-20" (a fragment may spell the second as "L20").
bool ParseLines(std::string s, AnchorTarget& target) {
  size_t dash = s.find('-');
  std::string first = s.substr(0, dash);
  std::string last = dash == std::string::npos ? first : s.substr(dash + 1);
  if (!last.empty() && last[0] == 'L') last.erase(0, 1);
  if (!AllDigits(first) || !AllDigits(last)) return false;
  target.first = std::stoi(first);
  target.last = std::stoi(last);
  return true;
}

std::string PercentDecode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

bool HasScheme(const std::string& url) {
  size_t colon = url.find(':');
  if (colon == std::string::npos || colon == 0) return false;
  for (size_t i = 0; i < colon; ++i) {
    char c = url[i];
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') return false;
  }
  return true;
}

int CountLines(const std::string& text) {
  int lines = 0;
  for (char c : text) lines += c == '\n';
  return lines + (!text.empty() && text.back() != '\n');
}

}  // namespace

std::optional<AnchorTarget> LinkTarget(const std::string& from_file, const std::string& url) {
  if (url.empty() || url[0] == '#' || HasScheme(url)) return std::nullopt;
  AnchorTarget target;
  std::string path = url;
  size_t hash = path.find('#');
  if (hash != std::string::npos) {
    std::string fragment = path.substr(hash + 1);
    path.erase(hash);
    target.has_fragment =
        !(fragment.size() > 1 && fragment[0] == 'L' && ParseLines(fragment.substr(1), target));
  }
  if (size_t query = path.find('?'); query != std::string::npos) path.erase(query);
  path = PercentDecode(path);
  std::filesystem::path resolved =
      path[0] == '/' ? std::filesystem::path(path.substr(1))
                     : std::filesystem::path(from_file).parent_path() / std::filesystem::path(path);
  target.path = resolved.lexically_normal().generic_string();
  return target;
}

std::optional<AnchorTarget> TextTarget(const std::string& text) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) return std::nullopt;
  AnchorTarget target;
  if (!ParseLines(text.substr(colon + 1), target)) return std::nullopt;
  target.path = std::filesystem::path(text.substr(0, colon)).lexically_normal().generic_string();
  return target;
}

std::string AnchorChecker::Check(const AnchorTarget& target) {
  if (target.path.empty() || target.path == "." || target.path.rfind("../", 0) == 0) {
    return target.path + " lies outside the repository";
  }
  auto it = line_counts_.find(target.path);
  if (it == line_counts_.end()) {
    int count = -1;
    if (source_.IsDirectory(target.path)) {
      count = 0;
    } else if (std::optional<std::string> text = source_.Read(target.path)) {
      count = CountLines(*text);
    }
    it = line_counts_.emplace(target.path, count).first;
  }
  if (it->second < 0) return target.path + " does not exist";
  if (target.first == 0) return "";
  if (target.first > target.last) {
    return target.path + ": line range " + std::to_string(target.first) + "-" + std::to_string(target.last) +
           " is reversed";
  }
  if (target.last > it->second) {
    return target.path + ": line " + std::to_string(target.last) + " is past the end (" +
           std::to_string(it->second) + " lines)";
  }
  return "";
}

std::vector<AnchorTarget> CellAnchors(const std::string& from_file, const MdCell& cell) {
  std::vector<AnchorTarget> out;
  for (const MdLink& link : cell.links) {
    if (std::optional<AnchorTarget> target = LinkTarget(from_file, link.url)) out.push_back(*target);
  }
  for (const std::string& span : cell.code_spans) {
    if (std::optional<AnchorTarget> target = TextTarget(span)) out.push_back(*target);
  }
  return out;
}

bool UnderPrefix(const std::string& path, const std::vector<std::string>& prefixes) {
  if (prefixes.empty()) return true;
  for (const std::string& prefix : prefixes) {
    if (path.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

}  // namespace vt::gate
