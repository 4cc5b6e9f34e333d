#include "governance/intake_gate.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "governance/anchors.h"
#include "governance/git_range.h"
#include "governance/ownership.h"
#include "governance/record.h"
#include "governance/trailer_parser.h"

namespace vt::gate {
namespace {

constexpr const char* kGate = "intake";

bool AllDigits(const std::string& s) {
  return !s.empty() && s.size() <= 9 &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// "#12" -> 12, else 0.
int HashNumber(const std::string& s) {
  return s.size() > 1 && s[0] == '#' && AllDigits(s.substr(1)) ? std::stoi(s.substr(1)) : 0;
}

// "https://host/owner/repo/issues/12" -> 12, else 0.
int UrlNumber(const std::string& url) {
  if (url.rfind("https://", 0) != 0 && url.rfind("http://", 0) != 0) return 0;
  size_t slash = url.rfind('/');
  if (slash == std::string::npos || slash < 7) return 0;
  std::string number = url.substr(slash + 1);
  size_t kind = url.rfind('/', slash - 1);
  std::string segment = url.substr(kind + 1, slash - kind - 1);
  if ((segment != "issues" && segment != "pull") || !AllDigits(number)) return 0;
  return std::stoi(number);
}

// A bare issue URL in prose (no autolink extension: it stays text).
bool MentionsUrl(const std::string& text, int number) {
  std::istringstream words(text);
  std::string word;
  while (words >> word) {
    while (!word.empty() && std::string(".,;:)").find(word.back()) != std::string::npos) word.pop_back();
    if (UrlNumber(word) == number) return true;
  }
  return false;
}

// An issue reference: `#N`, a full issue URL, or `[#N](URL)` with matching numbers.
struct IssueRef {
  int number = 0;
  std::string problem;  // why the form is wrong; empty when it is right
};

IssueRef ParseIssueCell(const MdCell& cell) {
  if (cell.links.size() == 1) {
    const MdLink& link = cell.links[0];
    int from_url = UrlNumber(link.url);
    if (!from_url) return {0, "`" + link.url + "` is not a full issue URL"};
    int from_text = link.text == link.url ? from_url : HashNumber(link.text);
    if (from_text != from_url) return {0, "link text `" + link.text + "` does not match " + link.url};
    return {from_url, ""};
  }
  if (cell.links.empty()) {
    if (int n = HashNumber(cell.text)) return {n, ""};
    if (int n = UrlNumber(cell.text)) return {n, ""};
  }
  return {0, "`" + cell.text + "` is not `#N` or a full issue URL"};
}

struct Description {
  std::string file;    // set for a description file
  std::string commit;  // set for a commit message
  std::string text;
};

struct DescriptionRef {
  int number = 0;
  int line = 0;
  std::string problem;
};

// The issue references after a keyword: "Refs #3, #4", "Closes: https://.../issues/5", "Fixes [#6](url)".
std::vector<DescriptionRef> FindRefs(const std::string& text, const std::vector<std::string>& keywords) {
  std::vector<DescriptionRef> refs;
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    std::istringstream words(line);
    std::string word;
    bool after_keyword = false;
    while (words >> word) {
      std::string bare = word;
      if (!bare.empty() && bare.back() == ':') bare.pop_back();
      bool keyword = std::any_of(keywords.begin(), keywords.end(),
                                 [&](const std::string& k) { return AsciiLower(k) == AsciiLower(bare); });
      if (keyword) {
        after_keyword = true;
        continue;
      }
      if (!after_keyword) continue;
      // "fixes and speed-ups" is prose: only words that try to be references are references.
      if (word[0] != '#' && word[0] != '[' && word.rfind("http", 0) != 0) {
        after_keyword = false;
        continue;
      }
      bool more = !word.empty() && word.back() == ',';
      while (!word.empty() && (word.back() == ',' || word.back() == '.' || word.back() == ';'))
        word.pop_back();
      DescriptionRef ref{0, number, ""};
      if (size_t close = word.find("](");
          word.rfind("[", 0) == 0 && close != std::string::npos && word.back() == ')') {
        int from_text = HashNumber(word.substr(1, close - 1));
        int from_url = UrlNumber(word.substr(close + 2, word.size() - close - 3));
        if (from_url && from_text == from_url) {
          ref.number = from_url;
        } else {
          ref.problem = "`" + word + "`: the link text and the issue URL must name the same issue";
        }
      } else if (int n = HashNumber(word) ? HashNumber(word) : UrlNumber(word)) {
        ref.number = n;
      } else {
        ref.problem =
            "`" + word + "` after `" + line.substr(0, line.find(' ')) + "` is not `#N` or a full issue URL";
      }
      refs.push_back(ref);
      after_keyword = more;
    }
  }
  return refs;
}

class IntakeChecker {
 public:
  IntakeChecker(const FileSource& source, const Config& config, const Record& record, GateReport& report)
      : source_(source), config_(config), record_(record), report_(report) {}

