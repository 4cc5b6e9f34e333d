#include "governance/message_cleanup.h"

namespace vt::gate {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string ScissorsLine(char comment_char) {
  return std::string(1, comment_char) + " ------------------------ >8 ------------------------";
}

// The first line at or after `at` (a line start) that is not a comment line;
// npos when none is.
size_t FirstNonCommentLine(std::string_view raw, size_t at, char comment_char) {
  while (at < raw.size() && raw[at] == comment_char) {
    size_t eol = raw.find('\n', at);
    if (eol == std::string_view::npos) return std::string_view::npos;
    at = eol + 1;
  }
  return at < raw.size() ? at : std::string_view::npos;
}

// Whether lines below a scissors line that turn non-comment at `stop` are what
// git writes below its own cut line: comment lines (its explanation, in
// scissors mode the status), then the end or, with -v, the diff. A scissors
// line typed by hand above trailers is not git's, and git keeps what follows it.
bool IsGitsCutLayout(std::string_view raw, size_t stop) {
  return stop == std::string_view::npos || raw.compare(stop, 11, "diff --git ") == 0;
}

}  // namespace

int CleanMessage::SourceLine(int line) const {
  if (line < 1 || source_line.empty()) return line;
  if (static_cast<size_t>(line) > source_line.size()) return source_line.back();
  return source_line[static_cast<size_t>(line) - 1];
}

CleanupMode ParseCleanupMode(std::string_view value, bool editor_used) {
  if (value == "whitespace") return CleanupMode::kWhitespace;
  if (value == "verbatim") return CleanupMode::kVerbatim;
  if (value == "strip") return CleanupMode::kStrip;
  if (value == "scissors") return editor_used ? CleanupMode::kScissors : CleanupMode::kWhitespace;
  return editor_used ? CleanupMode::kStrip : CleanupMode::kWhitespace;
}

CleanupPlan PlanCleanup(std::string_view raw, std::string_view commit_cleanup, bool editor_used,
                        bool verbose, char comment_char) {
  CleanupPlan plan;
  plan.mode = ParseCleanupMode(commit_cleanup, editor_used);
  bool git_wrote_cut_line = false;
  if (editor_used) {
    std::string cut = ScissorsLine(comment_char) + "\n";
    for (size_t at = raw.find(cut); at != std::string_view::npos;) {
      bool line_start = at == 0 || raw[at - 1] == '\n';
      size_t next = at + cut.size();
      if (!line_start || next >= raw.size()) {
        at = raw.find(cut, at + 1);
        continue;
      }
      size_t stop = FirstNonCommentLine(raw, next, comment_char);
      if (IsGitsCutLayout(raw, stop)) {
        git_wrote_cut_line = true;
        break;
      }
      // A scissors line before `stop` is a comment line followed by the same
      // lines, so the same answer: one pass over the message, however many.
      at = raw.find(cut, stop);
    }
  }
  plan.cut_at_scissors = verbose || plan.mode == CleanupMode::kScissors || git_wrote_cut_line;
  return plan;
}

CleanMessage CleanupMessage(std::string_view raw, const CleanupPlan& plan, char comment_char) {
  CleanupMode mode = plan.mode;
  if (plan.cut_at_scissors) {
    std::string cut = ScissorsLine(comment_char) + "\n";
    if (raw.substr(0, cut.size()) == cut) {
      raw = raw.substr(0, 0);
    } else if (size_t at = raw.find("\n" + cut); at != std::string_view::npos) {
      raw = raw.substr(0, at + 1);
    }
  }
  CleanMessage out;
  if (mode == CleanupMode::kVerbatim) {
    out.text = std::string(raw);
    int lines = 1;
    for (char c : raw) lines += c == '\n';
    for (int i = 1; i <= lines; ++i) out.source_line.push_back(i);
    return out;
  }
  // scissors mode is whitespace mode plus the cut: comment lines stay, as in git.
  bool skip_comments = mode == CleanupMode::kStrip;
  size_t empties = 0;
  int source = 0;
  for (size_t i = 0; i < raw.size();) {
    size_t eol = raw.find('\n', i);
    size_t len = eol == std::string_view::npos ? raw.size() - i : eol - i + 1;
    std::string_view line = raw.substr(i, len);
    i += len;
    ++source;
    if (skip_comments && !line.empty() && line[0] == comment_char) continue;
    while (!line.empty() && IsSpace(line.back())) line.remove_suffix(1);
    if (line.empty()) {
      ++empties;
      continue;
    }
    if (empties > 0 && !out.text.empty()) {
      out.text += '\n';
      out.source_line.push_back(source - 1);
    }
    empties = 0;
    out.text.append(line);
    out.text += '\n';
    out.source_line.push_back(source);
  }
  return out;
}

}  // namespace vt::gate
