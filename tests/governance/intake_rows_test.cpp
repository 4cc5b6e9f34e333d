// The intake and rows gates on real repositories: the clean record passes,
// and each planted violation (a malformed or duplicate issue, a number the
// spec does not mention, a change that references an unowned issue or names
// another row, a row branch merged while its row stays ACTIVE, an abandoned
// row, a row branch with no row) is caught where it is.
#include <gtest/gtest.h>

#include "governance/builtin_gates.h"
#include "governance/git_range.h"
#include "governance/intake_gate.h"
#include "tests/governance/record_fixture.h"

namespace vt::gate {
namespace {

using testing::RecordRepo;
using testing::TempDir;
using testing::Where;
using V = std::vector<std::string>;

std::string Dump(const GateReport& r) {
  std::string out = std::string(StatusName(r.status)) + " " + r.reason + "\n";
  for (const Finding& f : r.findings) {
    out += f.commit.substr(0, 8) + " " + f.file + ":" + std::to_string(f.line) + " " + f.rule + ": " +
           f.message + "\n";
  }
  for (const std::string& n : r.notes) out += "note: " + n + "\n";
  return out;
}

class Intake : public ::testing::Test {
 protected:
  GateReport Run(const std::string& description) {
    Config config = repo_.LoadConfig();
    Result<Repository> repo = Repository::Open(repo_.path());
    EXPECT_TRUE(repo.ok());
    IntakeInput input;
    input.description = description;
    return CheckIntake(repo.value(), config, input);
  }
  std::string Line(const std::string& file, const std::string& needle) {
    return file + ":" + std::to_string(repo_.LineOf(file, needle));
  }
  RecordRepo repo_;
  TempDir dir_;
};

TEST_F(Intake, TheCleanRecordAndAnAgreeingDescriptionPass) {
  std::string pr = dir_.Write(
      "pr.md",
      "Adds the thing.\n\nCloses #2, refs https://example.org/acme/app/issues/2.\n\nRow: APP-LIVE\n");
  GateReport r = Run(pr);
  EXPECT_EQ(r.status, GateStatus::kOk) << Dump(r);
  EXPECT_EQ(r.checked, 1);
}

TEST_F(Intake, ProseAfterAKeywordIsNotAReference) {
  std::string pr = dir_.Write("pr.md", "This fixes and speeds up things.\n\nRow: APP-LIVE\n");
  EXPECT_EQ(Run(pr).status, GateStatus::kOk) << Dump(Run(pr));
}

TEST_F(Intake, AnIntakeNumberMissingFromTheSpecIsCaught) {
  repo_.Replace("roadmap/specs/APP-DONE.md", "Issue: #1.", "Issue: none.");
  GateReport r = Run(dir_.Write("pr.md", "Row: APP-DONE\n"));
  EXPECT_EQ(Where(r, "intake-spec"), V{Line("roadmap/intake.md", "| #1 |")}) << Dump(r);
}

TEST_F(Intake, ARowWithoutASpecIsCaughtUnlessItsStateNeedsNone) {
  repo_.Replace("roadmap/rows.md", "[spec](specs/APP-NEXT.md)", "-");
  GateReport r = Run(dir_.Write("pr.md", "Row: none\n"));
  EXPECT_EQ(Where(r, "intake-spec"), V{Line("roadmap/intake.md", "| #3 |")}) << Dump(r);
  repo_.Replace("roadmap/rows.md", "| READY |", "| BACKFILL |");
  EXPECT_TRUE(Where(Run(dir_.Write("pr.md", "Row: none\n")), "intake-spec").empty());
}

TEST_F(Intake, ABadIssueFormIsCaught) {
  repo_.Replace("roadmap/intake.md", "| #1 |", "| 1 |");
  repo_.Replace("roadmap/intake.md", "[#2](https://example.org/acme/app/issues/2)",
                "[#5](https://example.org/acme/app/issues/2)");
  GateReport r = Run(dir_.Write("pr.md", "Row: none\n"));
  EXPECT_EQ(Where(r, "intake-form"),
            (V{Line("roadmap/intake.md", "| 1 |"), Line("roadmap/intake.md", "[#5]")}))
      << Dump(r);
}

TEST_F(Intake, ADuplicateIssueIsCaughtAtTheSecond) {
  repo_.Replace("roadmap/intake.md", "| #3 |", "| #1 |");
  GateReport r = Run(dir_.Write("pr.md", "Row: none\n"));
  EXPECT_EQ(Where(r, "intake-duplicate"), V{Line("roadmap/intake.md", "`APP-NEXT`")}) << Dump(r);
}

TEST_F(Intake, AnIssueMappedToAMissingRowIsCaught) {
  repo_.Replace("roadmap/intake.md", "`APP-DONE`", "`APP-GONE`");
  GateReport r = Run(dir_.Write("pr.md", "Row: none\n"));
  EXPECT_EQ(Where(r, "intake-row"), V{Line("roadmap/intake.md", "APP-GONE")}) << Dump(r);
}

TEST_F(Intake, AReferencedIssueThatNoRowOwnsIsCaughtInTheDescription) {
  std::string pr = dir_.Write("pr.md", "Work.\n\nRefs #99\n\nRow: APP-LIVE\n");
  GateReport r = Run(pr);
  EXPECT_EQ(Where(r, "intake-unowned"), V{pr + ":3"}) << Dump(r);
}

TEST_F(Intake, ADescriptionNamingAnotherRowIsCaught) {
  std::string pr = dir_.Write("pr.md", "Work.\n\nCloses #1\n\nRow: APP-LIVE\n");
  GateReport r = Run(pr);
  EXPECT_EQ(Where(r, "intake-mismatch"), V{pr + ":3"}) << Dump(r);
}

TEST_F(Intake, AMismatchedLinkInTheDescriptionIsCaught) {
  std::string pr =
      dir_.Write("pr.md", "Work.\n\nRefs [#1](https://example.org/acme/app/issues/2)\n\nRow: APP-LIVE\n");
  EXPECT_EQ(Where(Run(pr), "intake-form"), V{pr + ":3"});
}

TEST_F(Intake, WithoutADescriptionTheCommitsOfTheRangeAreChecked) {
  repo_.git().Git("checkout -q -b feature");
  std::string bad = repo_.git().Commit("work\n\nCloses #3\n\nRow: APP-LIVE\n");
  repo_.git().Commit("more\n\nRefs #2\n\nRow: APP-LIVE\n");
  GateReport r = repo_.RunGate("intake");
  ASSERT_EQ(r.findings.size(), 1u) << Dump(r);
  EXPECT_EQ(r.findings[0].rule, "intake-mismatch");
  EXPECT_EQ(r.findings[0].commit, bad);
  EXPECT_EQ(r.findings[0].line, 3);
  EXPECT_EQ(r.checked, 2);
}

TEST_F(Intake, WithoutABaseTheDescriptionsCannotBeVerified) {
  GateReport r = repo_.RunGate("intake", "");
  EXPECT_EQ(r.status, GateStatus::kOk) << Dump(r);
  repo_.git().Git("branch -m main trunk");
  r = repo_.RunGate("intake");
  EXPECT_EQ(r.status, GateStatus::kSkip) << Dump(r);
  EXPECT_NE(r.reason.find("base 'main' not found"), std::string::npos) << r.reason;
}

class Rows : public ::testing::Test {
 protected:
  GateReport Run() { return repo_.RunGate("rows"); }
  std::string Line(const std::string& id) {
    return "roadmap/rows.md:" + std::to_string(repo_.LineOf("roadmap/rows.md", "`" + id + "`"));
  }
  RecordRepo repo_;
};

TEST_F(Rows, ALiveRowMentionedOnTheBaseHasLanded) {
  GateReport r = Run();
  EXPECT_EQ(r.status, GateStatus::kOk) << Dump(r);
  EXPECT_EQ(r.checked, 1);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.notes[0], "APP-LIVE LANDED: 1 base commit mentions it");
}

TEST_F(Rows, ARowBranchWithUnmergedCommitsIsInFlight) {
  repo_.git().Git("checkout -q -b row/APP-LIVE");
  repo_.git().Commit("step\n\nRow: APP-LIVE\n");
  repo_.git().Git("checkout -q main");
  GateReport r = Run();
  EXPECT_EQ(r.status, GateStatus::kOk) << Dump(r);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.notes[0], "APP-LIVE IN-FLIGHT: 1 commit on row branches");
}