  void CheckTable() {
    std::map<int, const IntakeEntry*> seen;
    for (const IntakeEntry& entry : record_.intake) {
      IssueRef issue = ParseIssueCell(entry.issue);
      if (!issue.problem.empty()) {
        Add("intake-form", entry.file, entry.line, issue.problem);
        continue;
      }
      auto [it, inserted] = seen.emplace(issue.number, &entry);
      if (!inserted) {
        Add("intake-duplicate", entry.file, entry.line,
            "issue #" + std::to_string(issue.number) + " is already listed at " + it->second->file + ":" +
                std::to_string(it->second->line));
        continue;
      }
      std::vector<std::string> ids = CellWords(entry.rows);
      if (ids.empty())
        Add("intake-row", entry.file, entry.line,
            "issue #" + std::to_string(issue.number) + " maps to no row");
      for (const std::string& id : ids) {
        const RecordRow* row = record_.Find(id);
        if (!row) {
          Add("intake-row", entry.file, entry.line,
              "issue #" + std::to_string(issue.number) + " maps to `" + id +
                  "`, which is not a row of the record");
          continue;
        }
        owners_[issue.number].push_back(id);
        CheckSpecNames(entry, *row, issue.number);
      }
    }
  }

  // Returns the description's Row values.
  std::vector<std::string> CheckDescription(const Description& d) {
    ++report_.checked;
    TrailerBlock block = ParseTrailers(d.text, syntax_);
    std::vector<std::string> rows;
    for (const Trailer& t : block.trailers) {
      if (AsciiLower(t.key) == AsciiLower(intake().row_trailer)) rows.push_back(t.value);
    }
    for (const DescriptionRef& ref : FindRefs(d.text, intake().ref_keywords)) {
      if (!ref.problem.empty()) {
        AddDescription(d, "intake-form", ref.line, ref.problem);
        continue;
      }
      std::string issue = "#" + std::to_string(ref.number);
      auto owned = owners_.find(ref.number);
      if (owned == owners_.end()) {
        AddDescription(d, "intake-unowned", ref.line,
                       "the change references " + issue + ", which no intake row owns");
        continue;
      }
      for (const std::string& row : rows) {
        if (std::find(owned->second.begin(), owned->second.end(), row) != owned->second.end()) continue;
        std::string list;
        for (const std::string& id : owned->second) list += (list.empty() ? "" : ", ") + id;
        AddDescription(d, "intake-mismatch", ref.line,
                       "the change says `" + intake().row_trailer + ": " + row + "` but " + issue +
                           " belongs to " + list);
      }
    }
    return rows;
  }

