#include "governance/message_cleanup.h"

namespace vt::gate {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

int CleanMessage::SourceLine(int line) const {
  if (line < 1 || source_line.empty()) return line;
  if (static_cast<size_t>(line) > source_line.size()) return source_line.back();
  return source_line[static_cast<size_t>(line) - 1];
}

CleanupMode ParseCleanupMode(std::string_view value) {
  if (value == "whitespace") return CleanupMode::kWhitespace;
  if (value == "verbatim") return CleanupMode::kVerbatim;
  if (value == "scissors") return CleanupMode::kScissors;
  return CleanupMode::kStrip;
}

CleanMessage CleanupMessage(std::string_view raw, CleanupMode mode, char comment_char) {
  // Verbose commits put the diff below a scissors line; git truncates there in
  // every mode but verbatim.
  if (mode != CleanupMode::kVerbatim) {
    std::string cut =
        std::string(1, comment_char) + " ------------------------ >8 ------------------------\n";
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
