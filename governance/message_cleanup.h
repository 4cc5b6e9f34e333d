// git's commit-message cleanup, for messages that have not been committed yet
// (the commit-msg hook's file, a draft): git runs the hook on the raw file and
// cleans the message afterwards, so the gate must clean it the same way to see
// what will be stored.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace vt::gate {

// commit.cleanup: `default` behaves as `strip` for an edited message.
enum class CleanupMode { kStrip, kWhitespace, kVerbatim, kScissors };

struct CleanMessage {
  std::string text;
  // source_line[i] is the 1-based line in the original of line i+1 of `text`,
  // so findings can point into the file the user edits.
  std::vector<int> source_line;

  int SourceLine(int line) const;
};

// Parses a commit.cleanup value; unknown values fall back to kStrip like git's default.
CleanupMode ParseCleanupMode(std::string_view value);

// Cuts at the scissors line, then (unless verbatim) strips trailing blanks,
// collapses blank lines, drops leading and trailing blank lines and, in strip
// mode, lines starting with `comment_char`.
CleanMessage CleanupMessage(std::string_view raw, CleanupMode mode, char comment_char);

}  // namespace vt::gate