TEST_F(Rows, ARowBranchMergedWhileTheRowStaysActiveIsCaught) {
  repo_.git().Git("checkout -q -b row/APP-LIVE");
  repo_.git().Commit("step\n\nRow: APP-LIVE\n");
  repo_.git().Git("checkout -q main");
  repo_.git().Git("merge -q --no-ff --no-edit row/APP-LIVE");
  GateReport r = Run();
  EXPECT_EQ(Where(r, "rows-merged-live"), V{Line("APP-LIVE")}) << Dump(r);
}

TEST_F(Rows, AMergedRemoteTrackingRowBranchCountsToo) {
  repo_.git().Git("update-ref refs/remotes/origin/row/APP-LIVE HEAD");
  EXPECT_EQ(Where(Run(), "rows-merged-live"), V{Line("APP-LIVE")});
}

TEST_F(Rows, ALiveRowWithNoBranchAndNoMentionIsAbandoned) {
  repo_.Replace("roadmap/rows.md", "| READY |", "| ACTIVE |");
  repo_.Replace("roadmap/rows.md", "| - | [spec](specs/APP-NEXT.md) | ACTIVE | - |",
                "| [t](../tests/engine_test.cpp) | [spec](specs/APP-NEXT.md) | ACTIVE | `ada` |");
  GateReport r = Run();
  EXPECT_EQ(Where(r, "rows-abandoned"), V{Line("APP-NEXT")}) << Dump(r);
}

TEST_F(Rows, ARowBranchWithNoRowIsCaught) {
  repo_.git().Git("branch row/APP-RENAMED");
  GateReport r = Run();
  ASSERT_EQ(Where(r, "rows-orphan-branch").size(), 1u) << Dump(r);
  EXPECT_NE(r.findings[0].message.find("refs/heads/row/APP-RENAMED"), std::string::npos);
}

TEST_F(Rows, WithoutTheBaseOrAnyBranchItSkips) {
  repo_.git().Git("checkout -q --detach");
  std::string head = repo_.git().Head();
  repo_.git().Git("branch -D main");
  GateReport r = Run();
  EXPECT_EQ(r.status, GateStatus::kSkip);
  EXPECT_NE(r.reason.find("base 'main' not found"), std::string::npos) << r.reason;
  Config config = repo_.LoadConfig();
  config.base = head;
  Result<Repository> repo = Repository::Open(repo_.path());
  ASSERT_TRUE(repo.ok());
  GateContext context;
  context.repo = &repo.value();
  context.config = &config;
  context.base = ResolveCommit(repo.value(), head).value();
  r = RunBuiltinGate(*FindBuiltinGate("rows"), context);
  EXPECT_EQ(r.status, GateStatus::kSkip) << Dump(r);
  EXPECT_NE(r.reason.find("no branch information"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace vt::gate