  // A pull request's description speaks for its whole change (what a squash merge lands): the
  // rows it names must own every owned file the change edits, merge-base..head.
  void CheckDescriptionOwnership(const Repository& repo, const Description& d, const std::vector<std::string>& rows,
                                 const std::optional<git_oid>& fork, const git_oid& head) {
    const std::string& key = intake().row_trailer;
    if (rows.empty()) {
      report_.notes.push_back("ownership of " + d.file + ": it names no `" + key + ":`, so no row claims its files");
      return;
    }
    if (!fork) {
      report_.notes.push_back("ownership of " + d.file + " not verified: the change's fork point is unknown");
      return;
    }
    Result<std::vector<std::string>> files = ChangedFilesBetween(repo, *fork, head);
    if (!files.ok()) {
      report_.notes.push_back("ownership of " + d.file + " not verified: " + files.status().message());
      return;
    }
    // The owners at the fork point decide: the change's own record could hand its rows any file.
    Result<Record> base = LoadRecordAt(repo, *fork, *config_.record);
    if (!base.ok()) {
      report_.notes.push_back("ownership of " + d.file + " not verified: the record at the fork point: " +
                              base.status().message());
      return;
    }
    std::vector<Record> bases;
    bases.push_back(std::move(base.value()));
    const OwnershipConfig& rule = *config_.record->ownership;
    std::vector<std::string> unowned =
        UnownedChanges(OwnershipMap::ForChange(bases, record_), rule, rows, files.value());
    if (unowned.empty()) return;
    const std::string text = UnownedMessage(key, rows, unowned);
    if (rule.mode == OwnershipMode::kFail) {
      AddDescription(d, "ownership", 0, text);
    } else {
      report_.notes.push_back("ownership (warn): " + d.file + " " + text);
    }
  }

  void SetSyntax(TrailerSyntax syntax) { syntax_ = std::move(syntax); }

 private:
  const IntakeConfig& intake() const { return *config_.intake; }

  void Add(const std::string& rule, const std::string& file, int line, std::string message) {
    report_.findings.push_back({rule, "", file, line, std::move(message)});
  }

  void AddDescription(const Description& d, const std::string& rule, int line, std::string message) {
    report_.findings.push_back({rule, d.commit, d.file, line, std::move(message)});
  }

  void CheckSpecNames(const IntakeEntry& entry, const RecordRow& row, int number) {
    std::string issue = "#" + std::to_string(number);
    const MdCell* spec_cell = row.Cell(Column::kSpec);
    std::string spec_path;
    if (spec_cell) {
      for (const MdLink& link : spec_cell->links) {
        if (std::optional<AnchorTarget> target = LinkTarget(row.file, link.url)) {
          spec_path = target->path;
          break;
        }
      }
    }
    if (spec_path.empty()) {
      // A row whose state needs no spec yet (e.g. INVENTORIED) has nothing to disagree with.
      std::vector<std::string> state = CellWords(*row.Cell(Column::kState));
      const StateRule* rule = state.size() == 1 ? config_.record->FindState(state[0]) : nullptr;
      if (rule && !rule->spec) return;
      Add("intake-spec", entry.file, entry.line,
          "row `" + row.id + "` of " + issue + " has no spec to name the issue");
      return;
    }
    std::optional<std::string> spec_text = source_.Read(spec_path);
    std::optional<MdDocument> spec;
    if (spec_text) spec = ParseMarkdown(*spec_text);
    if (!spec) {
      Add("intake-spec", entry.file, entry.line,
          "row `" + row.id + "`: spec " + spec_path + " does not exist");
      return;
    }
    bool named = ContainsToken(spec->text, issue) ||
                 std::any_of(spec->links.begin(), spec->links.end(),
                             [&](const MdLink& l) { return UrlNumber(l.url) == number; }) ||
                 MentionsUrl(spec->text, number);
    if (!named) {
      Add("intake-spec", entry.file, entry.line,
          issue + " maps to row `" + row.id + "`, but its spec " + spec_path + " does not mention " + issue);
    }
  }

