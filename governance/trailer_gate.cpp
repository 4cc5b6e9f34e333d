#include "governance/trailer_gate.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <functional>
#include <fstream>
#include <iostream>
#include <iterator>
#include <set>
#include <sstream>

#include "governance/cherry_pick.h"
#include "governance/message_cleanup.h"
#include "governance/ownership.h"
#include "governance/record.h"
#include "governance/trailer_rules.h"

namespace vt::gate {
namespace {

constexpr const char* kGate = "trailers";
// Larger messages are refused rather than read: no commit message is 64 MiB.
constexpr std::streamsize kMaxMessageBytes = 64 << 20;

using Clock = std::chrono::steady_clock;

double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Tallies of commits deliberately not checked, reported as notes.
struct Tally {
  int merges = 0;
  int fixups = 0;
  int reverts = 0;
  int bots = 0;
};

struct OidLess {
  bool operator()(const git_oid& a, const git_oid& b) const { return git_oid_cmp(&a, &b) < 0; }
};

class Checker {
 public:
  // `ownership`: the record after the change (the work tree's) when record.ownership is on, else null.
  Checker(const Repository& repo, const Config& config, const Record* ownership, TrailerSyntax syntax,
          GateReport& report)
      : repo_(repo), config_(config), ownership_(ownership), syntax_(std::move(syntax)), report_(report) {}

  void Check(const WalkedCommit& commit) {
    if (ownership_) Visited(commit);
    const char* encoding = commit.encoding();
    MessageFacts facts;
    facts.message = commit.message();
    facts.parent_count = static_cast<int>(commit.parent_count());
    facts.author = commit.author();
    facts.check_encoding = encoding == nullptr || std::string_view(encoding) == "UTF-8" ||
                           std::string_view(encoding) == "utf-8" || std::string_view(encoding) == "utf8";
    MessageVerdict verdict = CheckMessage(config_.trailers, syntax_, facts);
    switch (verdict.disposition) {
      case CommitDisposition::kChecked:
        ++report_.checked;
        break;
      case CommitDisposition::kSkippedMerge:
        ++tally_.merges;
        return;
      case CommitDisposition::kSkippedFixup:
        ++tally_.fixups;
        return;
      case CommitDisposition::kSkippedRevert:
        ++tally_.reverts;
        return;
      case CommitDisposition::kSkippedBot:
        ++tally_.bots;
        return;
    }
    // Most commits have no findings and no further checks: no id to spell.
    if (verdict.findings.empty() && !config_.trailers.cherry_picks && !ownership_) return;
    std::string id = OidHex(commit.id());
    git_commit* full = (config_.trailers.cherry_picks || ownership_) ? commit.Full() : nullptr;
    if ((config_.trailers.cherry_picks || ownership_) && !full) {
      unverified_.push_back("commit " + id + ": " + LastGitError());
    } else if (config_.trailers.cherry_picks) {
      ProvenanceVerdict provenance =
          CheckCherryPickProvenance(repo_, *config_.trailers.cherry_picks, syntax_, full);
      for (RuleFinding& f : provenance.findings) verdict.findings.push_back(std::move(f));
      if (!IsException(id, "cherry-pick:source")) {
        for (const std::string& what : provenance.unverified)
          unverified_.push_back("cherry-pick source of " + id + ": " + what);
      }
    }
    for (RuleFinding& f : verdict.findings) {
      if (IsException(id, f.rule)) continue;
      report_.findings.push_back({f.rule, id, "", f.line, std::move(f.message)});
    }
    if (ownership_ && full && !IsException(id, "ownership")) CollectOwnership(full, facts.message, id);
  }

  // After the walk (`walk`: how it ended): the policy notes, and when it ran to
  // the end the ownership of the commits it collected and what could not be
  // verified, as the status the gate reports.
  Status Finish(Status walk) {
    auto note = [&](int n, const char* what) {
      if (n) report_.notes.push_back(std::to_string(n) + " " + what + " not checked (config policy)");
    };
    note(tally_.merges, "merge commits");
    note(tally_.fixups, "fixup!/squash!/amend! commits");
    note(tally_.reverts, "revert commits");
    note(tally_.bots, "bot commits");
    if (!walk.ok()) return walk;
    CheckOwnership();
    return Unverified();
  }

