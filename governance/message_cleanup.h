// git's commit-message cleanup, for messages that have not been committed yet
// (the commit-msg hook's file, a draft): git runs the hook on the raw file and
// cleans the message afterwards, so the gate must clean it the same way to see
// what will be stored.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace vt::gate {

enum class CleanupMode { kStrip, kWhitespace, kVerbatim, kScissors };

// What git will do to the message: the mode, and whether it first truncates at
// the first scissors line.
struct CleanupPlan {
  CleanupMode mode = CleanupMode::kStrip;
  bool cut_at_scissors = true;
};

struct CleanMessage {
  std::string text;
  // source_line[i] is the 1-based line in the original of line i+1 of `text`,
  // so findings can point into the file the user edits.
  std::vector<int> source_line;

  int SourceLine(int line) const;
};

// A commit.cleanup value as git resolves it (sequencer.c get_cleanup_mode):
// `default` is strip when an editor ran and whitespace when not (`-m`, `-F`);
// `scissors` without an editor is whitespace; unknown values act as default.
CleanupMode ParseCleanupMode(std::string_view value, bool editor_used);

// git truncates at the first scissors line only when verbose (`-v`,
// commit.verbose) or in scissors mode, whatever the mode (builtin/commit.c).
// The commit-msg hook sees neither flag, but in an editor session git writes
// its own cut line exactly then, followed by nothing but comment lines up to
// the end or, with -v, a `diff --git` line: that layout is taken as git's.
// A scissors line followed by anything else (a trailer below a hand-typed
// one) is kept, as git keeps it. A `-v` given with `-m`/`-F` is invisible to
// the hook; commit.verbose is not.
CleanupPlan PlanCleanup(std::string_view raw, std::string_view commit_cleanup, bool editor_used,
                        bool verbose, char comment_char);

// Cuts at the scissors line when the plan says so, then (unless verbatim)
// strips trailing blanks, collapses blank lines, drops leading and trailing
// blank lines and, in strip mode, lines starting with `comment_char`.
CleanMessage CleanupMessage(std::string_view raw, const CleanupPlan& plan, char comment_char);

}  // namespace vt::gate