  const FileSource& source_;
  const Config& config_;
  const Record& record_;
  GateReport& report_;
  TrailerSyntax syntax_;
  std::map<int, std::vector<std::string>> owners_;  // issue -> row ids
};

// Where the described change forks from its base, and its head: CI's scope (head, the base it
// hides), else the pinned base and HEAD. The fork is empty when no merge base is in the clone.
struct ChangeEnds {
  std::optional<git_oid> fork;
  git_oid head{};
};

Result<ChangeEnds> DescribedChange(const Repository& repo, const IntakeInput& input) {
  ChangeEnds ends;
  std::optional<git_oid> base;
  if (input.scope) {
    ends.head = input.scope->head;
    if (!input.scope->hide.empty()) base = input.scope->hide.front();
  } else if (input.base) {
    Result<CommitRange> range = ResolveRange(repo, *input.base, "HEAD");
    if (!range.ok()) return range.status();
    ends.head = range->head;
    base = *input.base;
  } else {
    return Unavailable(input.base_unavailable.empty() ? "no base to compare with" : input.base_unavailable);
  }
  if (base) {
    Result<git_oid> fork = MergeBase(repo, *base, ends.head);
    if (fork.ok()) ends.fork = fork.value();
  }
  return ends;
}

Result<std::string> ReadDescription(const std::string& path) {
  std::ostringstream text;
  if (path == "-") {
    text << std::cin.rdbuf();
    return text.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(path + ": cannot read the description file");
  text << in.rdbuf();
  return text.str();
}

}  // namespace

GateReport CheckIntake(const Repository& repo, const Config& config, const IntakeInput& input) {
  auto start = std::chrono::steady_clock::now();
  GateReport report;
  report.gate = kGate;
  if (input.base) report.base = OidHex(*input.base);
  Result<FileSource> source = input.at_commit ? FileSource::Commit(repo, *input.at_commit)
                              : input.staged ? FileSource::Index(repo)
                                             : Result<FileSource>(FileSource::WorkTree(repo));
  Result<Record> record =
      source.ok() ? LoadRecord(source.value(), *config.record) : Result<Record>(source.status());
  Status status = record.status();
  std::string scope;
  if (status.ok()) {
    IntakeChecker checker(source.value(), config, record.value(), report);
    checker.SetSyntax(repo.ReadTrailerSyntax());
    checker.CheckTable();
    scope = Counted(record->intake.size(), "issue");
    auto check_message = [&](const WalkedCommit& c) {
      if (c.parent_count() > 1) return true;  // a merge's message is generated
      checker.CheckDescription({"", OidHex(c.id()), std::string(c.message())});
      return true;
    };
    if (input.at_commit) {
      scope += " in " + source->name();
    } else if (!input.description.empty() || !input.description_name.empty()) {
      Description d{input.description_name, "", input.description_text};
      if (!input.description.empty()) {
        d.file = input.description == "-" ? "<stdin>" : input.description;
        Result<std::string> text = ReadDescription(input.description);
        status = text.status();
        if (text.ok()) d.text = text.value();
      }
      scope += ", description " + d.file;
      if (status.ok()) {
        const std::vector<std::string> rows = checker.CheckDescription(d);
        // The change's ends (a merge base) only where ownership is checked.
        if (config.record->ownership) {
          Result<ChangeEnds> ends = DescribedChange(repo, input);
          if (ends.ok()) {
            checker.CheckDescriptionOwnership(repo, d, rows, ends->fork, ends->head);
          } else {
            report.notes.push_back("ownership of " + d.file + " not verified: " + ends.status().message());
          }
        }
      }
    } else if (input.scope) {
      status = WalkScope(repo, *input.scope, {}, check_message);
      scope += ", " + Counted(report.checked, "commit message") + " in " + input.scope->describe;
    } else if (!input.base) {
      status =
          Unavailable(input.base_unavailable + "; the change descriptions (commit messages) cannot be read");
    } else {
      Result<CommitRange> range = ResolveRange(repo, *input.base, "HEAD");
      status = range.status();
      if (range.ok()) {
        Result<git_oid> start = WalkRange(repo, range.value(), {}, check_message);
        status = start.status();
        if (start.ok())
          scope += ", " + Counted(report.checked, "commit message") + " in " + DescribeRange(start.value(), range->head);
      }
    }
  }
  if (!report.findings.empty()) {
    report.status = GateStatus::kFail;
    report.reason = Counted(report.findings.size(), "finding") + " (" + scope + ")";
    if (!status.ok()) report.notes.push_back("not verified: " + status.message());
  } else if (!status.ok()) {
    report.status = status.code() == StatusCode::kUnavailable ? GateStatus::kSkip : GateStatus::kFail;
    report.reason = status.message();
  } else {
    report.reason = scope;
  }
  report.elapsed_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace vt::gate
