// Reads `.vt-gate.yaml`, parsed by governance/yaml_document.h. Every error
// names the file and line, and unknown keys are errors (a typo must not
// silently disable a rule).
#include <cctype>
#include <set>

#include "governance/builtin_gates.h"
#include "governance/config.h"
#include "governance/yaml_document.h"

namespace vt::gate {
namespace {

// Thrown only inside this file; ParseConfig turns it into a Status.
struct ConfigError {
  int line;
  std::string message;
};

[[noreturn]] void Fail(const YamlNode& node, const std::string& message) { throw ConfigError{node.line, message}; }

void ExpectMap(const YamlNode& node, const std::string& what, const std::set<std::string>& allowed) {
  if (!node.IsMap()) Fail(node, what + " must be a mapping");
  for (const YamlEntry& entry : node.entries) {
    if (!allowed.count(entry.key.scalar)) {
      std::string known;
      for (const std::string& k : allowed) known += (known.empty() ? "" : ", ") + k;
      Fail(entry.key, "unknown key '" + entry.key.scalar + "' in " + what + " (known: " + known + ")");
    }
  }
}

std::string Scalar(const YamlNode& node, const std::string& what) {
  if (!node.IsScalar()) Fail(node, what + " must be a scalar");
  return node.scalar;
}

bool Bool(const YamlNode& node, const std::string& what) {
  std::string s = Scalar(node, what);
  if (s == "true" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "no" || s == "off") return false;
  Fail(node, what + " must be true or false, not '" + s + "'");
}

std::vector<std::string> StringList(const YamlNode& node, const std::string& what) {
  std::vector<std::string> out;
  if (node.IsScalar()) {
    out.push_back(node.scalar);
    return out;
  }
  if (!node.IsSequence()) Fail(node, what + " must be a list of strings");
  for (const YamlNode& item : node.items) out.push_back(Scalar(item, what + " entry"));
  return out;
}

Pattern CompilePattern(const YamlNode& node, const std::string& what, bool caseless = false) {
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

CountSpec ParseCount(const YamlNode& node) {
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
T Choice(const YamlNode& node, const std::string& what,
         const std::vector<std::pair<std::string, T>>& choices) {
  std::string s = Scalar(node, what);
  std::string known;
  for (const auto& [name, value] : choices) {
    if (s == name) return value;
    known += (known.empty() ? "" : "|") + name;
  }
  Fail(node, what + " must be " + known + ", not '" + s + "'");
}

TrailerRequirement ParseRequirement(const YamlNode& node) {
  ExpectMap(node, "a required trailer", {"key", "count", "pattern", "values", "when", "in_record"});
  const YamlNode* key = node.Find("key");
  if (!key) Fail(node, "a required trailer needs a key");
  TrailerRequirement req;
  req.key = Scalar(*key, "key");
  if (const YamlNode* count = node.Find("count")) req.count = ParseCount(*count);
  const YamlNode* pattern = node.Find("pattern");
  const YamlNode* values = node.Find("values");
  if (pattern && values) Fail(node, "give either pattern or values, not both");
  if (pattern) req.pattern = CompilePattern(*pattern, "pattern");
  if (values) req.values = StringList(*values, "values");
  if (const YamlNode* in_record = node.Find("in_record")) req.in_record = Bool(*in_record, "in_record");
  if (const YamlNode* when = node.Find("when")) {
    if (!when->IsMap()) Fail(*when, "when must map trailer keys to values, e.g. {AI-Assisted: \"true\"}");
    for (const YamlEntry& entry : when->entries) {
      req.when.emplace_back(Scalar(entry.key, "when key"), Scalar(entry.value, "when value"));
    }
  }
  return req;
}

ForbiddenTrailer ParseForbidden(const YamlNode& node) {
  if (node.IsScalar()) return {node.scalar, ""};
  ExpectMap(node, "a forbidden trailer", {"key", "reason"});
  const YamlNode* key = node.Find("key");
  if (!key) Fail(node, "a forbidden trailer needs a key");
  ForbiddenTrailer f{Scalar(*key, "key"), ""};
  if (const YamlNode* reason = node.Find("reason")) f.reason = Scalar(*reason, "reason");
  return f;
}

MarkerRule ParseMarker(const YamlNode& node) {
  ExpectMap(node, "marker", {"token", "placement", "count"});
  const YamlNode* token = node.Find("token");
  if (!token) Fail(node, "marker needs a token");
  MarkerRule marker;
  marker.token = Scalar(*token, "token");
  if (marker.token.empty() || marker.token.find_first_of(" \t\n") != std::string::npos) {
    Fail(*token, "marker token must be one word");
  }
  if (const YamlNode* placement = node.Find("placement")) {
    marker.placement = Choice<MarkerPlacement>(
        *placement, "placement",
        {{"anywhere", MarkerPlacement::kAnywhere}, {"own-paragraph", MarkerPlacement::kOwnParagraph}});
  }
  if (const YamlNode* count = node.Find("count")) marker.count = ParseCount(*count);
  return marker;
}

IdentityBan ParseIdentity(const YamlNode& node) {
  ExpectMap(node, "identity", {"keys", "tokens", "allow_emails"});
  IdentityBan ban;
  if (const YamlNode* keys = node.Find("keys")) ban.keys = StringList(*keys, "keys");
  const YamlNode* tokens = node.Find("tokens");
  if (!tokens) Fail(node, "identity needs tokens");
  ban.tokens = StringList(*tokens, "tokens");
  if (const YamlNode* emails = node.Find("allow_emails")) ban.allowed_emails = StringList(*emails, "allow_emails");
  return ban;
}

CherryPickRule ParseCherryPicks(const YamlNode& node) {
  CherryPickRule rule;
  if (node.IsNull()) return rule;
  ExpectMap(node, "cherry_picks", {"author_waivers"});
  if (const YamlNode* waivers = node.Find("author_waivers")) {
    // `[]` is allowed and means the authors must always match.
    rule.author_waivers = StringList(*waivers, "author_waivers");
    for (const std::string& key : rule.author_waivers) {
      if (key.empty() || key.find_first_of(" \t:") != std::string::npos)
        Fail(*waivers, "author_waivers entry '" + key + "' must be a trailer key (no blanks or ':')");
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

// The items of `node[key]`, which must be a list when present.
const std::vector<YamlNode>* ListAt(const YamlNode& node, const char* key) {
  const YamlNode* list = node.Find(key);
  if (!list) return nullptr;
  if (!list->IsSequence()) Fail(*list, std::string(key) + " must be a list");
  return &list->items;
}

TrailerConfig ParseTrailers(const YamlNode& node) {
  ExpectMap(node, "trailers",
            {"first_parent", "merges", "fixups", "reverts", "bots", "cutover", "required", "forbidden",
             "marker", "identity", "cherry_picks", "exceptions"});
  TrailerConfig t;
  if (const YamlNode* first_parent = node.Find("first_parent")) t.first_parent = Bool(*first_parent, "first_parent");
  if (const YamlNode* merges = node.Find("merges")) {
    t.merges = Choice<MergePolicy>(*merges, "merges",
                                   {{"skip", MergePolicy::kSkip},
                                    {"check", MergePolicy::kCheck},
                                    {"fail", MergePolicy::kFail}});
  }
  if (const YamlNode* fixups = node.Find("fixups")) {
    t.fixups = Choice<FixupPolicy>(*fixups, "fixups", {{"fail", FixupPolicy::kFail}, {"skip", FixupPolicy::kSkip}});
  }
  if (const YamlNode* reverts = node.Find("reverts")) {
    t.reverts =
        Choice<RevertPolicy>(*reverts, "reverts", {{"check", RevertPolicy::kCheck}, {"skip", RevertPolicy::kSkip}});
  }
  if (const YamlNode* bots = node.Find("bots")) t.bot_authors = CompilePattern(*bots, "bots", true);
  if (const YamlNode* cutover = node.Find("cutover")) {
    t.cutover = Scalar(*cutover, "cutover");
    if (!IsFullCommitId(t.cutover)) Fail(*cutover, "cutover must be a full 40-hex commit id");
  }
  if (const auto* required = ListAt(node, "required")) {
    for (const YamlNode& item : *required) t.required.push_back(ParseRequirement(item));
  }
  if (const auto* forbidden = ListAt(node, "forbidden")) {
    for (const YamlNode& item : *forbidden) t.forbidden.push_back(ParseForbidden(item));
  }
  if (const YamlNode* marker = node.Find("marker")) t.marker = ParseMarker(*marker);
  if (const YamlNode* identity = node.Find("identity")) t.identity = ParseIdentity(*identity);
  if (const YamlNode* cherry_picks = node.Find("cherry_picks")) t.cherry_picks = ParseCherryPicks(*cherry_picks);
  if (const auto* exceptions = ListAt(node, "exceptions")) {
    for (const YamlNode& item : *exceptions) {
      ExpectMap(item, "an exception", {"commit", "rule", "reason"});
      const YamlNode* commit = item.Find("commit");
      const YamlNode* rule = item.Find("rule");
      if (!commit || !rule) Fail(item, "an exception needs commit and rule");
      TrailerException e{Scalar(*commit, "commit"), Scalar(*rule, "rule"), ""};
      if (!IsFullCommitId(e.commit)) Fail(*commit, "an exception's commit must be a full 40-hex id");
      if (const YamlNode* reason = item.Find("reason")) e.reason = Scalar(*reason, "reason");
      t.exceptions.push_back(std::move(e));
    }
  }
  return t;
}

std::vector<std::string> NonEmptyList(const YamlNode& node, const std::string& what) {
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
std::vector<std::pair<std::string, Column>> ParseColumns(const YamlNode* node) {
  std::vector<std::pair<std::string, Column>> aliases = ColumnNames();
  aliases.push_back({"row", Column::kId});
  aliases.push_back({"closed by", Column::kClosing});
  aliases.push_back({"issues", Column::kIssue});
  if (!node) return aliases;
  std::set<std::string> known;
  for (const auto& [name, column] : ColumnNames()) known.insert(name);
  ExpectMap(*node, "columns", known);
  for (const YamlEntry& entry : node->entries) {
    Column column = Column::kId;
    for (const auto& [name, c] : ColumnNames()) {
      if (name == entry.key.scalar) column = c;
    }
    for (const std::string& alias : NonEmptyList(entry.value, "column aliases")) {
      aliases.insert(aliases.begin(), {Lower(alias), column});
    }
  }
  return aliases;
}

StateRule ParseState(const std::string& name, const YamlNode& node) {
  StateRule rule;
  rule.name = name;
  if (node.IsNull()) return rule;
  ExpectMap(node, "state " + name, {"anchors", "spec", "owner", "closing", "live", "counted", "goals"});
  if (const YamlNode* anchors = node.Find("anchors")) rule.anchors = Bool(*anchors, "anchors");
  if (const YamlNode* spec = node.Find("spec")) rule.spec = Bool(*spec, "spec");
  if (const YamlNode* owner = node.Find("owner")) rule.owner = Bool(*owner, "owner");
  if (const YamlNode* closing = node.Find("closing")) rule.closing = Bool(*closing, "closing");
  if (const YamlNode* live = node.Find("live")) rule.live = Bool(*live, "live");
  if (const YamlNode* counted = node.Find("counted")) rule.counted = Bool(*counted, "counted");
  if (const YamlNode* goals = node.Find("goals")) {
    std::string value = Scalar(*goals, "goals");
    if (value == "met") {
      rule.goals = GoalsRule::kMet;
    } else if (value == "measured") {
      rule.goals = GoalsRule::kMeasured;
    } else {
      Fail(*goals, "goals must be `met` or `measured`, not '" + value + "'");
    }
    // The goals are read from the spec: without one there is nothing to hold the row to.
    if (!rule.spec) Fail(*goals, "state " + name + ": goals needs spec: true");
  }
  return rule;
}

RecordConfig ParseRecord(const YamlNode& node) {
  ExpectMap(node, "record",
            {"files", "columns", "id_pattern", "states", "anchor_prefixes", "spec_sections", "placeholders",
             "goals", "ownership"});
  const YamlNode* files = node.Find("files");
  const YamlNode* states = node.Find("states");
  if (!files) Fail(node, "record needs files (globs of the Markdown files that hold the record)");
  if (!states) Fail(node, "record needs states");
  RecordConfig record;
  record.files = NonEmptyList(*files, "files");
  record.aliases = ParseColumns(node.Find("columns"));
  if (const YamlNode* id_pattern = node.Find("id_pattern")) record.id_pattern = CompilePattern(*id_pattern, "id_pattern");
  if (!states->IsMap() || states->entries.empty()) Fail(*states, "states must map each state to its requirements");
  for (const YamlEntry& entry : states->entries) {
    const std::string& name = entry.key.scalar;
    if (name.empty() || name.find_first_of(" \t,|`") != std::string::npos) {
      Fail(entry.key, "state '" + name + "' must be one word");
    }
    record.states.push_back(ParseState(name, entry.value));
  }
  if (const YamlNode* prefixes = node.Find("anchor_prefixes"))
    record.anchor_prefixes = NonEmptyList(*prefixes, "anchor_prefixes");
  if (const YamlNode* sections = node.Find("spec_sections")) record.spec_sections = StringList(*sections, "spec_sections");
  if (const YamlNode* placeholders = node.Find("placeholders"))
    record.placeholders = StringList(*placeholders, "placeholders");
  if (const YamlNode* goals = node.Find("goals")) {
    ExpectMap(*goals, "record goals", {"section", "verdicts"});
    const YamlNode* verdicts = goals->Find("verdicts");
    if (!verdicts) Fail(*goals, "record goals needs verdicts (the file that marks goals met / not met)");
    record.goals = GoalsConfig{};
    if (const YamlNode* section = goals->Find("section")) record.goals->section = Scalar(*section, "goals section");
    record.goals->verdicts = Scalar(*verdicts, "goals verdicts");
  }
  if (const YamlNode* ownership = node.Find("ownership")) {
    ExpectMap(*ownership, "record ownership", {"mode", "shared"});
    record.ownership = OwnershipConfig{};
    if (const YamlNode* mode_node = ownership->Find("mode")) {
      std::string mode = Scalar(*mode_node, "ownership mode");
      if (mode == "fail") {
        record.ownership->mode = OwnershipMode::kFail;
      } else if (mode != "warn") {
        Fail(*mode_node, "ownership mode must be `warn` or `fail`, not '" + mode + "'");
      }
    }
    if (const YamlNode* shared = ownership->Find("shared"))
      record.ownership->shared = StringList(*shared, "ownership shared");
  }
  for (const YamlEntry& entry : states->entries) {
    const YamlNode* goals = entry.value.Find("goals");
    if (goals && !record.goals) Fail(*goals, "state " + entry.key.scalar + ": goals needs a record goals section");
  }
  return record;
}

IntakeConfig ParseIntake(const YamlNode& node) {
  IntakeConfig intake;
  if (node.IsNull()) return intake;
  ExpectMap(node, "intake", {"ref_keywords", "row_trailer", "no_row"});
  if (const YamlNode* keywords = node.Find("ref_keywords")) intake.ref_keywords = NonEmptyList(*keywords, "ref_keywords");
  if (const YamlNode* row_trailer = node.Find("row_trailer")) intake.row_trailer = Scalar(*row_trailer, "row_trailer");
  if (const YamlNode* no_row = node.Find("no_row")) intake.no_row = StringList(*no_row, "no_row");
  return intake;
}

RowsConfig ParseRows(const YamlNode& node) {
  RowsConfig rows;
  if (node.IsNull()) return rows;
  ExpectMap(node, "rows", {"branch"});
  if (const YamlNode* branch = node.Find("branch")) {
    rows.branch = Scalar(*branch, "branch");
    if (rows.branch.find("{id}") == std::string::npos) Fail(*branch, "branch must contain {id}");
  }
  return rows;
}

GencodeConfig ParseGencode(const YamlNode& node) {
  GencodeConfig gencode;
  if (node.IsNull()) return gencode;
  ExpectMap(node, "gencode", {"features", "sources_root", "compile_commands", "cuobjdump_list"});
  if (const YamlNode* features = node.Find("features")) gencode.features = Scalar(*features, "features");
  if (const YamlNode* root = node.Find("sources_root")) gencode.sources_root = Scalar(*root, "sources_root");
  if (const YamlNode* db = node.Find("compile_commands")) gencode.compile_commands = Scalar(*db, "compile_commands");
  if (const YamlNode* list = node.Find("cuobjdump_list")) gencode.cuobjdump_list = Scalar(*list, "cuobjdump_list");
  return gencode;
}

Ratchet ParseRatchet(const YamlNode& node) {
  ExpectMap(node, "a ratchet", {"gate", "rule", "baseline"});
  const YamlNode* gate = node.Find("gate");
  const YamlNode* rule = node.Find("rule");
  const YamlNode* baseline = node.Find("baseline");
  if (!gate || !rule || !baseline) Fail(node, "a ratchet needs gate, rule and baseline");
  Ratchet ratchet{Scalar(*gate, "gate"), Scalar(*rule, "rule"), Scalar(*baseline, "baseline"), node.line};
  if (FindBuiltinGate(ratchet.gate) == nullptr) Fail(*gate, "unknown built-in gate '" + ratchet.gate + "'");
  return ratchet;
}

// A built-in gate needs its config section; listing it without one is an error, not a silent pass.
void CheckGateSection(const Config& config, const GateSpec& gate, const YamlNode& node) {
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

GateSpec ParseGate(const YamlNode& node) {
  GateSpec gate;
  gate.line = node.line;
  if (node.IsScalar()) {
    gate.name = node.scalar;
    if (FindBuiltinGate(gate.name) == nullptr) {
      Fail(node, "unknown built-in gate '" + gate.name + "' (an external gate needs name and run)");
    }
    return gate;
  }
  ExpectMap(node, "a gate", {"name", "run", "timeout", "requires"});
  const YamlNode* name = node.Find("name");
  const YamlNode* run = node.Find("run");
  if (!name || !run) Fail(node, "an external gate needs name and run");
  gate.name = Scalar(*name, "name");
  if (run->IsScalar()) {
    gate.command = {"/bin/sh", "-c", run->scalar};
  } else {
    gate.command = StringList(*run, "run");
    if (gate.command.empty()) Fail(*run, "run must not be empty");
  }
  if (const YamlNode* timeout = node.Find("timeout")) {
    std::string s = Scalar(*timeout, "timeout");
    if (!ParseInt(s, &gate.timeout_s) || gate.timeout_s < 1) Fail(*timeout, "timeout must be whole seconds >= 1");
  }
  if (const YamlNode* tools = node.Find("requires")) gate.requires_tools = StringList(*tools, "requires");
  return gate;
}

Config ParseRoot(const YamlNode& root) {
  Config config;
  if (root.IsNull()) return config;
  ExpectMap(root, "the config",
            {"base", "trailers", "record", "intake", "rows", "gencode", "ratchets", "preflight"});
  if (const YamlNode* base = root.Find("base")) config.base = Scalar(*base, "base");
  const YamlNode* trailers = root.Find("trailers");
  if (trailers) {
    config.has_trailers = true;
    config.trailers = ParseTrailers(*trailers);
  }
  if (const YamlNode* record = root.Find("record")) config.record = ParseRecord(*record);
  if (const YamlNode* intake = root.Find("intake")) config.intake = ParseIntake(*intake);
  if (const YamlNode* rows = root.Find("rows")) config.rows = ParseRows(*rows);
  if (const YamlNode* gencode = root.Find("gencode")) config.gencode = ParseGencode(*gencode);
  if (const auto* ratchets = ListAt(root, "ratchets")) {
    for (const YamlNode& item : *ratchets) config.ratchets.push_back(ParseRatchet(item));
  }
  if (const YamlNode* required = trailers ? trailers->Find("required") : nullptr) {
    for (size_t i = 0; i < config.trailers.required.size(); ++i) {
      if (config.trailers.required[i].in_record && !config.record) {
        Fail(required->items[i], "in_record needs a record section");
      }
    }
  }
  if (const YamlNode* pre = root.Find("preflight")) {
    ExpectMap(*pre, "preflight", {"gates"});
    if (const auto* gates = ListAt(*pre, "gates")) {
      std::set<std::string> seen;
      for (const YamlNode& item : *gates) {
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

Result<Config> FromDocument(const Result<YamlNode>& root, const std::string& path) {
  if (!root.ok()) return root.status();
  try {
    Config config = ParseRoot(root.value());
    config.path = path;
    return config;
  } catch (const ConfigError& e) {
    return InvalidArgument(path + ":" + std::to_string(e.line) + ": " + e.message);
  }
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
  return FromDocument(ParseYaml(text, path), path);
}

Result<Config> LoadConfig(const std::string& path) {
  return FromDocument(LoadYamlFile(path, "the config file"), path);
}

}  // namespace vt::gate
