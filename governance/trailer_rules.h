// The trailer rules of `.vt-gate.yaml` applied to one commit message. Pure:
// no repository access, so the same rules serve ranges, pushes and message
// files.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "governance/config.h"
#include "governance/trailer_parser.h"

namespace vt::gate {

struct RuleFinding {
  std::string rule;  // "required:Row", "value:AI-Assisted", "forbidden:Change-Id", "marker", ...
  int line = 0;      // 1-based line in the message; 0 when the message as a whole is at fault
  std::string message;
};

// Why a commit was not checked; kChecked when it was.
enum class CommitDisposition { kChecked, kSkippedMerge, kSkippedFixup, kSkippedRevert, kSkippedBot };

struct MessageVerdict {
  CommitDisposition disposition = CommitDisposition::kChecked;
  std::vector<RuleFinding> findings;
};

struct MessageFacts {
  std::string_view message;
  int parent_count = 1;        // merges are detected by parent count, never by title
  std::string_view author;     // "Name <email>", empty for a message file
  bool check_encoding = true;  // false when the commit declares a non-UTF-8 encoding
};

// ASCII case-insensitive equality: trailer keys compare this way in git.
bool EqualsNoCase(std::string_view a, std::string_view b);

MessageVerdict CheckMessage(const TrailerConfig& config, const TrailerSyntax& syntax,
                            const MessageFacts& facts);

// The ids CheckMessage looks up in the record for `block`: the values of each in_record key whose
// requirement's condition holds, less the values it lists outright (`none`); sorted, each once.
std::vector<std::string> RecordIdsNamed(const TrailerConfig& config, const TrailerBlock& block);

}  // namespace vt::gate
