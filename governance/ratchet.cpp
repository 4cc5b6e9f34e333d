#include "governance/ratchet.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

namespace vt::gate {
namespace {

// The first line that is neither blank nor a `#` comment holds the count.
Result<int> ParseBaseline(const std::string& text, const std::string& path) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    size_t begin = line.find_first_not_of(" \t\r");
    if (begin == std::string::npos || line[begin] == '#') continue;
    size_t end = line.find_last_not_of(" \t\r");
    std::string number = line.substr(begin, end - begin + 1);
    if (number.empty() || number.size() > 9 || !std::all_of(number.begin(), number.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c));
        })) {
      return InvalidArgument(path + ": `" + number + "` is not a count");
    }
    return std::stoi(number);
  }
  return InvalidArgument(path + ": no count in the baseline file");
}

// The baseline as the base commit has it; nullopt when the base has no such file.
Result<std::optional<int>> BaselineAt(const Repository& repo, const git_oid& base, const std::string& path) {
  git_commit* commit = nullptr;
  if (git_commit_lookup(&commit, repo.raw(), &base) != 0) return Internal("base commit: " + LastGitError());
  git_tree* tree = nullptr;
  int rc = git_commit_tree(&tree, commit);
  git_commit_free(commit);
  if (rc != 0) return Internal("base tree: " + LastGitError());
  git_tree_entry* entry = nullptr;
  rc = git_tree_entry_bypath(&entry, tree, path.c_str());
  git_tree_free(tree);
  if (rc == GIT_ENOTFOUND) return std::optional<int>();
  if (rc != 0) return Internal("base tree: " + LastGitError());
  git_blob* blob = nullptr;
  rc = git_blob_lookup(&blob, repo.raw(), git_tree_entry_id(entry));
  git_tree_entry_free(entry);
  if (rc != 0) return Internal(path + " at the base: " + LastGitError());
  std::string text(static_cast<const char*>(git_blob_rawcontent(blob)), git_blob_rawsize(blob));
  git_blob_free(blob);
  Result<int> count = ParseBaseline(text, path + " at the base");
  if (!count.ok()) return count.status();
  return std::optional<int>(count.value());
}

}  // namespace

void ApplyRatchets(const Repository& repo, const Config& config, const std::optional<git_oid>& base,
                   GateReport& report) {
  bool configured = std::any_of(config.ratchets.begin(), config.ratchets.end(),
                                [&](const Ratchet& r) { return r.gate == report.gate; });
  // A gate that could not run at all (an unreadable record) has nothing to count.
  bool broken = report.status == GateStatus::kFail && report.findings.empty();
  if (!configured || broken || report.status == GateStatus::kSkip) return;
  std::string unverified;
  size_t before = report.findings.size();
  for (const Ratchet& ratchet : config.ratchets) {
    if (ratchet.gate != report.gate) continue;
    auto add = [&](std::string message) {
      report.findings.push_back({"ratchet:" + ratchet.rule, "", ratchet.baseline, 1, std::move(message)});
    };
    std::ifstream in(repo.root() + ratchet.baseline, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    Result<int> baseline = in ? ParseBaseline(text.str(), ratchet.baseline)
                              : Result<int>(NotFound(ratchet.baseline + " does not exist (config " +
                                                     config.path + ":" + std::to_string(ratchet.line) + ")"));
    if (!baseline.ok()) {
      add(baseline.status().message());
      continue;
    }
    int count = static_cast<int>(std::count_if(report.findings.begin(), report.findings.end(),
                                               [&](const Finding& f) { return f.rule == ratchet.rule; }));
    int pinned = baseline.value();
    if (count <= pinned) {
      report.findings.erase(std::remove_if(report.findings.begin(), report.findings.end(),
                                           [&](const Finding& f) { return f.rule == ratchet.rule; }),
                            report.findings.end());
      report.notes.push_back("ratchet " + ratchet.rule + ": " + std::to_string(count) + " pinned by " +
                             ratchet.baseline + " (" + std::to_string(pinned) + ")");
    }
    if (count > pinned) {
      add(std::to_string(count) + " `" + ratchet.rule + "` findings, but the baseline pins " +
          std::to_string(pinned) + ": fix the new ones");
    } else if (count < pinned) {
      add("the count of `" + ratchet.rule + "` fell to " + std::to_string(count) +
          ": lower the baseline from " + std::to_string(pinned) + " to " + std::to_string(count) +
          " in this change");
    }
    if (!base) {
      unverified = "ratchet " + ratchet.rule + ": no base to compare " + ratchet.baseline + " with";
      continue;
    }
    Result<std::optional<int>> at_base = BaselineAt(repo, *base, ratchet.baseline);
    if (!at_base.ok()) {
      add(at_base.status().message());
    } else if (at_base.value() && pinned > *at_base.value()) {
      add("the baseline was raised from " + std::to_string(*at_base.value()) + " to " +
          std::to_string(pinned) + "; a ratchet only goes down");
    }
  }
  if (!report.findings.empty()) {
    if (report.findings.size() != before || report.status != GateStatus::kFail) {
      report.reason = Counted(report.findings.size(), "finding") + " after ratchets; " + report.reason;
    }
    report.status = GateStatus::kFail;
  } else if (!unverified.empty()) {
    report.status = GateStatus::kSkip;
    report.reason = unverified;
  } else if (report.status == GateStatus::kFail) {
    report.status = GateStatus::kOk;
    report.reason = "every finding is pinned by a ratchet; " + report.reason;
  }
}

}  // namespace vt::gate