 private:
  // A commit's Row values and the files it changes, held to their owners by CheckOwnership.
  struct PendingOwnership {
    std::string id;
    std::vector<std::string> rows;
    std::vector<std::string> files;
  };

  std::string RowKey() const { return config_.intake ? config_.intake->row_trailer : "Row"; }

  // Holds the collected commits to the owners at the change's base: the records
  // of the commits the walk stopped at (parents of walked commits that were not
  // walked), known only once the walk is done.
  void CheckOwnership() {
    if (pending_.empty()) return;
    std::vector<Record> base;
    for (const git_oid& start : Boundary()) {
      Result<Record> record = LoadRecordAt(repo_, start, *config_.record);
      if (!record.ok()) {
        unverified_.push_back("ownership: the record at the change's base " + OidHex(start) + ": " +
                              record.status().message());
        return;
      }
      base.push_back(std::move(record.value()));
    }
    const OwnershipMap owners = OwnershipMap::ForChange(base, *ownership_);
    const OwnershipConfig& rule = *config_.record->ownership;
    for (const PendingOwnership& p : pending_) {
      std::vector<std::string> unowned = UnownedChanges(owners, rule, p.rows, p.files);
      if (unowned.empty()) continue;
      const std::string message_text = UnownedMessage(RowKey(), p.rows, unowned);
      if (rule.mode == OwnershipMode::kFail) {
        report_.findings.push_back({"ownership", p.id, "", 0, message_text});
      } else {
        report_.notes.push_back("ownership (warn): " + p.id.substr(0, 12) + " " + message_text);
      }
    }
  }

  // Provenance that could not be verified: with no findings the gate cannot
  // say ok, so it skips (exit 3) naming them; next to findings they are notes.
  Status Unverified() {
    if (unverified_.empty()) return Status::Ok();
    if (!report_.findings.empty()) {
      for (const std::string& what : unverified_) report_.notes.push_back("not verified: " + what);
      return Status::Ok();
    }
    std::string reason = "not verified: " + unverified_.front();
    if (unverified_.size() > 1) reason += " (and " + Counted(unverified_.size() - 1, "more source") + ")";
    return Unavailable(reason);
  }

  // A first-parent walk leaves a merge's other parents out though they may be
  // the change's own: only first parents say where it starts.
  void Visited(const WalkedCommit& commit) {
    walked_.insert(commit.id());
    unsigned parents = config_.trailers.first_parent ? std::min(commit.parent_count(), 1u) : commit.parent_count();
    for (unsigned i = 0; i < parents; ++i) parents_.insert(commit.parent(i));
  }

  // The commits the walked ones start from, in id order.
  std::vector<git_oid> Boundary() const {
    std::vector<git_oid> boundary;
    std::set_difference(parents_.begin(), parents_.end(), walked_.begin(), walked_.end(),
                        std::back_inserter(boundary), OidLess());
    return boundary;
  }

  void CollectOwnership(git_commit* commit, std::string_view message, const std::string& id) {
    const std::string row_key = AsciiLower(RowKey());
    std::vector<std::string> rows;
    for (const Trailer& t : ParseTrailers(message, syntax_).trailers) {
      if (AsciiLower(t.key) == row_key) rows.push_back(t.value);
    }
    Result<std::vector<std::string>> files = ChangedFiles(repo_, commit);
    if (!files.ok()) {
      unverified_.push_back("ownership of " + id + ": " + files.status().message());
      return;
    }
    pending_.push_back({id, std::move(rows), std::move(files.value())});
  }

  bool IsException(const std::string& commit, const std::string& rule) const {
    for (const TrailerException& e : config_.trailers.exceptions) {
      if (e.commit == commit && e.rule == rule) return true;
    }
    return false;
  }

