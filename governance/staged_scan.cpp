#include "governance/staged_scan.h"

#include <chrono>
#include <set>
#include <string_view>

namespace vt::gate {
namespace {

// The markers git writes: seven characters, then a space or the end of line.
// A bare "=======" is left alone: it is also a Markdown/reST underline.
bool IsConflictMarker(std::string_view line) {
  for (std::string_view marker : {"<<<<<<<", ">>>>>>>", "|||||||"}) {
    if (line.substr(0, 7) != marker) continue;
    if (line.size() == 7 || line[7] == ' ' || line[7] == '\n' || line[7] == '\r') return true;
  }
  return false;
}

struct ScanState {
  GateReport* report;
  std::set<std::string> files;
};

int OnLine(const git_diff_delta* delta, const git_diff_hunk*, const git_diff_line* line, void* payload) {
  auto* state = static_cast<ScanState*>(payload);
  if (line->origin != GIT_DIFF_LINE_ADDITION) return 0;
  std::string_view text(line->content, line->content_len);
  if (!IsConflictMarker(text)) return 0;
  std::string marker(text.substr(0, 7));
  state->report->findings.push_back({"conflict-marker", "", delta->new_file.path, line->new_lineno,
                                     "staged line starts with the conflict marker `" + marker + "`"});
  return 0;
}

int OnFile(const git_diff_delta* delta, float, void* payload) {
  static_cast<ScanState*>(payload)->files.insert(delta->new_file.path);
  return 0;
}

}  // namespace

GateReport ScanStagedConflictMarkers(const Repository& repo) {
  auto start = std::chrono::steady_clock::now();
  GateReport report;
  report.gate = "staged";
  git_index* index = nullptr;
  if (git_repository_index(&index, repo.raw()) != 0) {
    report.status = GateStatus::kFail;
    report.reason = "cannot read the index: " + LastGitError();
    return report;
  }
  if (git_index_has_conflicts(index)) {
    git_index_conflict_iterator* it = nullptr;
    if (git_index_conflict_iterator_new(&it, index) == 0) {
      const git_index_entry *ancestor, *ours, *theirs;
      while (git_index_conflict_next(&ancestor, &ours, &theirs, it) == 0) {
        const git_index_entry* any = ours ? ours : theirs ? theirs : ancestor;
        report.findings.push_back({"unmerged", "", any->path, 0, "unmerged path in the index"});
      }
      git_index_conflict_iterator_free(it);
    }
  }
  git_tree* head_tree = nullptr;
  git_object* head = nullptr;
  if (git_revparse_single(&head, repo.raw(), "HEAD^{tree}") == 0)
    head_tree = reinterpret_cast<git_tree*>(head);
  git_diff* diff = nullptr;
  git_diff_options options = GIT_DIFF_OPTIONS_INIT;
  options.context_lines = 0;
  ScanState state{&report, {}};
  int rc = git_diff_tree_to_index(&diff, repo.raw(), head_tree, index, &options);
  if (rc == 0) {
    git_diff_foreach(diff, OnFile, nullptr, nullptr, OnLine, &state);
    git_diff_free(diff);
  }
  git_object_free(head);
  git_index_free(index);
  report.checked = static_cast<int>(state.files.size());
  if (rc != 0) {
    report.status = GateStatus::kFail;
    report.reason = "cannot diff the index: " + LastGitError();
  } else if (!report.findings.empty()) {
    report.status = GateStatus::kFail;
    report.reason = std::to_string(report.findings.size()) + " conflict markers or unmerged paths in " +
                    std::to_string(report.checked) + " staged files";
  } else {
    report.reason = std::to_string(report.checked) + " staged files, no conflict markers";
  }
  report.elapsed_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace vt::gate
