// `.vt-gate.yaml`: the rules live here, not in code. This header is the
// in-memory form; config_loader.cpp reads and validates the file.
#pragma once

#include <climits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
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
  // The value must name a row id of the record, or be one of `values` (e.g.
  // `none`); the ids are read from the record when the gate runs.
  bool in_record = false;
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

// kFail: a merge commit is itself a finding (merges never land on the governed branch).
enum class MergePolicy { kSkip, kCheck, kFail };
enum class FixupPolicy { kFail, kSkip };
enum class RevertPolicy { kCheck, kSkip };

// A landed violation accepted as debt: the finding is dropped, and printed as
// debt on every run so it stays visible.
struct TrailerException {
  std::string commit;  // full 40-hex id
  std::string rule;    // rule id, e.g. "required:Row"
  std::string reason;
};

// Cherry-pick provenance (governance/cherry_pick.h): on when the config has a
// `cherry_picks` section.
struct CherryPickRule {
  // Trailer keys that may name the source's author ("Name <email>") when the
  // commit's author differs from it: the change was re-authored openly.
  std::vector<std::string> author_waivers{"Co-authored-by"};
};

struct TrailerConfig {
  // Row ids of the record, sorted; filled at run time when a requirement is in_record.
  std::vector<std::string> record_ids;
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
  std::optional<CherryPickRule> cherry_picks;
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

// What a record table column means; header cells map here through aliases.
enum class Column { kId, kItem, kCode, kTests, kSpec, kState, kOwner, kIssue, kClosing, kCount };

// What a state asks of the speed goals its row's spec lists (record.goals):
// kMeasured, every goal has a verdict; kMet, every verdict is "met".
enum class GoalsRule { kNone, kMeasured, kMet };

// What a row in a state must have.
struct StateRule {
  std::string name;
  bool anchors = false;  // at least one code anchor and one test anchor
  bool spec = false;     // a spec that names the row and has the required sections
  bool owner = false;    // an owner listed in a claims table
  bool closing = false;  // a closing commit that is an ancestor of HEAD
  bool live = false;     // audited by the rows gate
  bool counted = false;  // each such row is a finding `state:NAME` (pin it with a ratchet)
  GoalsRule goals = GoalsRule::kNone;
};

// Where goals and their verdicts live (governance/goals.h has the format).
struct GoalsConfig {
  std::string section = "Goals";  // the spec section that lists the row's goals
  std::string verdicts;           // file marking each goal "met" / "not met", relative to the root
};

// File ownership (governance/ownership.h): the rows whose code or test
// anchors name a file own it; a commit whose Row trailer names none of a
// changed file's owners is a finding (kFail) or a note (kWarn).
enum class OwnershipMode { kWarn, kFail };

struct OwnershipConfig {
  OwnershipMode mode = OwnershipMode::kWarn;
  std::vector<std::string> shared;  // globs (path_glob.h) any row may change
};

struct RecordConfig {
  std::vector<std::string> files;                       // globs relative to the repository root
  std::vector<std::pair<std::string, Column>> aliases;  // lower-case header text -> meaning
  std::optional<Pattern> id_pattern;
  std::vector<StateRule> states;
  std::vector<std::string> anchor_prefixes;  // anchors must resolve under one of these
  std::vector<std::string> spec_sections;    // headings every spec must have, with content
  std::optional<GoalsConfig> goals;
  std::optional<OwnershipConfig> ownership;
  std::vector<std::string> placeholders{"TBD", "TODO", "...", "-", "n/a", "tbd", "todo"};
  const StateRule* FindState(const std::string& name) const;
};

struct IntakeConfig {
  std::vector<std::string> ref_keywords{"Refs", "Closes", "Fixes", "Resolves"};
  std::string row_trailer = "Row";
  std::vector<std::string> no_row{"none"};  // Row values that name no row
};

struct RowsConfig {
  std::string branch = "row/{id}";  // {id} is replaced by the row id
};

struct GencodeConfig {
  std::string features = "kernels/cuda/features.yaml";
  std::string sources_root;  // globs are relative to it; default: the features file's folder
  std::string compile_commands = "build/compile_commands.json";
  std::string cuobjdump_list;  // optional `cuobjdump --list-elf` output of the built library
};

// A counted finding class pinned in a baseline file that may only go down.
struct Ratchet {
  std::string gate;
  std::string rule;      // findings whose rule equals this are counted
  std::string baseline;  // file (relative to the repository root) holding the pinned count
  int line = 0;
};

struct Config {
  std::string path;  // the file it came from
  std::string base = "origin/main";
  bool has_trailers = false;
  TrailerConfig trailers;
  std::optional<RecordConfig> record;
  std::optional<IntakeConfig> intake;
  std::optional<RowsConfig> rows;
  std::optional<GencodeConfig> gencode;
  std::vector<Ratchet> ratchets;
  std::vector<GateSpec> gates;  // preflight's gates, in config order
};

// Loads and validates a config file. Errors read "FILE:LINE: message" and
// map to exit code 2.
Result<Config> LoadConfig(const std::string& path);
Result<Config> ParseConfig(const std::string& text, const std::string& path);

}  // namespace vt::gate
