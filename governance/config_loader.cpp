// Reads `.vt-gate.yaml` with yaml-cpp. Every error names the file and line,
// unknown keys are errors (a typo must not silently disable a rule), and no
// yaml-cpp exception escapes this file.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "governance/builtin_gates.h"
#include "governance/config.h"

namespace vt::gate {
namespace {

// Thrown only inside this file; LoadConfig turns it into a Status.
struct ConfigError {
  int line;
  std::string message;
};

[[noreturn]] void Fail(const YAML::Node& node, const std::string& message) {
  throw ConfigError{node.Mark().line + 1, message};
}

void ExpectMap(const YAML::Node& node, const std::string& what, const std::set<std::string>& allowed) {
  if (!node.IsMap()) Fail(node, what + " must be a mapping");
  for (auto it = node.begin(); it != node.end(); ++it) {
    std::string key = it->first.Scalar();
    if (!allowed.count(key)) {
      std::string known;
      for (const std::string& k : allowed) known += (known.empty() ? "" : ", ") + k;
      Fail(it->first, "unknown key '" + key + "' in " + what + " (known: " + known + ")");
    }
  }
}

std::string Scalar(const YAML::Node& node, const std::string& what) {
  if (!node.IsScalar()) Fail(node, what + " must be a scalar");
  return node.Scalar();
}

bool Bool(const YAML::Node& node, const std::string& what) {
  std::string s = Scalar(node, what);
  if (s == "true" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "no" || s == "off") return false;
  Fail(node, what + " must be true or false, not '" + s + "'");
}

std::vector<std::string> StringList(const YAML::Node& node, const std::string& what) {
  std::vector<std::string> out;
  if (node.IsScalar()) {
    out.push_back(node.Scalar());
    return out;
  }
  if (!node.IsSequence()) Fail(node, what + " must be a list of strings");
  for (const YAML::Node& item : node) out.push_back(Scalar(item, what + " entry"));
  return out;
}

Pattern CompilePattern(const YAML::Node& node, const std::string& what, bool caseless = false) {
  Result<Pattern> pattern = Pattern::Compile(Scalar(node, what), caseless);
  if (!pattern.ok()) Fail(node, what + ": " + pattern.status().message());
  return pattern.value();
}

bool ParseInt(const std::string& s, int* out) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  *out = std::stoi(s);
  return true;
}

CountSpec ParseCount(const YAML::Node& node) {
  std::string s = Scalar(node, "count");
  CountSpec count;
  int a = 0;
  int b = 0;
  size_t dots = s.find("..");
  if (s.rfind(">=", 0) == 0 && ParseInt(s.substr(2), &a)) return {a, INT_MAX};
  if (s.rfind("<=", 0) == 0 && ParseInt(s.substr(2), &a)) return {0, a};
  if (dots != std::string::npos && ParseInt(s.substr(0, dots), &a) && ParseInt(s.substr(dots + 2), &b) &&
      a <= b) {
    return {a, b};
  }
  if (ParseInt(s, &a)) return {a, a};
  Fail(node, "count must be N, >=N, <=N or N..M, not '" + s + "'");
}

template <typename T>
T Choice(const YAML::Node& node, const std::string& what,
         const std::vector<std::pair<std::string, T>>& choices) {
  std::string s = Scalar(node, what);
  std::string known;
  for (const auto& [name, value] : choices) {
    if (s == name) return value;
    known += (known.empty() ? "" : "|") + name;
  }
  Fail(node, what + " must be " + known + ", not '" + s + "'");
}

TrailerRequirement ParseRequirement(const YAML::Node& node) {
  ExpectMap(node, "a required trailer", {"key", "count", "pattern", "values", "when", "in_record"});
  if (!node["key"]) Fail(node, "a required trailer needs a key");
  TrailerRequirement req;
  req.key = Scalar(node["key"], "key");
  if (node["count"]) req.count = ParseCount(node["count"]);
  if (node["pattern"] && node["values"]) Fail(node, "give either pattern or values, not both");
  if (node["pattern"]) req.pattern = CompilePattern(node["pattern"], "pattern");
  if (node["values"]) req.values = StringList(node["values"], "values");
  if (node["in_record"]) req.in_record = Bool(node["in_record"], "in_record");
  if (node["when"]) {
    const YAML::Node& when = node["when"];
    if (!when.IsMap()) Fail(when, "when must map trailer keys to values, e.g. {AI-Assisted: \"true\"}");
    for (auto it = when.begin(); it != when.end(); ++it) {
      req.when.emplace_back(Scalar(it->first, "when key"), Scalar(it->second, "when value"));
    }
  }
  return req;
}

ForbiddenTrailer ParseForbidden(const YAML::Node& node) {
  if (node.IsScalar()) return {node.Scalar(), ""};
  ExpectMap(node, "a forbidden trailer", {"key", "reason"});
  if (!node["key"]) Fail(node, "a forbidden trailer needs a key");
  ForbiddenTrailer f{Scalar(node["key"], "key"), ""};
  if (node["reason"]) f.reason = Scalar(node["reason"], "reason");
  return f;
}

MarkerRule ParseMarker(const YAML::Node& node) {
  ExpectMap(node, "marker", {"token", "placement", "count"});
  if (!node["token"]) Fail(node, "marker needs a token");
  MarkerRule marker;
  marker.token = Scalar(node["token"], "token");
  if (marker.token.empty() || marker.token.find_first_of(" \t\n") != std::string::npos) {
    Fail(node["token"], "marker token must be one word");
  }
  if (node["placement"]) {
    marker.placement = Choice<MarkerPlacement>(
        node["placement"], "placement",
        {{"anywhere", MarkerPlacement::kAnywhere}, {"own-paragraph", MarkerPlacement::kOwnParagraph}});
  }
  if (node["count"]) marker.count = ParseCount(node["count"]);
  return marker;
}

IdentityBan ParseIdentity(const YAML::Node& node) {
  ExpectMap(node, "identity", {"keys", "tokens", "allow_emails"});
  IdentityBan ban;
  if (node["keys"]) ban.keys = StringList(node["keys"], "keys");
  if (!node["tokens"]) Fail(node, "identity needs tokens");
  ban.tokens = StringList(node["tokens"], "tokens");
  if (node["allow_emails"]) ban.allowed_emails = StringList(node["allow_emails"], "allow_emails");
  return ban;
}

CherryPickRule ParseCherryPicks(const YAML::Node& node) {
  CherryPickRule rule;
  if (node.IsNull()) return rule;
  ExpectMap(node, "cherry_picks", {"author_waivers"});
  if (node["author_waivers"]) {
    const YAML::Node& waivers = node["author_waivers"];
    // `[]` is allowed and means the authors must always match.
    rule.author_waivers = StringList(waivers, "author_waivers");
    for (const std::string& key : rule.author_waivers) {
      if (key.empty() || key.find_first_of(" \t:") != std::string::npos)
        Fail(waivers, "author_waivers entry '" + key + "' must be a trailer key (no blanks or ':')");
    }
  }
  return rule;
}

bool IsFullCommitId(const std::string& s) {
  if (s.size() != 40) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

TrailerConfig ParseTrailers(const YAML::Node& node) {
  ExpectMap(node, "trailers",
            {"first_parent", "merges", "fixups", "reverts", "bots", "cutover", "required", "forbidden",
             "marker", "identity", "cherry_picks", "exceptions"});
  TrailerConfig t;
  if (node["first_parent"]) t.first_parent = Bool(node["first_parent"], "first_parent");
  if (node["merges"]) {
    t.merges = Choice<MergePolicy>(node["merges"], "merges",
                                   {{"skip", MergePolicy::kSkip},
                                    {"check", MergePolicy::kCheck},
                                    {"fail", MergePolicy::kFail}});
  }
  if (node["fixups"]) {
    t.fixups = Choice<FixupPolicy>(node["fixups"], "fixups",
                                   {{"fail", FixupPolicy::kFail}, {"skip", FixupPolicy::kSkip}});
  }
  if (node["reverts"]) {
    t.reverts = Choice<RevertPolicy>(node["reverts"], "reverts",
                                     {{"check", RevertPolicy::kCheck}, {"skip", RevertPolicy::kSkip}});
  }
  if (node["bots"]) t.bot_authors = CompilePattern(node["bots"], "bots", true);
  if (node["cutover"]) {
    t.cutover = Scalar(node["cutover"], "cutover");
    if (!IsFullCommitId(t.cutover)) Fail(node["cutover"], "cutover must be a full 40-hex commit id");
  }
  if (node["required"]) {
    if (!node["required"].IsSequence()) Fail(node["required"], "required must be a list");
    for (const YAML::Node& item : node["required"]) t.required.push_back(ParseRequirement(item));
  }
  if (node["forbidden"]) {
    if (!node["forbidden"].IsSequence()) Fail(node["forbidden"], "forbidden must be a list");
    for (const YAML::Node& item : node["forbidden"]) t.forbidden.push_back(ParseForbidden(item));
  }
  if (node["marker"]) t.marker = ParseMarker(node["marker"]);
  if (node["identity"]) t.identity = ParseIdentity(node["identity"]);
  if (node["cherry_picks"]) t.cherry_picks = ParseCherryPicks(node["cherry_picks"]);
  if (node["exceptions"]) {
    if (!node["exceptions"].IsSequence()) Fail(node["exceptions"], "exceptions must be a list");
    for (const YAML::Node& item : node["exceptions"]) {
      ExpectMap(item, "an exception", {"commit", "rule", "reason"});
      if (!item["commit"] || !item["rule"]) Fail(item, "an exception needs commit and rule");
      TrailerException e{Scalar(item["commit"], "commit"), Scalar(item["rule"], "rule"), ""};
      if (!IsFullCommitId(e.commit)) Fail(item["commit"], "an exception's commit must be a full 40-hex id");
      if (item["reason"]) e.reason = Scalar(item["reason"], "reason");
      t.exceptions.push_back(std::move(e));
    }
  }
  return t;
}

std::vector<std::string> NonEmptyList(const YAML::Node& node, const std::string& what) {
  std::vector<std::string> out = StringList(node, what);
  if (out.empty()) Fail(node, what + " must not be empty");
  return out;
}

const std::vector<std::pair<std::string, Column>>& ColumnNames() {
  static const std::vector<std::pair<std::string, Column>> kNames = {
      {"id", Column::kId},       {"item", Column::kItem},   {"code", Column::kCode},
      {"tests", Column::kTests}, {"spec", Column::kSpec},   {"state", Column::kState},
      {"owner", Column::kOwner}, {"issue", Column::kIssue}, {"closing", Column::kClosing},
      {"count", Column::kCount}};
  return kNames;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Each meaning answers to its own name; `columns` adds aliases per meaning.
std::vector<std::pair<std::string, Column>> ParseColumns(const YAML::Node* node) {
  std::vector<std::pair<std::string, Column>> aliases = ColumnNames();
  aliases.push_back({"row", Column::kId});
  aliases.push_back({"closed by", Column::kClosing});
  aliases.push_back({"issues", Column::kIssue});
  if (!node) return aliases;
  std::set<std::string> known;
  for (const auto& [name, column] : ColumnNames()) known.insert(name);
  ExpectMap(*node, "columns", known);
  for (auto it = node->begin(); it != node->end(); ++it) {
    Column column = Column::kId;
    for (const auto& [name, c] : ColumnNames()) {
      if (name == it->first.Scalar()) column = c;
    }
    for (const std::string& alias : NonEmptyList(it->second, "column aliases")) {
      aliases.insert(aliases.begin(), {Lower(alias), column});
    }
  }
  return aliases;
}

StateRule ParseState(const std::string& name, const YAML::Node& node) {
  StateRule rule;
  rule.name = name;
  if (node.IsNull()) return rule;
  ExpectMap(node, "state " + name, {"anchors", "spec", "owner", "closing", "live", "counted", "goals"});
  if (node["anchors"]) rule.anchors = Bool(node["anchors"], "anchors");
  if (node["spec"]) rule.spec = Bool(node["spec"], "spec");
  if (node["owner"]) rule.owner = Bool(node["owner"], "owner");
  if (node["closing"]) rule.closing = Bool(node["closing"], "closing");
  if (node["live"]) rule.live = Bool(node["live"], "live");
  if (node["counted"]) rule.counted = Bool(node["counted"], "counted");
  if (const YAML::Node goals = node["goals"]) {
    std::string value = Scalar(goals, "goals");
    if (value == "met") {
      rule.goals = GoalsRule::kMet;
    } else if (value == "measured") {
      rule.goals = GoalsRule::kMeasured;
    } else {
      Fail(goals, "goals must be `met` or `measured`, not '" + value + "'");
    }
    // The goals are read from the spec: without one there is nothing to hold the row to.
    if (!rule.spec) Fail(goals, "state " + name + ": goals needs spec: true");
  }
  return rule;
}

RecordConfig ParseRecord(const YAML::Node& node) {
  ExpectMap(node, "record",
            {"files", "columns", "id_pattern", "states", "anchor_prefixes", "spec_sections", "placeholders",
             "goals", "ownership"});
  if (!node["files"]) Fail(node, "record needs files (globs of the Markdown files that hold the record)");
  if (!node["states"]) Fail(node, "record needs states");
  RecordConfig record;
  record.files = NonEmptyList(node["files"], "files");
  const YAML::Node columns = node["columns"];
  record.aliases = ParseColumns(columns ? &columns : nullptr);
  if (node["id_pattern"]) record.id_pattern = CompilePattern(node["id_pattern"], "id_pattern");
  const YAML::Node& states = node["states"];
  if (!states.IsMap() || states.size() == 0) Fail(states, "states must map each state to its requirements");
  for (auto it = states.begin(); it != states.end(); ++it) {
    std::string name = Scalar(it->first, "state name");
    if (name.empty() || name.find_first_of(" \t,|`") != std::string::npos) {
      Fail(it->first, "state '" + name + "' must be one word");
    }
    record.states.push_back(ParseState(name, it->second));
  }
  if (node["anchor_prefixes"])
    record.anchor_prefixes = NonEmptyList(node["anchor_prefixes"], "anchor_prefixes");
  if (node["spec_sections"]) record.spec_sections = StringList(node["spec_sections"], "spec_sections");
  if (node["placeholders"]) record.placeholders = StringList(node["placeholders"], "placeholders");
  if (const YAML::Node goals = node["goals"]) {
    ExpectMap(goals, "record goals", {"section", "verdicts"});
    if (!goals["verdicts"]) Fail(goals, "record goals needs verdicts (the file that marks goals met / not met)");
    record.goals = GoalsConfig{};
    if (goals["section"]) record.goals->section = Scalar(goals["section"], "goals section");
    record.goals->verdicts = Scalar(goals["verdicts"], "goals verdicts");
  }
  if (const YAML::Node ownership = node["ownership"]) {
    ExpectMap(ownership, "record ownership", {"mode", "shared"});
    record.ownership = OwnershipConfig{};
    if (ownership["mode"]) {
      std::string mode = Scalar(ownership["mode"], "ownership mode");
      if (mode == "fail") {
        record.ownership->mode = OwnershipMode::kFail;
      } else if (mode != "warn") {
        Fail(ownership["mode"], "ownership mode must be `warn` or `fail`, not '" + mode + "'");
      }
    }
    if (ownership["shared"]) record.ownership->shared = StringList(ownership["shared"], "ownership shared");
  }
  for (auto it = states.begin(); it != states.end(); ++it) {
    if (it->second.IsMap() && it->second["goals"] && !record.goals)
      Fail(it->second["goals"], "state " + it->first.Scalar() + ": goals needs a record goals section");
  }
  return record;
}

IntakeConfig ParseIntake(const YAML::Node& node) {
  IntakeConfig intake;
  if (node.IsNull()) return intake;
  ExpectMap(node, "intake", {"ref_keywords", "row_trailer", "no_row"});
  if (node["ref_keywords"]) intake.ref_keywords = NonEmptyList(node["ref_keywords"], "ref_keywords");
  if (node["row_trailer"]) intake.row_trailer = Scalar(node["row_trailer"], "row_trailer");
  if (node["no_row"]) intake.no_row = StringList(node["no_row"], "no_row");
  return intake;
}

RowsConfig ParseRows(const YAML::Node& node) {
  RowsConfig rows;
  if (node.IsNull()) return rows;
  ExpectMap(node, "rows", {"branch"});
  if (node["branch"]) rows.branch = Scalar(node["branch"], "branch");
  if (rows.branch.find("{id}") == std::string::npos) Fail(node["branch"], "branch must contain {id}");
  return rows;
}

GencodeConfig ParseGencode(const YAML::Node& node) {
  GencodeConfig gencode;
  if (node.IsNull()) return gencode;
  ExpectMap(node, "gencode", {"features", "sources_root", "compile_commands", "cuobjdump_list"});
  if (node["features"]) gencode.features = Scalar(node["features"], "features");
  if (node["sources_root"]) gencode.sources_root = Scalar(node["sources_root"], "sources_root");
  if (node["compile_commands"])
    gencode.compile_commands = Scalar(node["compile_commands"], "compile_commands");
  if (node["cuobjdump_list"]) gencode.cuobjdump_list = Scalar(node["cuobjdump_list"], "cuobjdump_list");
  return gencode;
}

Ratchet ParseRatchet(const YAML::Node& node) {
  ExpectMap(node, "a ratchet", {"gate", "rule", "baseline"});
  if (!node["gate"] || !node["rule"] || !node["baseline"])
    Fail(node, "a ratchet needs gate, rule and baseline");
  Ratchet ratchet{Scalar(node["gate"], "gate"), Scalar(node["rule"], "rule"),
                  Scalar(node["baseline"], "baseline"), node.Mark().line + 1};
  if (FindBuiltinGate(ratchet.gate) == nullptr)
    Fail(node["gate"], "unknown built-in gate '" + ratchet.gate + "'");
  return ratchet;
}

// A built-in gate needs its config section; listing it without one is an error, not a silent pass.
void CheckGateSection(const Config& config, const GateSpec& gate, const YAML::Node& node) {
  if (!gate.command.empty()) return;
  auto need = [&](bool present, const char* section) {
    if (!present) Fail(node, "gate '" + gate.name + "' needs a " + section + " section");
  };
  if (gate.name == "trailers") need(config.has_trailers, "trailers");
  if (gate.name == "record" || gate.name == "rows" || gate.name == "intake")
    need(config.record.has_value(), "record");
  if (gate.name == "intake") need(config.intake.has_value(), "intake");
  if (gate.name == "gencode") need(config.gencode.has_value(), "gencode");
}

GateSpec ParseGate(const YAML::Node& node) {
  GateSpec gate;
  gate.line = node.Mark().line + 1;
  if (node.IsScalar()) {
    gate.name = node.Scalar();
    if (FindBuiltinGate(gate.name) == nullptr) {
      Fail(node, "unknown built-in gate '" + gate.name + "' (an external gate needs name and run)");
    }
    return gate;
  }
  ExpectMap(node, "a gate", {"name", "run", "timeout", "requires"});
  if (!node["name"] || !node["run"]) Fail(node, "an external gate needs name and run");
  gate.name = Scalar(node["name"], "name");
  const YAML::Node& run = node["run"];
  if (run.IsScalar()) {
    gate.command = {"/bin/sh", "-c", run.Scalar()};
  } else {
    gate.command = StringList(run, "run");
    if (gate.command.empty()) Fail(run, "run must not be empty");
  }
  if (node["timeout"]) {
    std::string s = Scalar(node["timeout"], "timeout");
    if (!ParseInt(s, &gate.timeout_s) || gate.timeout_s < 1)
      Fail(node["timeout"], "timeout must be whole seconds >= 1");
  }
  if (node["requires"]) gate.requires_tools = StringList(node["requires"], "requires");
  return gate;
}

// yaml-cpp keeps every entry of a mapping but lookups return the first, so a
// repeated key (two `trailers:` sections) would drop the second's rules
// silently. Every mapping, at every depth, must name each key once.
void RejectDuplicateKeys(const YAML::Node& node, int depth) {
  // Aliases share nodes; the bound keeps a pathological document finite.
  constexpr int kMaxDepth = 64;
  if (depth > kMaxDepth) Fail(node, "the config nests deeper than " + std::to_string(kMaxDepth) + " levels");
  if (node.IsMap()) {
    std::map<std::string, int> first_line;
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (it->first.IsScalar()) {
        int line = it->first.Mark().line + 1;
        auto [seen, inserted] = first_line.emplace(it->first.Scalar(), line);
        if (!inserted) {
          Fail(it->first, "duplicate key '" + it->first.Scalar() + "' (first at line " +
                              std::to_string(seen->second) + "); only one would take effect");
        }
      }
      RejectDuplicateKeys(it->second, depth + 1);
    }
  } else if (node.IsSequence()) {
    for (const YAML::Node& item : node) RejectDuplicateKeys(item, depth + 1);
  }
}

Config ParseRoot(const YAML::Node& root) {
  Config config;
  if (root.IsNull()) return config;
  ExpectMap(root, "the config",
            {"base", "trailers", "record", "intake", "rows", "gencode", "ratchets", "preflight"});
  if (root["base"]) config.base = Scalar(root["base"], "base");
  if (root["trailers"]) {
    config.has_trailers = true;
    config.trailers = ParseTrailers(root["trailers"]);
  }
  if (root["record"]) config.record = ParseRecord(root["record"]);
  if (root["intake"]) config.intake = ParseIntake(root["intake"]);
  if (root["rows"]) config.rows = ParseRows(root["rows"]);
  if (root["gencode"]) config.gencode = ParseGencode(root["gencode"]);
  if (root["ratchets"]) {
    if (!root["ratchets"].IsSequence()) Fail(root["ratchets"], "ratchets must be a list");
    for (const YAML::Node& item : root["ratchets"]) config.ratchets.push_back(ParseRatchet(item));
  }
  if (root["trailers"] && root["trailers"]["required"]) {
    const YAML::Node& required = root["trailers"]["required"];
    for (size_t i = 0; i < config.trailers.required.size(); ++i) {
      if (config.trailers.required[i].in_record && !config.record) {
        Fail(required[i], "in_record needs a record section");
      }
    }
  }
  if (root["preflight"]) {
    const YAML::Node& pre = root["preflight"];
    ExpectMap(pre, "preflight", {"gates"});
    if (pre["gates"]) {
      if (!pre["gates"].IsSequence()) Fail(pre["gates"], "gates must be a list");
      std::set<std::string> seen;
      for (const YAML::Node& item : pre["gates"]) {
        GateSpec gate = ParseGate(item);
        if (!seen.insert(gate.name).second) Fail(item, "gate '" + gate.name + "' is listed twice");
        CheckGateSection(config, gate, item);
        config.gates.push_back(std::move(gate));
      }
    }
  } else if (config.has_trailers) {
    config.gates.push_back(GateSpec{"trailers", {}, {}, 300, 0});
  }
  return config;
}

}  // namespace

const StateRule* RecordConfig::FindState(const std::string& name) const {
  for (const StateRule& state : states) {
    if (state.name == name) return &state;
  }
  return nullptr;
}

std::string CountSpec::Describe() const {
  if (min == max) return "exactly " + std::to_string(min);
  if (max == INT_MAX) return "at least " + std::to_string(min);
  if (min == 0) return "at most " + std::to_string(max);
  return std::to_string(min) + " to " + std::to_string(max);
}

Result<Config> ParseConfig(const std::string& text, const std::string& path) {
  if (text.find('\0') != std::string::npos) return InvalidArgument(path + ":1: the config is binary");
  try {
    YAML::Node root = YAML::Load(text);
    RejectDuplicateKeys(root, 0);
    Config config = ParseRoot(root);
    config.path = path;
    return config;
  } catch (const ConfigError& e) {
    return InvalidArgument(path + ":" + std::to_string(e.line) + ": " + e.message);
  } catch (const YAML::Exception& e) {
    return InvalidArgument(path + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  } catch (const std::exception& e) {
    return InvalidArgument(path + ":1: " + e.what());
  }
}

Result<Config> LoadConfig(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(path + ": cannot read the config file");
  std::ostringstream text;
  text << in.rdbuf();
  return ParseConfig(text.str(), path);
}

}  // namespace vt::gate