  const Repository& repo_;
  const Config& config_;
  const Record* ownership_;
  TrailerSyntax syntax_;
  GateReport& report_;
  Tally tally_;
  std::vector<std::string> unverified_;
  std::set<git_oid, OidLess> walked_, parents_;  // when ownership is checked
  std::vector<PendingOwnership> pending_;
};

GateReport NewReport() {
  GateReport report;
  report.gate = kGate;
  return report;
}

void AddDebt(const Config& config, GateReport& report) {
  for (const TrailerException& e : config.trailers.exceptions)
    report.debt.push_back({e.rule, e.commit, e.reason});
}

void Conclude(GateReport& report, const std::string& scope) {
  if (report.status == GateStatus::kSkip) return;
  if (report.findings.empty()) {
    if (report.status == GateStatus::kOk) report.reason = scope;
    return;
  }
  std::set<std::string> commits;
  for (const Finding& f : report.findings) {
    if (!f.commit.empty()) commits.insert(f.commit);
  }
  report.status = GateStatus::kFail;
  report.reason =
      std::to_string(report.findings.size()) + (report.findings.size() == 1 ? " finding" : " findings");
  if (!commits.empty())
    report.reason += " in " + std::to_string(commits.size()) + (commits.size() == 1 ? " commit" : " commits");
  report.reason += " (" + scope + ")";
}

// The cutover commit as a walk floor; an unknown cutover cannot be verified.
Status FloorFor(const Repository& repo, const Config& config, WalkOptions& options) {
  if (config.trailers.cutover.empty()) return Status::Ok();
  git_oid oid;
  git_commit* commit = nullptr;
  if (git_oid_fromstr(&oid, config.trailers.cutover.c_str()) != 0 ||
      git_commit_lookup(&commit, repo.raw(), &oid) != 0) {
    return Unavailable("cutover commit " + config.trailers.cutover +
                       " is not in this repository (shallow clone?)");
  }
  git_commit_free(commit);
  options.floor = oid;
  return Status::Ok();
}

// The config the checks run with: a rule that consults the record
// (`in_record`) gets the record's row ids, and record.ownership the record
// itself (the owners after the change), both read from the work tree once;
// the config itself stays untouched.
struct Effective {
  Config config;
  std::optional<Record> ownership;
  const Record* owners() const { return ownership ? &*ownership : nullptr; }
};

// `wanted`: when given (and no ownership is needed), the only ids the caller will look up; only the
// record files that name them are parsed, until it holds them all (LoadRecord's only_ids).
Result<Effective> WithRecord(const Repository* repo, const Config& config, bool ownership_applies,
                             const std::vector<std::string>* wanted = nullptr) {
  bool ids = std::any_of(config.trailers.required.begin(), config.trailers.required.end(),
                         [](const TrailerRequirement& r) { return r.in_record; });
  bool owners = ownership_applies && config.record && config.record->ownership;
  if ((!ids && !owners) || !config.record) return Effective{config, std::nullopt};
  if (!repo) return InvalidArgument("the Row rule consults the record, which needs a repository");
  Result<Record> record = LoadRecord(FileSource::WorkTree(*repo), *config.record, owners ? nullptr : wanted);
  if (!record.ok()) return record.status();
  Effective effective{config, std::nullopt};
  if (ids) effective.config.trailers.record_ids = record->SortedIds();
  if (owners) effective.ownership = std::move(record.value());
  return effective;
}

GateReport RecordUnreadable(const Status& status) {
  GateReport report = NewReport();
  report.status = GateStatus::kFail;
  report.reason = status.message();
  return report;
}

bool IsZeroId(const std::string& hex) { return hex.find_first_not_of('0') == std::string::npos; }

// The rules over the commits `walk` visits. `walk` returns the walk's status
// and sets the scope the report names.
using Walker =
    std::function<Status(const WalkOptions&, const std::function<bool(const WalkedCommit&)>&, std::string*)>;

GateReport CheckWalked(const Repository& repo, const Config& raw_config, const std::string& base,
                       const Walker& walk) {
  Clock::time_point start = Clock::now();
  Result<Effective> effective = WithRecord(&repo, raw_config, true);
  if (!effective.ok()) return RecordUnreadable(effective.status());
  const Config& config = effective->config;
  GateReport report = NewReport();
  report.base = base;
  AddDebt(config, report);
  WalkOptions options;
  options.first_parent = config.trailers.first_parent;
  options.authors = config.trailers.bot_authors.has_value();  // kept only where a rule reads them
  Status status = FloorFor(repo, config, options);
  std::string scope;
  if (status.ok()) {
    Checker checker(repo, config, effective->owners(), repo.ReadTrailerSyntax(), report);
    status = walk(
        options,
        [&](const WalkedCommit& c) {
          checker.Check(c);
          return true;
        },
        &scope);
    status = checker.Finish(status);
  }
  if (!status.ok()) {
    report.status = status.code() == StatusCode::kUnavailable ? GateStatus::kSkip : GateStatus::kFail;
    report.reason = status.message();
    report.findings.clear();
  }
  Conclude(report, std::to_string(report.checked) + " commits in " + scope);
  report.elapsed_ms = MillisSince(start);
  return report;
}

}  // namespace

GateReport CheckTrailerRange(const Repository& repo, const Config& config, const git_oid& base,
                             const std::string& head_spec) {
  return CheckWalked(repo, config, OidHex(base), [&](const WalkOptions& options, const auto& visit, std::string* scope) {
    *scope = OidHex(base) + ".." + head_spec;
    Result<CommitRange> range = ResolveRange(repo, base, head_spec);
    if (!range.ok()) return range.status();
    Result<git_oid> start = WalkRange(repo, range.value(), options, visit);
    if (!start.ok()) return start.status();
    *scope = DescribeRange(start.value(), range->head);
    return Status::Ok();
  });
}

GateReport CheckTrailerScope(const Repository& repo, const Config& config, const ChangeScope& change) {
  return CheckWalked(repo, config, "", [&](const WalkOptions& options, const auto& visit, std::string* scope) {
    *scope = change.describe;
    return WalkScope(repo, change, options, visit);
  });
}

GateReport CheckTrailerMessageFile(const Repository* repo, const Config& raw_config, const std::string& path,
                                   bool editor_used) {
  Clock::time_point start = Clock::now();
  GateReport report = NewReport();
  std::string raw;
  {
    std::ifstream file;
    std::istream* in = &std::cin;
    if (path != "-") {
      std::error_code ec;
      if (std::filesystem::is_directory(path, ec)) {
        report.status = GateStatus::kFail;
        report.reason = path + ": is a directory, not a message file";
        return report;
      }
      file.open(path, std::ios::binary);
      if (!file) {
        report.status = GateStatus::kFail;
        report.reason = path + ": cannot read the message file";
        return report;
      }
      in = &file;
    }
    std::ostringstream buffer;
    // A page, not zero-filled: the hook's whole budget is 10 ms, and 64 KiB
    // of fresh zeroed memory was 16 page faults, a fifth of a millisecond.
    std::array<char, 4096> chunk;
    while (in->read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in->gcount() > 0) {
      buffer.write(chunk.data(), in->gcount());
      if (buffer.tellp() > kMaxMessageBytes) {
        report.status = GateStatus::kFail;
        report.reason = path + ": the message is larger than 64 MiB";
        return report;
      }
    }
    raw = buffer.str();
  }
  TrailerSyntax syntax = repo ? repo->ReadTrailerSyntax() : TrailerSyntax{};
  CleanupPlan plan = PlanCleanup(raw, repo ? repo->ConfigString("commit.cleanup", "default") : "default",
                                 editor_used, repo && repo->ConfigBool("commit.verbose", false),
                                 syntax.comment_char);
  // A NUL-containing message is reported, not cleaned: cleanup would hide it.
  CleanMessage clean = raw.find('\0') == std::string::npos ? CleanupMessage(raw, plan, syntax.comment_char)
                                                           : CleanMessage{raw, {}};
  // The rows the message names are all the hook looks up: the record is read until it holds them
  // (its first files, the row tables, usually), not through every spec. A message being written has
  // no commit to diff yet: ownership is checked when the commit is pushed or reaches CI.
  const std::vector<std::string> named = RecordIdsNamed(raw_config.trailers, ParseTrailers(clean.text, syntax));
  Result<Effective> effective = WithRecord(repo, raw_config, false, &named);
  if (!effective.ok()) return RecordUnreadable(effective.status());
  const Config& config = effective->config;
  AddDebt(config, report);
  MessageFacts facts;
  facts.message = clean.text;
  // During a merge the commit being made has MERGE_HEAD's commits as parents too.
  facts.parent_count = 1 + (repo ? repo->PendingMergeHeads() : 0);
  MessageVerdict verdict = CheckMessage(config.trailers, syntax, facts);
  if (verdict.disposition == CommitDisposition::kSkippedMerge) {
    report.reason = "merge message " + (path == "-" ? std::string("<stdin>") : path) +
                    " not checked (config policy: merges: skip)";
    report.elapsed_ms = MillisSince(start);
    return report;
  }
  report.checked = 1;
  std::string file = path == "-" ? "<stdin>" : path;
  for (RuleFinding& f : verdict.findings) {
    report.findings.push_back(
        {f.rule, "", file, f.line ? clean.SourceLine(f.line) : 0, std::move(f.message)});
  }
  Conclude(report, "message " + file);
  report.elapsed_ms = MillisSince(start);
  return report;
}

GateReport CheckTrailerPush(const Repository& repo, const Config& raw_config, std::istream& ref_lines,
                            const std::string& remote, const std::optional<git_oid>& base) {
  Clock::time_point start = Clock::now();
  Result<Effective> effective = WithRecord(&repo, raw_config, true);
  if (!effective.ok()) return RecordUnreadable(effective.status());
  const Config& config = effective->config;
  GateReport report = NewReport();
  if (base) report.base = OidHex(*base);
  AddDebt(config, report);
  WalkOptions options;
  options.first_parent = config.trailers.first_parent;
  options.authors = config.trailers.bot_authors.has_value();  // kept only where a rule reads them
  Status status = FloorFor(repo, config, options);

  // What the remote already has, as far as this repository knows.
  std::vector<git_oid> remote_tips;
  git_reference_iterator* it = nullptr;
  std::string glob = "refs/remotes/" + remote + "/*";
  if (git_reference_iterator_glob_new(&it, repo.raw(), glob.c_str()) == 0) {
    git_reference* ref = nullptr;
    while (git_reference_next(&ref, it) == 0) {
      git_oid oid;
      if (git_reference_name_to_id(&oid, repo.raw(), git_reference_name(ref)) == 0)
        remote_tips.push_back(oid);
      git_reference_free(ref);
    }
    git_reference_iterator_free(it);
  }

  Checker checker(repo, config, effective->owners(), repo.ReadTrailerSyntax(), report);
  std::set<std::string> seen;
  std::string line;
  int refs = 0;
  while (status.ok() && std::getline(ref_lines, line)) {
    std::istringstream fields(line);
    std::string local_ref, local_sha, remote_ref, remote_sha;
    if (!(fields >> local_ref >> local_sha >> remote_ref >> remote_sha)) continue;
    if (IsZeroId(local_sha)) {
      report.notes.push_back("deletion of " + remote_ref + " pushes no commits");
      continue;
    }
    ++refs;
    git_oid tip;
    if (git_oid_fromstr(&tip, local_sha.c_str()) != 0) {
      status = InvalidArgument("pre-push: bad object id '" + local_sha + "'");
      break;
    }
    // A pushed annotated tag names a tag object; its commit is what gets checked.
    Result<git_oid> commit = ResolveCommit(repo, local_sha);
    if (!commit.ok()) {
      report.notes.push_back(local_ref + " does not point at a commit; nothing to check");
      continue;
    }
    tip = commit.value();
    std::vector<git_oid> hide;
    git_oid remote_oid;
    git_commit* known = nullptr;
    if (!IsZeroId(remote_sha) && git_oid_fromstr(&remote_oid, remote_sha.c_str()) == 0 &&
        git_commit_lookup(&known, repo.raw(), &remote_oid) == 0) {
      git_commit_free(known);
      hide.push_back(remote_oid);
    } else if (!remote_tips.empty()) {
      hide = remote_tips;
    } else {
      // Nothing says what the remote has. The base cannot stand in for it: a
      // local base is not pushed yet (its own unpushed commits go with the
      // branch), and a base under refs/remotes/<remote>/ is one of the tips
      // above. What the tip reaches (above the cutover) is pushed, so that is checked.
      report.notes.push_back(remote_ref + " is new to '" + remote + "' and no refs/remotes/" + remote +
                             "/* say what the remote has, so every commit it reaches was checked");
    }
    status = WalkExcluding(repo, tip, hide, options, [&](const WalkedCommit& c) {
      if (seen.insert(OidHex(c.id())).second) checker.Check(c);
      return true;
    });
  }
  status = checker.Finish(status);
  if (!status.ok()) {
    report.status = status.code() == StatusCode::kUnavailable ? GateStatus::kSkip : GateStatus::kFail;
    report.reason = status.message();
    report.findings.clear();
  }
  Conclude(report, std::to_string(report.checked) + " pushed commits in " + std::to_string(refs) + " refs");
  report.elapsed_ms = MillisSince(start);
  return report;
}

}  // namespace vt::gate
