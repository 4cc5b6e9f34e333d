#include "governance/record_gate.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <optional>
#include <set>

#include "governance/anchors.h"
#include "governance/git_range.h"
#include "governance/goals.h"
#include "governance/record.h"

namespace vt::gate {
namespace {

constexpr const char* kGate = "record";

class RecordChecker {
 public:
  // `head`: the commit closing commits must be ancestors of; HEAD when empty.
  RecordChecker(const Repository& repo, const FileSource& source, const RecordConfig& config,
                const Record& record, GateReport& report, std::optional<git_oid> head)
      : repo_(repo),
        source_(source),
        config_(config),
        record_(record),
        report_(report),
        anchors_(source),
        head_(head) {}

  void Run() {
    for (const Finding& f : record_.malformed) report_.findings.push_back(f);
    for (const ClaimEntry& claim : record_.claims) owners_.insert(claim.owner);
    std::map<std::string, const RecordRow*> first;
    for (const RecordRow& row : record_.rows) {
      ++report_.checked;
      auto [it, inserted] = first.emplace(row.id, &row);
      if (!inserted) {
        Add("duplicate-id", row.file, row.line,
            "row id `" + row.id + "` is already used at " + it->second->file + ":" +
                std::to_string(it->second->line));
      }
      CheckRow(row);
    }
    CheckLinks();
    CheckSummaries();
  }

 private:
  void Add(const std::string& rule, const std::string& file, int line, std::string message) {
    report_.findings.push_back({rule, "", file, line, std::move(message)});
  }

  void CheckRow(const RecordRow& row) {
    if (row.id.empty() || (config_.id_pattern && !config_.id_pattern->Search(row.id))) {
      Add("id", row.file, row.line,
          "row id `" + row.id + "` does not match /" +
              (config_.id_pattern ? config_.id_pattern->source() : "") + "/");
    }
    const StateRule* state = StateOf(row);
    CheckRowAnchors(row, state != nullptr && state->anchors);
    if (!state) return;
    if (state->counted) {
      Add("state:" + state->name, row.file, row.line, "row `" + row.id + "` is " + state->name);
    }
    std::optional<MdDocument> spec;
    if (state->spec) spec = CheckSpec(row);
    if (state->goals != GoalsRule::kNone && spec) CheckGoals(row, *state, *spec);
    if (state->owner) CheckOwner(row, *state);
    if (state->closing) CheckClosing(row, *state);
  }

  const StateRule* StateOf(const RecordRow& row) {
    const MdCell* cell = row.Cell(Column::kState);
    std::vector<std::string> words = CellWords(*cell);
    std::vector<const StateRule*> known;
    for (const std::string& word : words) {
      if (const StateRule* rule = config_.FindState(word)) known.push_back(rule);
    }
    if (words.size() == 1 && known.size() == 1) return known[0];
    std::string states;
    for (const StateRule& s : config_.states) states += (states.empty() ? "" : ", ") + s.name;
    Add("state", row.file, row.line,
        "row `" + row.id + "`: the state cell `" + cell->text + "` must hold exactly one known state (" +
            states + ")");
    return nullptr;
  }

  void CheckRowAnchors(const RecordRow& row, bool required) {
    for (Column column : {Column::kCode, Column::kTests}) {
      const MdCell* cell = row.Cell(column);
      const char* what = column == Column::kCode ? "code" : "tests";
      std::vector<AnchorTarget> anchors = cell ? CellAnchors(row.file, *cell) : std::vector<AnchorTarget>{};
      for (const AnchorTarget& anchor : anchors) {
        std::string problem = anchors_.Check(anchor);
        if (problem.empty() && !UnderPrefix(anchor.path, config_.anchor_prefixes)) {
          problem = anchor.path + " is not under an anchor prefix";
        }
        if (problem.empty()) continue;
        Add("anchor", row.file, row.line, "row `" + row.id + "` " + what + " anchor: " + problem);
        reported_.insert(row.file + ":" + std::to_string(row.line) + ":" + anchor.path);
      }
      if (required && anchors.empty()) {
        Add("anchors-missing", row.file, row.line,
            "row `" + row.id + "` is " + row.Cell(Column::kState)->text + " and needs at least one " + what +
                " anchor (a link or `path:line`)");
      }
    }
  }

  bool IsPlaceholder(const std::string& body) const {
    std::string text = AsciiLower(body);
    while (!text.empty() && (std::isspace(static_cast<unsigned char>(text.back())) || text.back() == '.')) {
      text.pop_back();
    }
    if (text.empty()) return true;
    for (const std::string& p : config_.placeholders) {
      if (text == AsciiLower(p)) return true;
    }
    return false;
  }

