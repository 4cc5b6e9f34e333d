// The record gate, one mutation test per rule: the clean record passes, and
// each planted violation is caught with the right file:line. Also the Row
// trailer rule that consults the record, ratchets, and the Markdown reader's
// AST details (code spans, fences, escaped pipes, padded and excess cells).
#include "governance/record_gate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "governance/builtin_gates.h"
#include "governance/git_range.h"
#include "governance/markdown.h"
#include "governance/path_glob.h"
#include "governance/record.h"
#include "governance/trailer_gate.h"
#include "tests/governance/record_fixture.h"

namespace vt::gate {
namespace {

using testing::RecordRepo;
using testing::Where;
using V = std::vector<std::string>;

std::string Dump(const GateReport& r) {
  std::string out = std::string(StatusName(r.status)) + " " + r.reason + "\n";
  for (const Finding& f : r.findings)
    out += f.file + ":" + std::to_string(f.line) + " " + f.rule + ": " + f.message + "\n";
  return out;
}

class RecordGate : public ::testing::Test {
 protected:
  GateReport Run(const std::string& extra = "") { return repo_.RunGate("record", extra); }
  std::string RowLine(const std::string& file, const std::string& id) {
    return file + ":" + std::to_string(repo_.LineOf(file, "`" + id + "`"));
  }
  std::string closing_prefix() const { return repo_.closing().substr(0, 12); }
  RecordRepo repo_;
};

TEST_F(RecordGate, TheCleanRecordPasses) {
  GateReport r = Run();
  EXPECT_EQ(r.status, GateStatus::kOk) << Dump(r);
  EXPECT_EQ(r.checked, 4);
  EXPECT_TRUE(r.findings.empty()) << Dump(r);
}

TEST_F(RecordGate, ABrokenAnchorIsCaughtOnItsRow) {
  repo_.Replace("roadmap/rows.md", "../src/engine.cpp#L10", "../src/engine_gone.cpp#L10");
  GateReport r = Run();
  EXPECT_EQ(r.status, GateStatus::kFail);
  EXPECT_EQ(Where(r, "anchor"), V{RowLine("roadmap/rows.md", "APP-LIVE")}) << Dump(r);
  EXPECT_TRUE(Where(r, "link").empty()) << "the same broken link is one finding, not two\n" << Dump(r);
}

TEST_F(RecordGate, AnOutOfRangeLineIsCaught) {
  repo_.Replace("roadmap/rows.md", "#L3-L5", "#L3-L21");
  GateReport r = Run();
  ASSERT_EQ(Where(r, "anchor"), V{RowLine("roadmap/rows.md", "APP-DONE")}) << Dump(r);
  EXPECT_NE(r.findings[0].message.find("line 21 is past the end (20 lines)"), std::string::npos) << Dump(r);
}

TEST_F(RecordGate, AnOutOfRangePathLineTextIsCaught) {
  repo_.Replace("roadmap/rows.md", "`tests/engine_test.cpp:7`", "`tests/engine_test.cpp:70`");
  EXPECT_EQ(Where(Run(), "anchor"), V{RowLine("roadmap/rows.md", "APP-DONE")});
}

TEST_F(RecordGate, AnAnchorOutsideThePrefixesIsCaught) {
  repo_.Write("docs/notes.md", "notes\n");
  repo_.Replace("roadmap/rows.md", "[test](../tests/engine_test.cpp)", "[test](../docs/notes.md)");
  EXPECT_EQ(Where(Run(), "anchor"), V{RowLine("roadmap/rows.md", "APP-LIVE")});
}

TEST_F(RecordGate, AnEvidencedStateWithoutATestAnchorIsCaught) {
  repo_.Replace("roadmap/rows.md", "[test](../tests/engine_test.cpp)", "none yet");
  EXPECT_EQ(Where(Run(), "anchors-missing"), V{RowLine("roadmap/rows.md", "APP-LIVE")});
}

TEST_F(RecordGate, ADuplicateIdAcrossTablesIsCaughtAtTheSecond) {
  repo_.Replace("roadmap/ops.md", "`OPS-CHORE`", "`APP-NEXT`");
  GateReport r = Run();
  EXPECT_EQ(Where(r, "duplicate-id"),
            V{"roadmap/rows.md:" + std::to_string(repo_.LineOf("roadmap/rows.md", "`APP-NEXT`"))})
      << "files are read in sorted order: ops.md first\n"
      << Dump(r);
}

TEST_F(RecordGate, AnIdThatBreaksThePatternIsCaught) {
  repo_.Replace("roadmap/ops.md", "`OPS-CHORE`", "`ops-chore`");
  EXPECT_EQ(Where(Run(), "id"), V{"roadmap/ops.md:5"});
}

TEST_F(RecordGate, ExactlyOneKnownState) {
  repo_.Replace("roadmap/ops.md", "`READY`", "READY ACTIVE");
  repo_.Replace("roadmap/rows.md", "| READY |", "| SOMEDAY |");
  GateReport r = Run();
  EXPECT_EQ(Where(r, "state"), (V{"roadmap/ops.md:5", RowLine("roadmap/rows.md", "APP-NEXT")})) << Dump(r);
}

TEST_F(RecordGate, ARowWithFewerOrMoreCellsThanItsHeaderIsCaught) {
  repo_.Replace("roadmap/ops.md", "| `READY` |", "| `READY` | extra |");
  repo_.Replace("roadmap/intake.md", "| #1 | `APP-DONE` |", "| #1 |");
  GateReport r = Run();
  EXPECT_EQ(Where(r, "cells"), (V{"roadmap/intake.md:5", "roadmap/ops.md:5"})) << Dump(r);
}

TEST_F(RecordGate, AReadyRowWhoseSpecDoesNotNameItIsCaughtInTheSpec) {
  repo_.Replace("roadmap/specs/APP-NEXT.md", "# APP-NEXT", "# Next");
  repo_.Replace("roadmap/specs/APP-NEXT.md", "Make APP-NEXT real", "Make it real");
  EXPECT_EQ(Where(Run(), "spec"), V{"roadmap/specs/APP-NEXT.md:1"});
}

TEST_F(RecordGate, AMentionInsideALongerIdDoesNotNameTheRow) {
  repo_.Write("roadmap/specs/APP-NEXT.md",
              "# APP-NEXT-2\n\n## Goal\n\nAPP-NEXTGEN.\n\n## Acceptance\n\nWorks.\n");
  EXPECT_EQ(Where(Run(), "spec"), V{"roadmap/specs/APP-NEXT.md:1"});
}

TEST_F(RecordGate, AMissingSpecFileIsCaughtOnTheRow) {
  repo_.Replace("roadmap/rows.md", "specs/APP-NEXT.md", "specs/APP-LATER.md");
  GateReport r = Run();
  EXPECT_EQ(Where(r, "spec"), V{RowLine("roadmap/rows.md", "APP-NEXT")}) << Dump(r);
}

TEST_F(RecordGate, AMissingOrPlaceholderSectionIsCaught) {
  repo_.Replace("roadmap/specs/APP-LIVE.md", "- It works on a fresh clone.", "TBD");
  repo_.Replace("roadmap/specs/APP-DONE.md", "## Goal", "## Aim");
  GateReport r = Run();
  EXPECT_EQ(Where(r, "spec-section"),
            (V{"roadmap/specs/APP-DONE.md:1",
               "roadmap/specs/APP-LIVE.md:" +
                   std::to_string(repo_.LineOf("roadmap/specs/APP-LIVE.md", "## Acceptance"))}))
      << Dump(r);
}

TEST_F(RecordGate, AClaimedRowNeedsAListedOwner) {
  repo_.Replace("roadmap/rows.md", "`ada`", "`bob`");
  EXPECT_EQ(Where(Run(), "owner"), V{RowLine("roadmap/rows.md", "APP-LIVE")});
  repo_.Replace("roadmap/rows.md", "`bob`", "-");
  EXPECT_EQ(Where(Run(), "owner"), V{RowLine("roadmap/rows.md", "APP-LIVE")});
}

TEST_F(RecordGate, ADoneRowWhoseClosingCommitIsNotAnAncestorIsCaught) {
  repo_.git().Git("checkout -q -b elsewhere");
  std::string other = repo_.git().Commit("elsewhere\n\nRow: none\n");
  repo_.git().Git("checkout -q main");
  repo_.Replace("roadmap/rows.md", closing_prefix(), other.substr(0, 12));
  GateReport r = Run();
  ASSERT_EQ(Where(r, "closing"), V{RowLine("roadmap/rows.md", "APP-DONE")}) << Dump(r);
  EXPECT_NE(r.findings[0].message.find("not an ancestor of HEAD"), std::string::npos) << Dump(r);
}

TEST_F(RecordGate, ADoneRowWithAnUnknownOrMissingClosingCommitIsCaught) {
  repo_.Replace("roadmap/rows.md", closing_prefix(), "deadbeefdead");
  EXPECT_EQ(Where(Run(), "closing"), V{RowLine("roadmap/rows.md", "APP-DONE")});
  repo_.Replace("roadmap/rows.md", "`deadbeefdead`", "-");
  EXPECT_EQ(Where(Run(), "closing"), V{RowLine("roadmap/rows.md", "APP-DONE")});
}

TEST_F(RecordGate, ASummaryCountThatDriftedIsCaught) {
  repo_.Replace("roadmap/ops.md", "`READY`", "ACTIVE");
  GateReport r = Run();
  int ready = repo_.LineOf("roadmap/README.md", "| READY |");
  int active = repo_.LineOf("roadmap/README.md", "| ACTIVE |");
  EXPECT_EQ(Where(r, "summary"),
            (V{"roadmap/README.md:" + std::to_string(ready), "roadmap/README.md:" + std::to_string(active)}))
      << Dump(r);
}

TEST_F(RecordGate, ABrokenRelativeLinkIsCaughtButCodeSpansAndFencesAreNotLinks) {
  repo_.Replace("roadmap/README.md", "[ops](ops.md#ops-rows)", "[ops](operations.md)");
  GateReport r = Run();
  EXPECT_EQ(Where(r, "link"), V{"roadmap/README.md:3"}) << Dump(r);
}

TEST_F(RecordGate, AGlobThatMatchesNothingFails) {
  GateReport r = Run();
  ASSERT_EQ(r.status, GateStatus::kOk);
  std::filesystem::remove_all(repo_.path() + "/roadmap");
  r = Run();
  EXPECT_EQ(r.status, GateStatus::kFail);
  EXPECT_NE(r.reason.find("no file matches 'roadmap/*.md'"), std::string::npos) << r.reason;
}

TEST_F(RecordGate, RowTrailersMustNameARowOfTheRecord) {
  Config config = repo_.LoadConfig();
  Result<Repository> repo = Repository::Open(repo_.path());
  ASSERT_TRUE(repo.ok());
  testing::TempDir dir;
  std::string ok = dir.Write("ok.msg", "subject\n\nRow: APP-NEXT\n");
  std::string none = dir.Write("none.msg", "subject\n\nRow: none\n");
  std::string bad = dir.Write("bad.msg", "subject\n\nbody\n\nRow: APP-GONE\n");
  EXPECT_EQ(CheckTrailerMessageFile(&repo.value(), config, ok).status, GateStatus::kOk);
  EXPECT_EQ(CheckTrailerMessageFile(&repo.value(), config, none).status, GateStatus::kOk);
  GateReport r = CheckTrailerMessageFile(&repo.value(), config, bad);
  ASSERT_EQ(r.findings.size(), 1u) << Dump(r);
  EXPECT_EQ(r.findings[0].rule, "record:Row");
  EXPECT_EQ(r.findings[0].line, 5);
  // The history of the fixture names only rows that exist.
  EXPECT_EQ(repo_.RunGate("trailers").status, GateStatus::kOk);
}

// The commit-msg hook needs only the rows its message names: the record is read in glob order until
// it holds them (here OPS-CHORE, in roadmap/ops.md, before roadmap/rows.md), files that do not
// mention them are not parsed, and it is read to its end when one is not a row, so the finding and
// its row count are those of the whole record.
TEST_F(RecordGate, LoadingStopsOnceTheRecordHoldsWhatTheCallerNeeds) {
  repo_.Write("roadmap/notes.md", "# Notes\n\n| id | item | state |\n|---|---|---|\n| `NOTE-ROW` | unrelated | READY |\n");
  Config config = repo_.LoadConfig();
  Result<Repository> repo = Repository::Open(repo_.path());
  ASSERT_TRUE(repo.ok());
  const FileSource source = FileSource::WorkTree(repo.value());
  Result<Record> all = LoadRecord(source, *config.record);
  ASSERT_TRUE(all.ok()) << all.status().message();
  ASSERT_NE(all->Find("NOTE-ROW"), nullptr);
  const std::vector<std::string> chore = {"OPS-CHORE"};
  Result<Record> some = LoadRecord(source, *config.record, &chore);
  ASSERT_TRUE(some.ok()) << some.status().message();
  ASSERT_FALSE(some->files.empty());
  EXPECT_EQ(some->files.back().path, "roadmap/ops.md");
  for (const RecordFile& file : some->files) EXPECT_NE(file.path, "roadmap/notes.md") << "parsed without a mention";
  EXPECT_NE(some->Find("OPS-CHORE"), nullptr);
  EXPECT_EQ(some->Find("NOTE-ROW"), nullptr) << "roadmap/notes.md mentions no wanted id and was parsed";
  EXPECT_EQ(some->Find("APP-NEXT"), nullptr) << "roadmap/rows.md was read";
  ASSERT_NE(all->Find("APP-NEXT"), nullptr);

  testing::TempDir dir;
  EXPECT_EQ(CheckTrailerMessageFile(&repo.value(), config, dir.Write("ops.msg", "subject\n\nRow: OPS-CHORE\n")).status,
            GateStatus::kOk);
  GateReport r = CheckTrailerMessageFile(&repo.value(), config,
                                         dir.Write("two.msg", "subject\n\nRow: OPS-CHORE\nRow: APP-GONE\n"));
  auto named = std::find_if(r.findings.begin(), r.findings.end(), [](const Finding& f) { return f.rule == "record:Row"; });
  ASSERT_NE(named, r.findings.end()) << Dump(r);
  EXPECT_NE(named->message.find("APP-GONE"), std::string::npos) << Dump(r);
  EXPECT_NE(named->message.find("(" + std::to_string(all->SortedIds().size()) + " rows)"), std::string::npos) << Dump(r);
}

// A row may spell its id with a backslash escape or a character reference: the file does not
// mention the id's characters in a row, yet the row is found (the files passed over are read before
// an id is called missing), by the loader and by the commit-msg check.
TEST_F(RecordGate, ARowSpelledWithAnEscapeIsFoundByTheCallerThatNeedsOnlyIt) {
  repo_.Write("roadmap/escaped.md", "# Escaped\n\n| id | item | state |\n|---|---|---|\n| OPS\\-ESCAPED | one | READY |\n"
                                    "| OPS&#45;REFERENCED | two | READY |\n");
  Config config = repo_.LoadConfig();
  Result<Repository> repo = Repository::Open(repo_.path());
  ASSERT_TRUE(repo.ok());
  const FileSource source = FileSource::WorkTree(repo.value());
  for (const std::string id : {"OPS-ESCAPED", "OPS-REFERENCED"}) {
    SCOPED_TRACE(id);
    const std::vector<std::string> wanted = {id};
    Result<Record> record = LoadRecord(source, *config.record, &wanted);
    ASSERT_TRUE(record.ok()) << record.status().message();
    EXPECT_NE(record->Find(id), nullptr);
    testing::TempDir dir;
    GateReport r = CheckTrailerMessageFile(&repo.value(), config, dir.Write("m.msg", "subject\n\nRow: " + id + "\n"));
    EXPECT_EQ(r.status, GateStatus::kOk) << Dump(r);
  }
}

TEST_F(RecordGate, StagedChecksTheIndexNotTheWorkTree) {
  auto staged = [&] {
    Config config = repo_.LoadConfig();
    Result<Repository> repo = Repository::Open(repo_.path());
    return CheckRecord(repo.value(), config, true);
  };
  EXPECT_EQ(staged().status, GateStatus::kOk) << Dump(staged());
  // The row anchors a new file that is in the work tree but was never added: the commit would lack it.
  repo_.Write("src/new.cpp", "// new\n");
  repo_.Replace("roadmap/rows.md", "../src/engine.cpp#L10", "../src/new.cpp#L1");
  repo_.git().Git("add roadmap/rows.md");
  EXPECT_EQ(Run().status, GateStatus::kOk) << "the work tree is complete";
  GateReport r = staged();
  EXPECT_EQ(Where(r, "anchor"), V{RowLine("roadmap/rows.md", "APP-LIVE")}) << Dump(r);
  repo_.git().Git("add src/new.cpp");
  EXPECT_EQ(staged().status, GateStatus::kOk) << Dump(staged());
  // A broken anchor left unstaged in the work tree does not fail the staged check.
  repo_.Replace("roadmap/rows.md", "#L3-L5", "#L3-L99");
  EXPECT_EQ(staged().status, GateStatus::kOk) << Dump(staged());
  EXPECT_EQ(Run().status, GateStatus::kFail);
}

class Ratchets : public RecordGate {
 protected:
  void SetUp() override {
    repo_.Write("roadmap/old.md",
                "| id | state |\n|---|---|\n| `OLD-ONE` | BACKFILL |\n| `OLD-TWO` | BACKFILL |\n");
    repo_.Write("roadmap/ratchets/backfill", "# rows that owe anchors\n2\n");
    repo_.Replace("roadmap/README.md", "| total | 4 |", "| total | 6 |");
    repo_.git().Git("add -A");
    repo_.git().Commit("backfill\n\nRow: none\n");
  }
  const std::string kRatchet =
      "ratchets:\n  - {gate: record, rule: 'state:BACKFILL', baseline: roadmap/ratchets/backfill}\n";
};

TEST_F(Ratchets, AtTheBaselineTheCountedFindingsArePinned) {
  GateReport r = Run(kRatchet);
  EXPECT_EQ(r.status, GateStatus::kOk) << Dump(r);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes.back().find("2 pinned"), std::string::npos);
  EXPECT_EQ(Run().status, GateStatus::kFail) << "without the ratchet each counted row is a finding";
}

TEST_F(Ratchets, AboveTheBaselineFails) {
  repo_.Write("roadmap/old.md", repo_.Read("roadmap/old.md") + "| `OLD-THREE` | BACKFILL |\n");
  repo_.Replace("roadmap/README.md", "| total | 6 |", "| total | 7 |");
  GateReport r = Run(kRatchet);
  EXPECT_EQ(r.status, GateStatus::kFail);
  EXPECT_EQ(Where(r, "state:BACKFILL").size(), 3u) << Dump(r);
  EXPECT_EQ(Where(r, "ratchet:state:BACKFILL"), V{"roadmap/ratchets/backfill:1"}) << Dump(r);
}

TEST_F(Ratchets, BelowTheBaselineTheBaselineMustComeDownInTheSameChange) {
  repo_.Replace("roadmap/old.md", "| `OLD-TWO` | BACKFILL |\n", "");
  repo_.Replace("roadmap/README.md", "| total | 6 |", "| total | 5 |");
  GateReport r = Run(kRatchet);
  ASSERT_EQ(Where(r, "ratchet:state:BACKFILL"), V{"roadmap/ratchets/backfill:1"}) << Dump(r);
  EXPECT_NE(r.findings[0].message.find("lower the baseline from 2 to 1"), std::string::npos) << Dump(r);
  repo_.Write("roadmap/ratchets/backfill", "1\n");
  EXPECT_EQ(Run(kRatchet).status, GateStatus::kOk) << Dump(Run(kRatchet));
}

TEST_F(Ratchets, RaisingTheBaselineAboveTheBaseIsRefused) {
  repo_.Write("roadmap/old.md", repo_.Read("roadmap/old.md") + "| `OLD-THREE` | BACKFILL |\n");
  repo_.Replace("roadmap/README.md", "| total | 6 |", "| total | 7 |");
  repo_.Write("roadmap/ratchets/backfill", "3\n");
  GateReport r = Run(kRatchet);
  ASSERT_EQ(Where(r, "ratchet:state:BACKFILL"), V{"roadmap/ratchets/backfill:1"}) << Dump(r);
  EXPECT_NE(r.findings[0].message.find("raised from 2 to 3"), std::string::npos) << Dump(r);
}

// Honest row states: APP-DONE's spec gains speed goals, docs/BENCHMARKS.md
// marks them, and the state must agree with the verdicts.
class RecordGoals : public RecordGate {
 protected:
  void PlantGoals(const std::string& latency_verdict) {
    repo_.Write("roadmap/specs/APP-DONE.md", repo_.Read("roadmap/specs/APP-DONE.md") +
                                                 "\n## Goals\n\n| goal | target |\n|---|---|\n"
                                                 "| `app/speed` | >= 2x the baseline |\n"
                                                 "| `app/latency` | <= 5 us at batch 1 |\n");
    repo_.Write("docs/BENCHMARKS.md",
                "# Benchmarks\n\n| goal | measured | verdict |\n|---|---|---|\n"
                "| `app/speed` >= 2x | 2.4x | **met** |\n"
                "| `app/latency` <= 5 us | 7.1 us | " + latency_verdict + " |\n");
  }
  void MoveToShort() {
    repo_.Replace("roadmap/rows.md", "| DONE |", "| SHORT |");
    repo_.Replace("roadmap/README.md", "| DONE | 1 |", "| SHORT | 1 |");
  }
};

TEST_F(RecordGoals, ADoneRowWithAnUnmetGoalIsAFindingNamingTheRowAndTheGoal) {
  PlantGoals("**not met**: launch latency");
  GateReport r = Run();
  ASSERT_EQ(Where(r, "goals"), V{RowLine("roadmap/rows.md", "APP-DONE")}) << Dump(r);
  const std::string& message = r.findings[0].message;
  EXPECT_NE(message.find("`APP-DONE` is DONE"), std::string::npos) << message;
  EXPECT_NE(message.find("`app/latency` is not met (docs/BENCHMARKS.md:6)"), std::string::npos) << message;
}

TEST_F(RecordGoals, AMixedVerdictIsNotMet) {
  PlantGoals("met at batch 8; **not met** at batch 1");
  EXPECT_EQ(Where(Run(), "goals"), V{RowLine("roadmap/rows.md", "APP-DONE")});
}

TEST_F(RecordGoals, TheHonestStatePasses) {
  PlantGoals("**not met**: launch latency");
  MoveToShort();
  GateReport r = Run();
  EXPECT_EQ(r.status, GateStatus::kOk) << Dump(r);
}

TEST_F(RecordGoals, ADoneRowWithEveryGoalMetPasses) {
  PlantGoals("met (the metric of record)");
  GateReport r = Run();
  EXPECT_EQ(r.status, GateStatus::kOk) << Dump(r);
}

TEST_F(RecordGoals, AGoalWithoutAVerdictIsCaughtEvenInTheHonestState) {
  PlantGoals("not run yet, metrics pending");  // neither "met" nor "not met" as words
  MoveToShort();
  GateReport r = Run();
  ASSERT_EQ(Where(r, "goals"), V{RowLine("roadmap/rows.md", "APP-DONE")}) << Dump(r);
  EXPECT_NE(r.findings[0].message.find("goal `app/latency` has no verdict"), std::string::npos) << Dump(r);
}

TEST_F(RecordGoals, AMissingVerdictsFileIsAFinding) {
  PlantGoals("met");
  std::filesystem::remove(repo_.path() + "/docs/BENCHMARKS.md");
  GateReport r = Run();
  EXPECT_EQ(r.status, GateStatus::kFail) << Dump(r);
  EXPECT_FALSE(Where(r, "goals").empty()) << Dump(r);
}

TEST(RecordGoalsConfig, AGoalsRuleNeedsTheGoalsSectionAndASpec) {
  std::string base =
      "record:\n  files: [r.md]\n  states:\n    DONE: {spec: true, goals: met}\n";
  Result<Config> no_section = ParseConfig(base, "c.yaml");
  ASSERT_FALSE(no_section.ok());
  EXPECT_NE(no_section.status().message().find("goals needs a record goals section"), std::string::npos)
      << no_section.status().message();
  Result<Config> no_spec = ParseConfig(
      "record:\n  files: [r.md]\n  goals: {verdicts: b.md}\n  states:\n    DONE: {goals: met}\n", "c.yaml");
  ASSERT_FALSE(no_spec.ok());
  EXPECT_NE(no_spec.status().message().find("goals needs spec: true"), std::string::npos)
      << no_spec.status().message();
  Result<Config> complete = ParseConfig(base + "  goals: {verdicts: b.md}\n", "c.yaml");
  EXPECT_TRUE(complete.ok()) << complete.status().message();
}

TEST(ExampleProfile, TheAgentsProtocolRecordOfGatesMdIsExpressible) {
  Result<Config> config =
      LoadConfig(std::string(VT_SOURCE_DIR) + "/governance/examples/agents-protocol.yaml");
  ASSERT_TRUE(config.ok()) << config.status().message();
  testing::GitRepo repo;
  std::string lines;
  for (int i = 0; i < 1000; ++i) lines += "x\n";
  repo.WriteFile("src/x.cu", lines);
  repo.WriteFile("tests/t.cpp", lines);
  repo.WriteFile("roadmap/README.md", "| state | count |\n|---|---|\n| ANCHOR-BACKFILL | 1 |\n");
  repo.WriteFile("roadmap/areas/kernels.md",
                 "| id | item | upstream | code | tests | spec | state | owner |\n"
                 "|---|---|---|---|---|---|---|---|\n"
                 "| `KERNEL-ATTN-PAGED` | item | upstream | [file.cu:908](../../src/x.cu#L908) | "
                 "[tests](../../tests/t.cpp#L165) | [spec](../specs/x.md) | `ANCHOR-BACKFILL` | - |\n");
  repo.WriteFile("roadmap/specs/x.md",
                 "# KERNEL-ATTN-PAGED\n\n## Goal\n\nPaged.\n\n## Acceptance\n\nFast.\n");
  repo.WriteFile("roadmap/anchor-backfill.count", "1\n");
  repo.Git("add -A");
  repo.Commit("record\n");
  Result<Repository> opened = Repository::Open(repo.path());
  ASSERT_TRUE(opened.ok());
  GateContext context;
  context.repo = &opened.value();
  context.config = &config.value();
  context.base = ResolveCommit(opened.value(), "HEAD").value();
  GateReport r = RunBuiltinGate(*FindBuiltinGate("record"), context);
  EXPECT_EQ(r.status, GateStatus::kOk) << Dump(r);
  EXPECT_EQ(r.checked, 1);
  repo.WriteFile("roadmap/anchor-backfill.count", "0\n");
  r = RunBuiltinGate(*FindBuiltinGate("record"), context);
  EXPECT_EQ(Where(r, "ratchet:state:ANCHOR-BACKFILL"), V{"roadmap/anchor-backfill.count:1"}) << Dump(r);
}

TEST(Markdown, TablesLinksAndSectionsComeFromTheAst) {
  MdDocument doc = ParseMarkdown(
      "# Title\n\nText [a](a.md) and `[b](b.md)`\nthen [c](c.md#L3).\n\n"
      "| id | note |\n|---|---|\n| `X-1` | a \\| b |\n| short |\n| a | b | c |\n\n"
      "```\n[d](d.md)\n```\n\n## Part\n\nBody.\n");
  std::vector<std::string> urls;
  std::vector<int> lines;
  for (const MdLink& l : doc.links) {
    urls.push_back(l.url);
    lines.push_back(l.line);
  }
  EXPECT_EQ(urls, (V{"a.md", "c.md#L3"}));
  EXPECT_EQ(lines, (std::vector<int>{3, 4}));
  ASSERT_EQ(doc.tables.size(), 1u);
  const MdTable& t = doc.tables[0];
  EXPECT_EQ(t.header, (V{"id", "note"}));
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[0].cells[0].code_spans, V{"X-1"});
  EXPECT_EQ(t.rows[0].cells[1].text, "a | b");
  EXPECT_FALSE(t.rows[0].excess);
  EXPECT_TRUE(t.rows[1].cells[1].missing);
  EXPECT_TRUE(t.rows[2].excess);
  EXPECT_EQ(t.rows[2].line, 10);
  ASSERT_EQ(doc.sections.size(), 2u);
  EXPECT_EQ(doc.sections[1].title, "Part");
  EXPECT_EQ(doc.sections[1].body, "Body.");
}

TEST(PathGlob, StarStaysInAComponentDoubleStarCrosses) {
  EXPECT_TRUE(GlobMatch("attention/*.cu", "attention/decode.cu"));
  EXPECT_FALSE(GlobMatch("attention/*.cu", "attention/x/decode.cu"));
  EXPECT_TRUE(GlobMatch("**/*.cu", "a/b/c.cu"));
  EXPECT_TRUE(GlobMatch("**/*.cu", "c.cu"));
  EXPECT_FALSE(GlobMatch("*.cu", "a/c.cu"));
  EXPECT_TRUE(GlobMatch("roadmap/?.md", "roadmap/a.md"));
}

}  // namespace
}  // namespace vt::gate
