// --explain-base replays the seed's story on a scratch repository: a change
// forked from a main whose record was red (an anchor past the end of a file the
// change never touched), 46 commits behind a main that has since fixed it. The
// record gate is red on the change; --explain-base labels the finding
// from-base and says main no longer has it; rebased, the change is green.
#include "governance/base_diagnosis.h"

#include <gtest/gtest.h>

#include "governance/preflight.h"
#include "tests/governance/record_fixture.h"

namespace vt::gate {
namespace {

using testing::CommandOutput;
using testing::Quote;
using testing::RecordRepo;
using testing::Shell;

const std::string kRow = "\n\nRow: APP-LIVE\n";

std::string Dump(const PreflightSummary& s) { return FormatPreflight(s, OutputFormat::kText); }

const GateReport& RecordOf(const PreflightSummary& s) {
  for (const GateReport& r : s.gates) {
    if (r.gate == "record") return r;
  }
  static const GateReport kNone;
  ADD_FAILURE() << "no record gate\n" << Dump(s);
  return kNone;
}

class ExplainBase : public ::testing::Test {
 protected:
  PreflightSummary Preflight(bool explain) {
    PreflightOptions options;
    options.explain_base = explain;
    Result<PreflightSummary> summary =
        RunPreflight(repo_.path(), repo_.LoadConfig("preflight:\n  gates: [trailers, record, intake]\n"), options);
    EXPECT_TRUE(summary.ok()) << summary.status().message();
    return summary.ok() ? summary.value() : PreflightSummary{};
  }

  void CommitAll(const std::string& subject) {
    repo_.git().Git("add -A");
    repo_.git().Commit(subject + kRow);
  }