  // The spec, parsed, when it exists (the goals check reads it too).
  std::optional<MdDocument> CheckSpec(const RecordRow& row) {
    const MdCell* cell = row.Cell(Column::kSpec);
    std::optional<AnchorTarget> target;
    if (cell) {
      for (const MdLink& link : cell->links) {
        if ((target = LinkTarget(row.file, link.url))) break;
      }
    }
    if (!target) {
      Add("spec", row.file, row.line,
          "row `" + row.id + "` needs a spec: link its spec file in the spec column");
      return std::nullopt;
    }
    std::optional<std::string> spec_text = source_.Read(target->path);
    std::optional<MdDocument> spec;
    if (spec_text) spec = ParseMarkdown(*spec_text);
    if (!spec) {
      Add("spec", row.file, row.line, "row `" + row.id + "`: spec " + target->path + " does not exist");
      return std::nullopt;
    }
    if (!ContainsToken(spec->text, row.id)) {
      Add("spec", target->path, 1,
          "the spec of row `" + row.id + "` does not name the row (linked from " + row.file + ":" +
              std::to_string(row.line) + ")");
    }
    for (const std::string& name : config_.spec_sections) {
      auto section = std::find_if(spec->sections.begin(), spec->sections.end(), [&](const MdSection& s) {
        return AsciiLower(s.title) == AsciiLower(name);
      });
      if (section == spec->sections.end()) {
        Add("spec-section", target->path, 1,
            "the spec of row `" + row.id + "` has no `" + name + "` section");
      } else if (IsPlaceholder(section->body)) {
        Add("spec-section", target->path, section->line,
            "section `" + name + "` of the spec of row `" + row.id + "` has no real content");
      }
    }
    return spec;
  }

  // A state that claims more than the measurements (DONE while a speed goal
  // is "not met") is a finding; so is a goal nobody measured.
  void CheckGoals(const RecordRow& row, const StateRule& state, const MdDocument& spec) {
    const GoalsConfig& config = *config_.goals;
    std::optional<std::vector<Goal>> goals = SpecGoals(spec, config.section);
    if (!goals) return;
    if (goals->empty()) {
      Add("goals", row.file, row.line,
          "row `" + row.id + "`: its spec's `" + config.section +
              "` section lists no goal ids (a table whose first column holds each id as a code span)");
      return;
    }
    if (!verdicts_) {
      std::optional<std::string> text = source_.Read(config.verdicts);
      verdicts_ = text ? std::optional(ReadVerdicts(ParseMarkdown(*text))) : std::nullopt;
      if (!verdicts_) {
        Add("goals", row.file, row.line,
            "row `" + row.id + "` has goals, but the verdicts file " + config.verdicts + " does not exist");
        verdicts_.emplace();  // reported once; each goal below then has no verdict
      }
    }
    for (const Goal& goal : *goals) {
      auto it = verdicts_->find(goal.id);
      Verdict verdict = it == verdicts_->end() ? Verdict::kNone : it->second.verdict;
      if (verdict == Verdict::kNone) {
        Add("goals", row.file, row.line,
            "row `" + row.id + "` is " + state.name + ", but goal `" + goal.id + "` has no verdict (\"met\" or " +
                "\"not met\" in a table row naming it) in " + config.verdicts);
      } else if (verdict == Verdict::kNotMet && state.goals == GoalsRule::kMet) {
        Add("goals", row.file, row.line,
            "row `" + row.id + "` is " + state.name + ", but goal `" + goal.id + "` is not met (" +
                config.verdicts + ":" + std::to_string(it->second.line) +
                "): pick a state that allows unmet goals");
      }
    }
  }

  void CheckOwner(const RecordRow& row, const StateRule& state) {
    const MdCell* cell = row.Cell(Column::kOwner);
    std::vector<std::string> owners = cell ? CellWords(*cell) : std::vector<std::string>{};
    owners.erase(
        std::remove_if(owners.begin(), owners.end(), [&](const std::string& o) { return IsPlaceholder(o); }),
        owners.end());
    if (owners.empty()) {
      Add("owner", row.file, row.line, "row `" + row.id + "` is " + state.name + " and needs an owner");
      return;
    }
    for (const std::string& owner : owners) {
      if (!owners_.count(owner)) {
        Add("owner", row.file, row.line,
            "row `" + row.id + "`: owner `" + owner + "` is not listed in a claims table");
      }
    }
  }

