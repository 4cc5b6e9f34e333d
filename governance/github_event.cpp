#include "governance/github_event.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace vt::gate {
namespace {

using Json = nlohmann::json;

// The string at `path` (keys, outermost first), or "" when absent or not a string.
std::string StringAt(const Json& root, std::initializer_list<const char*> path) {
  const Json* node = &root;
  for (const char* key : path) {
    if (!node->is_object() || !node->contains(key)) return "";
    node = &(*node)[key];
  }
  return node->is_string() ? node->get<std::string>() : "";
}

bool BoolAt(const Json& root, const char* key) {
  return root.contains(key) && root[key].is_boolean() && root[key].get<bool>();
}

bool IsObjectId(const std::string& s) {
  return s.size() == 40 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// GitHub stores pull request bodies with CRLF line ends; git's trailer rules
// (and vt-gate's parser) read LF.
std::string WithUnixLineEnds(std::string text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;
    out += text[i];
  }
  return out;
}

Status Malformed(const std::string& name, const std::string& what) {
  return InvalidArgument("GitHub event '" + name + "': " + what);
}

}  // namespace

Result<GithubEvent> ParseGithubEvent(const std::string& name, const std::string& json) {
  Json root = Json::parse(json, nullptr, false);
  if (root.is_discarded() || !root.is_object()) return Malformed(name, "the payload is not a JSON object");
  GithubEvent event;
  event.name = name;
  event.default_branch = StringAt(root, {"repository", "default_branch"});
  if (event.IsPush()) {
    event.ref = StringAt(root, {"ref"});
    event.before = StringAt(root, {"before"});
    event.after = StringAt(root, {"after"});
    event.forced = BoolAt(root, "forced");
    event.deleted = BoolAt(root, "deleted");
    if (event.ref.empty() || !IsObjectId(event.before) || !IsObjectId(event.after))
      return Malformed(name, "a push payload needs `ref` and 40-hex `before` and `after`");
  } else if (event.IsPullRequest()) {
    const Json& pr = root.contains("pull_request") ? root["pull_request"] : Json();
    if (root.contains("number") && root["number"].is_number_integer()) event.number = root["number"].get<int>();
    event.title = WithUnixLineEnds(StringAt(pr, {"title"}));
    event.body = WithUnixLineEnds(StringAt(pr, {"body"}));  // null when the body is empty
    event.base_sha = StringAt(pr, {"base", "sha"});
    event.base_ref = StringAt(pr, {"base", "ref"});
    event.head_sha = StringAt(pr, {"head", "sha"});
    if (!IsObjectId(event.base_sha) || !IsObjectId(event.head_sha))
      return Malformed(name, "a pull request payload needs 40-hex `pull_request.base.sha` and `.head.sha`");
  } else if (event.IsMergeGroup()) {
    event.base_sha = StringAt(root, {"merge_group", "base_sha"});
    event.head_sha = StringAt(root, {"merge_group", "head_sha"});
    event.base_ref = StringAt(root, {"merge_group", "base_ref"});
    if (!IsObjectId(event.base_sha) || !IsObjectId(event.head_sha))
      return Malformed(name, "a merge_group payload needs 40-hex `merge_group.base_sha` and `.head_sha`");
  }
  return event;
}

Result<GithubEvent> LoadGithubEvent(const std::string& name, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(path + ": cannot read the GitHub event payload");
  std::ostringstream text;
  text << in.rdbuf();
  return ParseGithubEvent(name, text.str());
}

}  // namespace vt::gate
