// What a GitHub Actions event payload (the JSON file at GITHUB_EVENT_PATH)
// says about the change a workflow run is for. Only the fields vt-gate uses
// are read; anything else in the payload is ignored.
#pragma once

#include <string>

#include "base/status.h"

namespace vt::gate {

struct GithubEvent {
  std::string name;  // GITHUB_EVENT_NAME: push, pull_request, merge_group, ...

  // push: the ref moved from `before` to `after` (40 hex; all zeros for a new
  // ref, `after` all zeros for a deletion).
  std::string ref;
  std::string before;
  std::string after;
  bool forced = false;
  bool deleted = false;
  std::string default_branch;  // repository.default_branch, e.g. "main"

  // pull_request / pull_request_target: the change is head_sha excluding
  // base_sha; its description is the title and body. merge_group fills the
  // two shas too.
  int number = 0;
  std::string title;
  std::string body;
  std::string base_sha;
  std::string base_ref;  // the base branch's name, e.g. "main"
  std::string head_sha;

  bool IsPush() const { return name == "push"; }
  bool IsPullRequest() const { return name == "pull_request" || name == "pull_request_target"; }
  bool IsMergeGroup() const { return name == "merge_group"; }
};

// Parses a payload. Malformed JSON, or a push / pull request payload without
// the fields its kind always has, is kInvalidArgument.
Result<GithubEvent> ParseGithubEvent(const std::string& name, const std::string& json);

// Reads and parses the payload file; an unreadable file is kNotFound.
Result<GithubEvent> LoadGithubEvent(const std::string& name, const std::string& path);

}  // namespace vt::gate