  void CheckClosing(const RecordRow& row, const StateRule& state) {
    const MdCell* cell = row.Cell(Column::kClosing);
    std::vector<std::string> words = cell ? CellWords(*cell) : std::vector<std::string>{};
    words.erase(
        std::remove_if(words.begin(), words.end(), [&](const std::string& w) { return IsPlaceholder(w); }),
        words.end());
    if (words.empty()) {
      Add("closing", row.file, row.line,
          "row `" + row.id + "` is " + state.name + " and needs a closing commit");
      return;
    }
    if (!head_) {
      Result<git_oid> head = ResolveCommit(repo_, "HEAD");
      if (!head.ok()) {
        Add("closing", row.file, row.line, "row `" + row.id + "`: HEAD does not name a commit");
        return;
      }
      head_ = head.value();
    }
    for (const std::string& word : words) {
      // Many rows close with the same few commits: resolve each once.
      auto [verdict, fresh] = closing_problems_.emplace(word, "");
      if (fresh) verdict->second = ClosingProblem(word);
      if (!verdict->second.empty())
        Add("closing", row.file, row.line, "row `" + row.id + "`: " + verdict->second);
    }
  }

  // Empty when `word` names a commit that is HEAD or an ancestor of it.
  std::string ClosingProblem(const std::string& word) {
    bool hex = word.size() >= 7 && word.find_first_not_of("0123456789abcdef") == std::string::npos;
    Result<git_oid> commit = hex ? ResolveCommit(repo_, word) : Result<git_oid>(NotFound(word));
    if (!commit.ok()) return "closing commit `" + word + "` is not a commit of this repository";
    bool ancestor = git_oid_equal(&commit.value(), &*head_) ||
                    git_graph_descendant_of(repo_.raw(), &*head_, &commit.value()) == 1;
    if (!ancestor) return "closing commit " + OidHex(commit.value()) + " is not an ancestor of HEAD";
    return "";
  }

  void CheckLinks() {
    for (const RecordFile& file : record_.files) {
      for (const MdLink& link : file.doc.links) {
        std::optional<AnchorTarget> target = LinkTarget(file.path, link.url);
        if (!target) continue;
        std::string problem = anchors_.Check(*target);
        // A broken anchor was already reported as such; the same link is not a second finding.
        if (problem.empty() ||
            reported_.count(file.path + ":" + std::to_string(link.line) + ":" + target->path)) {
          continue;
        }
        Add("link", file.path, link.line, "link `" + link.url + "`: " + problem);
      }
    }
  }

  void CheckSummaries() {
    std::map<std::string, int> counts;
    for (const RecordRow& row : record_.rows) {
      std::vector<std::string> words = CellWords(*row.Cell(Column::kState));
      if (words.size() == 1) ++counts[words[0]];
    }
    for (const SummaryEntry& entry : record_.summaries) {
      std::string state = entry.state;
      state.erase(std::remove(state.begin(), state.end(), '`'), state.end());
      bool total = AsciiLower(state) == "total";
      int real = total ? static_cast<int>(record_.rows.size()) : counts[state];
      if (!total && !config_.FindState(state)) {
        Add("summary", entry.file, entry.line, "summary names unknown state `" + state + "`");
      } else if (entry.count != std::to_string(real)) {
        Add("summary", entry.file, entry.line,
            "summary says " + entry.count + " " + state + " rows; the record has " + std::to_string(real));
      }
    }
  }

  const Repository& repo_;
  const FileSource& source_;
  const RecordConfig& config_;
  const Record& record_;
  GateReport& report_;
  AnchorChecker anchors_;
  std::set<std::string> owners_;                         // everyone a claims table lists
  std::set<std::string> reported_;                       // "file:line:target" of broken anchors
  std::map<std::string, std::string> closing_problems_;  // closing-commit word -> problem, "" when fine
  std::optional<git_oid> head_;
  std::optional<std::map<std::string, GoalVerdict>> verdicts_;  // read once, on the first row with goals
};


GateReport CheckRecordIn(const Repository& repo, const Config& config, const Result<FileSource>& source,
                         std::optional<git_oid> head) {
  auto start = std::chrono::steady_clock::now();
  GateReport report;
  report.gate = kGate;
  Result<Record> record =
      source.ok() ? LoadRecord(source.value(), *config.record) : Result<Record>(source.status());
  if (!record.ok()) {
    report.status = GateStatus::kFail;
    report.reason = record.status().message();
  } else {
    RecordChecker(repo, source.value(), *config.record, record.value(), report, head).Run();
    std::string scope = Counted(report.checked, "row") + " in " + Counted(record->files.size(), "file");
    report.status = report.findings.empty() ? GateStatus::kOk : GateStatus::kFail;
    report.reason =
        report.findings.empty() ? scope : Counted(report.findings.size(), "finding") + " (" + scope + ")";
  }
  report.elapsed_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace

GateReport CheckRecord(const Repository& repo, const Config& config, bool staged) {
  return CheckRecordIn(repo, config, staged ? FileSource::Index(repo) : Result<FileSource>(FileSource::WorkTree(repo)),
                       std::nullopt);
}

GateReport CheckRecordAt(const Repository& repo, const Config& config, const git_oid& commit) {
  return CheckRecordIn(repo, config, FileSource::Commit(repo, commit), commit);
}

}  // namespace vt::gate
