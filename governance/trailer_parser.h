// A commit-message trailer parser with git's own semantics (git 2.39
// trailer.c, `git interpret-trailers --parse`): the trailer block is the last
// paragraph before any `---` patch divider, trailing comments, a scissors line
// or a "Conflicts:" block; it counts when all its lines are trailers, or when
// at least 25% are and one is git-generated (Signed-off-by, cherry-picked) or
// configured; indented lines continue the previous trailer and are unfolded.
//
// vt-gate follows git rather than libgit2's git_message_trailers, which ports
// an older trailer.c (see tests/fixtures/trailers/README.md for where the two
// disagree).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace vt::gate {

// A trailer known to git config (`trailer.<name>.key`): it makes a 25%
// paragraph a trailer block and renames tokens that prefix it, as git does.
struct ConfiguredTrailer {
  std::string name;
  std::string key;  // empty when only the name is configured
};

struct TrailerSyntax {
  char comment_char = '#';       // core.commentChar
  std::string separators = ":";  // trailer.separators
  std::vector<ConfiguredTrailer> configured;
};

struct Trailer {
  std::string key;
  std::string value;  // trimmed, continuation lines unfolded to one space
  int line = 0;       // 1-based line of the key in the message
};

struct TrailerBlock {
  bool found = false;
  int first_line = 0;  // 1-based line range of the block when found
  int last_line = 0;
  std::vector<Trailer> trailers;
};

TrailerBlock ParseTrailers(std::string_view message, const TrailerSyntax& syntax = {});

// Why a message has no trailer block, in words a user can act on ("line 7
// `see below` is not a trailer, so lines 5-8 are not a trailer block ...").
struct MissingBlockDiagnosis {
  std::string reason;  // empty when the message does have a trailer block
  int line = 0;        // the line at fault, 0 when the message as a whole is
};

MissingBlockDiagnosis DiagnoseMissingTrailerBlock(std::string_view message, const TrailerSyntax& syntax = {});

}  // namespace vt::gate
