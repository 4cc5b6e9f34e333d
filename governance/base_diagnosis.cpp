#include "governance/base_diagnosis.h"

#include <map>
#include <tuple>

#include "governance/git_range.h"
#include "governance/intake_gate.h"
#include "governance/record_gate.h"

namespace vt::gate {
namespace {

using FindingKey = std::tuple<std::string, std::string, std::string>;  // rule, file, message

FindingKey KeyOf(const Finding& f) { return {f.rule, f.file, f.message}; }

// How many times each finding occurs: a finding the base has twice covers two of the change's.
std::map<FindingKey, int> Tally(const GateReport& report) {
  std::map<FindingKey, int> counts;
  for (const Finding& f : report.findings) ++counts[KeyOf(f)];
  return counts;
}

Result<int> CountCommits(const Repository& repo, const git_oid& tip, const git_oid& hide) {
  int count = 0;
  Status status = WalkExcluding(repo, tip, {hide}, {}, [&](const WalkedCommit&) {
    ++count;
    return true;
  });
  if (!status.ok()) return status;
  return count;
}

// The gate as it reads the tree of `commit` alone; nullopt for gates that read no tree.
std::optional<GateReport> RunAt(const Repository& repo, const Config& config, const std::string& gate,
                                const git_oid& commit) {
  if (gate == "record" && config.record) return CheckRecordAt(repo, config, commit);
  if (gate == "intake" && config.record && config.intake) {
    IntakeInput input;
    input.at_commit = commit;
    return CheckIntake(repo, config, input);
  }
  return std::nullopt;
}

void Label(GateReport& report, const GateReport& at_base, const std::optional<GateReport>& at_upstream,
           const std::string& upstream_name) {
  std::map<FindingKey, int> base = Tally(at_base);
  std::map<FindingKey, int> upstream;
  if (at_upstream) upstream = Tally(*at_upstream);
  int from_base = 0, from_change = 0, gone_upstream = 0;
  for (Finding& f : report.findings) {
    // A finding about a commit (intake's description check) is the change's own.
    int& left = base[KeyOf(f)];
    if (f.commit.empty() && left > 0) {
      --left;
      f.origin = "from-base";
      ++from_base;
      int& still = upstream[KeyOf(f)];
      if (still > 0) {
        --still;
      } else {
        ++gone_upstream;
      }
    } else {
      f.origin = "from-change";
      ++from_change;
    }
  }
  std::string note = "explain-base: " + Counted(from_base, "finding") + " from the base, " +
                     std::to_string(from_change) + " from the change";
  if (from_base > 0 && at_upstream) {
    note += gone_upstream == from_base ? "; " + upstream_name + " has none of the base's: rebase onto it"
            : gone_upstream > 0        ? "; " + upstream_name + " no longer has " + std::to_string(gone_upstream) +
                                     " of the base's (a rebase drops them)"
                                       : "; " + upstream_name + " still has the base's";
  }
  report.notes.push_back(note);
}

}  // namespace

Result<BaseDiagnosis> ExplainBase(const Repository& repo, const Config& config, const git_oid& upstream,
                                  std::vector<GateReport>& reports) {
  Result<CommitRange> range = ResolveRange(repo, upstream, "HEAD");
  if (!range.ok()) return range.status();
  Result<git_oid> fork_point = MergeBase(repo, range->base, range->head);
  if (!fork_point.ok()) return fork_point.status();
  BaseDiagnosis diagnosis;
  diagnosis.fork_point = fork_point.value();
  Result<int> behind = CountCommits(repo, upstream, diagnosis.fork_point);
  if (!behind.ok()) return behind.status();
  Result<int> ahead = CountCommits(repo, range->head, diagnosis.fork_point);
  if (!ahead.ok()) return ahead.status();
  diagnosis.behind = behind.value();
  diagnosis.ahead = ahead.value();
  std::string fork = OidHex(diagnosis.fork_point).substr(0, 12);
  diagnosis.summary = "the change (" + Counted(diagnosis.ahead, "commit") + ") forks from " + fork + ", " +
                      Counted(diagnosis.behind, "commit") + " behind " + config.base;
  for (GateReport& report : reports) {
    if (report.status != GateStatus::kFail || report.findings.empty()) continue;
    if (report.gate == "trailers") {
      for (Finding& f : report.findings) f.origin = "from-change";
      report.notes.push_back("explain-base: trailer findings are the change's own commits: from the change");
      continue;
    }
    std::optional<GateReport> at_base = RunAt(repo, config, report.gate, diagnosis.fork_point);
    if (!at_base) {
      report.notes.push_back("explain-base: not re-run on the base (" + report.gate +
                             " does not read the change's tree)");
      continue;
    }
    std::optional<GateReport> at_upstream;
    if (diagnosis.behind > 0) at_upstream = RunAt(repo, config, report.gate, upstream);
    Label(report, *at_base, at_upstream, config.base);
  }
  return diagnosis;
}

}  // namespace vt::gate
