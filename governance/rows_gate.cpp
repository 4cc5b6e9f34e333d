#include "governance/rows_gate.h"

#include <cctype>
#include <chrono>
#include <map>
#include <set>

#include "governance/git_range.h"
#include "governance/record.h"

namespace vt::gate {
namespace {

constexpr const char* kGate = "rows";

struct Branch {
  std::string ref;
  git_oid tip{};
};

struct BranchIndex {
  bool any_branch = false;                           // any local branch or remote-tracking ref at all
  std::map<std::string, std::vector<Branch>> by_id;  // row id -> its branches
};

// Local branches and remote-tracking refs whose short name fits the template.
BranchIndex IndexBranches(const Repository& repo, const std::string& name_template) {
  BranchIndex index;
  size_t at = name_template.find("{id}");
  std::string prefix = name_template.substr(0, at);
  std::string suffix = name_template.substr(at + 4);
  git_reference_iterator* it = nullptr;
  if (git_reference_iterator_new(&it, repo.raw()) != 0) return index;
  git_reference* ref = nullptr;
  while (git_reference_next(&ref, it) == 0) {
    std::string name = git_reference_name(ref);
    std::string short_name;
    if (name.rfind("refs/heads/", 0) == 0) {
      short_name = name.substr(11);
    } else if (name.rfind("refs/remotes/", 0) == 0) {
      size_t slash = name.find('/', 13);
      if (slash != std::string::npos) short_name = name.substr(slash + 1);
    }
    git_oid oid;
    bool symbolic = git_reference_type(ref) == GIT_REFERENCE_SYMBOLIC;
    git_reference_free(ref);
    if (short_name.empty() || symbolic) continue;
    index.any_branch = true;
    if (short_name.size() <= prefix.size() + suffix.size() || short_name.rfind(prefix, 0) != 0 ||
        short_name.compare(short_name.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;
    }
    if (git_reference_name_to_id(&oid, repo.raw(), name.c_str()) != 0) continue;
    std::string id = short_name.substr(prefix.size(), short_name.size() - prefix.size() - suffix.size());
    index.by_id[id].push_back({name, oid});
  }
  git_reference_iterator_free(it);
  return index;
}

// id -> number of base commits whose message mentions it as a whole token.
Status IndexMentions(const Repository& repo, const git_oid& base, const std::set<std::string>& ids,
                     std::map<std::string, int>& mentions) {
  return WalkExcluding(repo, base, {}, {}, [&](const WalkedCommit& commit) {
    std::string_view message = commit.message();
    std::set<std::string> found;
    size_t i = 0;
    while (i < message.size()) {
      if (!IsIdChar(message[i])) {
        ++i;
        continue;
      }
      size_t end = i;
      while (end < message.size() && IsIdChar(message[end])) ++end;
      std::string token(message.substr(i, end - i));
      if (ids.count(token)) found.insert(token);
      i = end;
    }
    for (const std::string& id : found) ++mentions[id];
    return true;
  });
}

Result<int> UnmergedCommits(const Repository& repo, const git_oid& tip, const git_oid& base) {
  int count = 0;
  Status status = WalkExcluding(repo, tip, {base}, {}, [&](const WalkedCommit&) {
    ++count;
    return true;
  });
  if (!status.ok()) return status;
  return count;
}

}  // namespace

GateReport CheckRows(const Repository& repo, const Config& config, const std::optional<git_oid>& base,
                     const std::string& base_unavailable) {
  auto start = std::chrono::steady_clock::now();
  GateReport report;
  report.gate = kGate;
  auto finish = [&](GateReport& r) -> GateReport {
    r.elapsed_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return r;
  };
  if (!base) {
    report = SkipReport(kGate, base_unavailable);
    return finish(report);
  }
  report.base = OidHex(*base);
  Result<Record> record = LoadRecord(FileSource::WorkTree(repo), *config.record);
  if (!record.ok()) {
    report.status = GateStatus::kFail;
    report.reason = record.status().message();
    return finish(report);
  }
  RowsConfig rows_config = config.rows.value_or(RowsConfig{});
  BranchIndex branches = IndexBranches(repo, rows_config.branch);
  if (!branches.any_branch) {
    report = SkipReport(kGate,
                        "no branch information: no local branches and no remote-tracking refs to look for "
                        "row branches in (fetch the branches)",
                        OidHex(*base));
    return finish(report);
  }
  std::vector<const RecordRow*> live;
  std::set<std::string> live_ids;
  for (const RecordRow& row : record->rows) {
    std::vector<std::string> words = CellWords(*row.Cell(Column::kState));
    const StateRule* state = words.size() == 1 ? config.record->FindState(words[0]) : nullptr;
    if (state && state->live) {
      live.push_back(&row);
      live_ids.insert(row.id);
    }
  }
  std::map<std::string, int> mentions;
  Status status = IndexMentions(repo, *base, live_ids, mentions);
  for (const RecordRow* row : live) {
    if (!status.ok()) break;
    ++report.checked;
    std::string state = row->Cell(Column::kState)->text;
    int unmerged = 0;
    std::string merged_refs;
    for (const Branch& branch : branches.by_id[row->id]) {
      Result<int> n = UnmergedCommits(repo, branch.tip, *base);
      if (!n.ok()) {
        status = n.status();
        break;
      }
      unmerged += n.value();
      if (n.value() == 0) merged_refs += (merged_refs.empty() ? "" : ", ") + branch.ref;
    }
    if (unmerged > 0) {
      report.notes.push_back(row->id + " IN-FLIGHT: " + Counted(unmerged, "commit") + " on row branches");
    } else if (!merged_refs.empty()) {
      report.findings.push_back({"rows-merged-live", "", row->file, row->line,
                                 "row `" + row->id + "` LANDED: " + merged_refs +
                                     " is merged into the base, but the row is still " + state +
                                     " — move it on or delete the branch"});
    } else if (mentions[row->id] > 0) {
      report.notes.push_back(row->id + " LANDED: " + Counted(mentions[row->id], "base commit") +
                             (mentions[row->id] == 1 ? " mentions" : " mention") + " it");
    } else {
      report.findings.push_back(
          {"rows-abandoned", "", row->file, row->line,
           "row `" + row->id + "` ABANDONED: it is " + state +
               ", but no row branch has unmerged commits and no base commit mentions it"});
    }
  }
  for (const auto& [id, list] : branches.by_id) {
    if (record->Find(id)) continue;
    for (const Branch& branch : list) {
      report.findings.push_back(
          {"rows-orphan-branch", "", "", 0, branch.ref + " names no row of the record"});
    }
  }
  std::string scope = Counted(report.checked, "live row");
  if (!status.ok()) {
    report.status = status.code() == StatusCode::kUnavailable ? GateStatus::kSkip : GateStatus::kFail;
    report.reason = status.message();
    report.findings.clear();
  } else if (!report.findings.empty()) {
    report.status = GateStatus::kFail;
    report.reason = Counted(report.findings.size(), "finding") + " (" + scope + ")";
  } else {
    report.reason = scope;
  }
  return finish(report);
}

}  // namespace vt::gate
