// `.vt-gate.yaml`: the rules live here, not in code. This header is the
// in-memory form; config_loader.cpp reads and validates the file.
#pragma once

#include <climits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/status.h"
#include "governance/pattern.h"

namespace vt::gate {

// A cardinality: "1", ">=1", "<=1", "0", "1..3".
struct CountSpec {
  int min = 1;
  int max = 1;
  bool Allows(int n) const { return n >= min && n <= max; }
  std::string Describe() const;
};

struct TrailerRequirement {
  std::string key;
  CountSpec count;
  std::optional<Pattern> pattern;   // every value must match (search; anchor it yourself)
  std::vector<std::string> values;  // or be one of these
  // Applies only when, for each pair, the message has trailer KEY with VALUE.
  std::vector<std::pair<std::string, std::string>> when;
};

struct ForbiddenTrailer {
  std::string key;
  std::string reason;
};

enum class MarkerPlacement { kAnywhere, kOwnParagraph };

// A bare token line, e.g. FOLLOWING_AGENTS_PROTOCOL.
struct MarkerRule {
  std::string token;
  MarkerPlacement placement = MarkerPlacement::kAnywhere;
  CountSpec count{1, INT_MAX};
};

// Identity tokens (whole word, case-insensitive) that must not appear in
// attribution trailers, e.g. no AI identity in Signed-off-by.
struct IdentityBan {
  std::vector<std::string> keys{"Signed-off-by", "Co-authored-by"};
  std::vector<std::string> tokens;
  std::vector<std::string> allowed_emails;
};

enum class MergePolicy { kSkip, kCheck };
enum class FixupPolicy { kFail, kSkip };
enum class RevertPolicy { kCheck, kSkip };

// A landed violation accepted as debt: the finding is dropped, and printed as
// debt on every run so it stays visible.
struct TrailerException {
  std::string commit;  // full 40-hex id
  std::string rule;    // rule id, e.g. "required:Row"
  std::string reason;
};

struct TrailerConfig {
  bool first_parent = false;
  MergePolicy merges = MergePolicy::kSkip;
  FixupPolicy fixups = FixupPolicy::kFail;
  RevertPolicy reverts = RevertPolicy::kCheck;
  std::optional<Pattern> bot_authors;  // matched against "Name <email>"
  std::string cutover;                 // commits at or below it are not checked
  std::vector<TrailerRequirement> required;
  std::vector<ForbiddenTrailer> forbidden;
  std::optional<MarkerRule> marker;
  std::optional<IdentityBan> identity;
  std::vector<TrailerException> exceptions;
};

// A preflight gate: a built-in gate by name, or an external command.
struct GateSpec {
  std::string name;
  std::vector<std::string> command;  // empty for a built-in gate
  std::vector<std::string> requires_tools;
  int timeout_s = 300;
  int line = 0;  // where the config declares it
};

struct Config {
  std::string path;  // the file it came from
  std::string base = "origin/main";
  bool has_trailers = false;
  TrailerConfig trailers;
  std::vector<GateSpec> gates;  // preflight's gates, in config order
};

// Loads and validates a config file. Errors read "FILE:LINE: message" and
// map to exit code 2.
Result<Config> LoadConfig(const std::string& path);
Result<Config> ParseConfig(const std::string& text, const std::string& path);

}  // namespace vt::gate