  RecordRepo repo_;
};

TEST_F(ExplainBase, AChange46CommitsBehindIsRedFromItsBaseAndGreenRebased) {
  // main goes red: src/engine.cpp shrinks under APP-DONE's and APP-LIVE's anchors.
  repo_.Write("src/engine.cpp", "// engine line 1\n// engine line 2\n");
  CommitAll("trim the engine");
  repo_.git().Git("checkout -q -b change");
  repo_.Write("tests/new_test.cpp", "// a new test\n");
  CommitAll("the change: a new test");
  // main fixes the anchors, then moves on: 46 commits the change does not have.
  repo_.git().Git("checkout -q main");
  std::string engine;
  for (int i = 1; i <= 20; ++i) engine += "// engine line " + std::to_string(i) + "\n";
  repo_.Write("src/engine.cpp", engine);
  CommitAll("restore the engine");
  for (int i = 0; i < 45; ++i) repo_.git().Commit("main moves on" + kRow);
  repo_.git().Git("checkout -q change");

  PreflightSummary red = Preflight(false);
  const GateReport& record = RecordOf(red);
  ASSERT_EQ(record.status, GateStatus::kFail) << Dump(red);
  for (const Finding& f : record.findings) {
    EXPECT_TRUE(f.origin.empty()) << "labels only when asked: " << f.message;
  }

  PreflightSummary explained = Preflight(true);
  EXPECT_EQ(explained.base_note, "the change (1 commit) forks from " +
                                     repo_.git().Git("merge-base main HEAD").substr(0, 12) +
                                     ", 46 commits behind main")
      << Dump(explained);
  const GateReport& labelled = RecordOf(explained);
  ASSERT_FALSE(labelled.findings.empty()) << Dump(explained);
  for (const Finding& f : labelled.findings) {
    EXPECT_EQ(f.origin, "from-base") << f.file << ":" << f.line << " " << f.message;
  }
  std::string text = Dump(explained);
  EXPECT_NE(text.find("main has none of the base's: rebase onto it"), std::string::npos) << text;
  EXPECT_NE(text.find("[from-base] roadmap/rows.md:"), std::string::npos) << text;

  // The CLI says the same.
  CommandOutput cli =
      Shell(std::string(VT_GATE_BINARY) + " --repo " + Quote(repo_.path()) + " record --explain-base");
  EXPECT_EQ(cli.status, 1) << cli.out;
  EXPECT_NE(cli.out.find("[from-base]"), std::string::npos) << cli.out;
  EXPECT_NE(cli.out.find("46 commits behind main"), std::string::npos) << cli.out;

  repo_.git().Git("rebase -q main");
  PreflightSummary rebased = Preflight(true);
  EXPECT_EQ(OverallStatus(rebased), GateStatus::kOk) << Dump(rebased);
  EXPECT_EQ(rebased.base_note, "the change (1 commit) forks from " + repo_.git().Git("rev-parse main").substr(0, 12) +
                                   ", 0 commits behind main");
}

TEST_F(ExplainBase, WhatTheChangeBreaksIsFromTheChange) {
  repo_.git().Git("checkout -q -b change");
  repo_.Replace("roadmap/rows.md", "../src/engine.cpp#L10", "../src/engine.cpp#L99");  // past the end
  CommitAll("the change moves an anchor");
  repo_.Write("src/engine.cpp", "// engine line 1\n");  // uncommitted: the work tree is the change too
  PreflightSummary s = Preflight(true);
  const GateReport& record = RecordOf(s);
  ASSERT_EQ(record.status, GateStatus::kFail) << Dump(s);
  for (const Finding& f : record.findings) {
    EXPECT_EQ(f.origin, "from-change") << f.message;
  }
  EXPECT_NE(Dump(s).find("0 findings from the base"), std::string::npos) << Dump(s);
}

TEST_F(ExplainBase, BaseAndChangeFindingsAreToldApartInOneGate) {
  repo_.Write("roadmap/ops.md", repo_.Read("roadmap/ops.md") + "\nSee [gone](gone.md).\n");  // a broken link
  CommitAll("main links a missing page");
  repo_.git().Git("checkout -q -b change");
  repo_.Write("roadmap/ops.md", repo_.Read("roadmap/ops.md") + "\nAnd [also gone](also-gone.md).\n");
  CommitAll("the change links another missing page");
  PreflightSummary s = Preflight(true);
  const GateReport& record = RecordOf(s);
  std::map<std::string, std::string> origin_of;
  for (const Finding& f : record.findings) origin_of[f.message.substr(0, f.message.find(':'))] = f.origin;
  EXPECT_EQ(origin_of["link `gone.md`"], "from-base") << Dump(s);
  EXPECT_EQ(origin_of["link `also-gone.md`"], "from-change") << Dump(s);
  // main is the fork point: nothing to rebase onto.
  EXPECT_NE(s.base_note.find("0 commits behind main"), std::string::npos) << s.base_note;
}

// The intake gate labels its findings too, and on the command line: an issue main listed under a row
// whose spec does not name it is the base's, not the change's.
TEST_F(ExplainBase, IntakeOnTheCommandLineLabelsWhatTheBaseBrought) {
  repo_.Write("roadmap/intake.md", repo_.Read("roadmap/intake.md") + "| #4 | `APP-NEXT` |\n");
  CommitAll("main lists an issue its row's spec does not name");
  repo_.git().Git("checkout -q -b change");
  repo_.Write("tests/new_test.cpp", "// a new test\n");
  CommitAll("the change: a new test");
  const std::string intake = std::string(VT_GATE_BINARY) + " --repo " + Quote(repo_.path()) + " intake";
  CommandOutput plain = Shell(intake);
  EXPECT_EQ(plain.status, 1) << plain.out;
  EXPECT_NE(plain.out.find("does not mention #4"), std::string::npos) << plain.out;
  EXPECT_EQ(plain.out.find("[from-"), std::string::npos) << "labels only when asked: " << plain.out;
  CommandOutput explained = Shell(intake + " --explain-base");
  EXPECT_EQ(explained.status, 1) << explained.out;
  EXPECT_NE(explained.out.find("[from-base]"), std::string::npos) << explained.out;
  EXPECT_EQ(explained.out.find("[from-change]"), std::string::npos) << explained.out;
}

}  // namespace
}  // namespace vt::gate
