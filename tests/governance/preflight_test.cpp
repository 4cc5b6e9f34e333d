// preflight: three states, built-in and external gates each run once and in
// parallel, missing commands fail, --staged finds conflict markers, and
// nothing is written into the work tree.
#include "governance/preflight.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "tests/governance/git_fixture.h"

namespace vt::gate {
namespace {

using testing::GitRepo;
using testing::GoodMessage;
using testing::TempDir;

Config Parse(const std::string& yaml) {
  Result<Config> config = ParseConfig(yaml, "preflight.yaml");
  EXPECT_TRUE(config.ok()) << config.status().message();
  return config.ok() ? config.value() : Config{};
}

const std::string kTrailers =
    "trailers:\n  required:\n    - key: Row\n    - key: AI-Assisted\n      values: [\"true\", \"false\"]\n";

class Preflight : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_.Commit(GoodMessage("root"));
    repo_.Git("checkout -q -b feature");
    repo_.Commit(GoodMessage("work"));
  }

  PreflightSummary Run(const std::string& yaml, PreflightOptions options = {}) {
    Result<PreflightSummary> summary = RunPreflight(repo_.path(), Parse(yaml), options);
    EXPECT_TRUE(summary.ok()) << summary.status().message();
    return summary.ok() ? summary.value() : PreflightSummary{};
  }

  // The report of gate `name`; a missing gate fails the test and yields an empty report.
  const GateReport* Gate(const PreflightSummary& s, const std::string& name) {
    for (const GateReport& r : s.gates) {
      if (r.gate == name) return &r;
    }
    ADD_FAILURE() << "no gate " << name;
    static const GateReport kMissing;
    return &kMissing;
  }

  GitRepo repo_;
};

TEST_F(Preflight, AllGreenOnlyWhenEveryGateRanAndPassed) {
  PreflightSummary s = Run("base: main\n" + kTrailers +
                           "preflight:\n  gates:\n    - trailers\n    - {name: shell, run: 'echo fine'}\n");
  ASSERT_EQ(s.gates.size(), 2u);
  EXPECT_EQ(OverallStatus(s), GateStatus::kOk);
  EXPECT_EQ(PreflightExitCode(s), kExitOk);
  EXPECT_EQ(s.base, repo_.Git("rev-parse main"));
  std::string text = FormatPreflight(s, OutputFormat::kText);
  EXPECT_NE(text.find("ALL GREEN"), std::string::npos) << text;
  EXPECT_NE(text.find("base: main = " + s.base), std::string::npos) << text;
}

TEST_F(Preflight, AFailingGateFailsTheRun) {
  repo_.Commit("no trailers\n");
  PreflightSummary s = Run("base: main\n" + kTrailers +
                           "preflight:\n  gates:\n    - trailers\n    - {name: shell, run: 'echo fine'}\n");
  EXPECT_EQ(Gate(s, "trailers")->status, GateStatus::kFail);
  EXPECT_EQ(Gate(s, "shell")->status, GateStatus::kOk);
  EXPECT_EQ(PreflightExitCode(s), kExitFail);
  EXPECT_EQ(FormatPreflight(s, OutputFormat::kText).find("ALL GREEN"), std::string::npos);
}

TEST_F(Preflight, ASkipIsNeverGreenAndFailsWithFailOnSkip) {
  std::string yaml = "base: origin/main\n" + kTrailers;
  PreflightSummary s = Run(yaml);
  EXPECT_EQ(Gate(s, "trailers")->status, GateStatus::kSkip);
  EXPECT_NE(Gate(s, "trailers")->reason.find("origin/main"), std::string::npos);
  EXPECT_EQ(OverallStatus(s), GateStatus::kSkip);
  EXPECT_EQ(PreflightExitCode(s), kExitOk);
  std::string text = FormatPreflight(s, OutputFormat::kText);
  EXPECT_EQ(text.find("ALL GREEN"), std::string::npos);
  EXPECT_NE(text.find("NOT VERIFIED"), std::string::npos);
  EXPECT_EQ(PreflightExitCode(Run(yaml, {false, true})), kExitFail);
}

TEST_F(Preflight, ExternalCommandExitCodesMapToStates) {
  PreflightSummary s =
      Run("base: main\npreflight:\n  gates:\n"
          "    - {name: failing, run: 'echo broken thing; exit 4'}\n"
          "    - {name: unverified, run: 'echo no data to check; exit 3'}\n"
          "    - {name: argv, run: [sh, -c, 'exit 0']}\n");
  EXPECT_EQ(Gate(s, "failing")->status, GateStatus::kFail);
  ASSERT_EQ(Gate(s, "failing")->findings.size(), 1u);
  EXPECT_NE(Gate(s, "failing")->findings[0].message.find("broken thing"), std::string::npos);
  EXPECT_EQ(Gate(s, "unverified")->status, GateStatus::kSkip);
  EXPECT_EQ(Gate(s, "unverified")->reason, "no data to check");
  EXPECT_EQ(Gate(s, "argv")->status, GateStatus::kOk);
}

TEST_F(Preflight, MissingCommandOrToolIsAFailureNotASkip) {
  PreflightSummary s =
      Run("base: main\npreflight:\n  gates:\n"
          "    - {name: absent, run: [vt-no-such-command-xyz]}\n"
          "    - {name: needs-tool, run: 'true', requires: [vt-no-such-tool-xyz]}\n");
  EXPECT_EQ(Gate(s, "absent")->status, GateStatus::kFail);
  EXPECT_NE(Gate(s, "absent")->reason.find("command not found"), std::string::npos);
  EXPECT_EQ(Gate(s, "needs-tool")->status, GateStatus::kFail);
  EXPECT_NE(Gate(s, "needs-tool")->reason.find("vt-no-such-tool-xyz"), std::string::npos);
}

TEST_F(Preflight, TimeoutKillsTheCommand) {
  auto start = std::chrono::steady_clock::now();
  // "quiet" closes its output and keeps running: the deadline must still hold.
  PreflightSummary s =
      Run("base: main\npreflight:\n  gates:\n    - {name: slow, run: 'sleep 30', timeout: 1}\n"
          "    - {name: quiet, run: 'exec > /dev/null 2>&1; sleep 30', timeout: 1}\n");
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(Gate(s, "slow")->status, GateStatus::kFail);
  EXPECT_NE(Gate(s, "slow")->reason.find("timed out"), std::string::npos);
  EXPECT_EQ(Gate(s, "quiet")->status, GateStatus::kFail);
  EXPECT_NE(Gate(s, "quiet")->reason.find("timed out"), std::string::npos);
  EXPECT_LT(seconds, 10.0);
}

TEST_F(Preflight, GatesRunOnceEachAndInParallel) {
  TempDir log_dir;
  std::string log = log_dir.path() + "/runs";
  std::string gate = "'echo x >> " + log + "; sleep 1'";
  auto start = std::chrono::steady_clock::now();
  PreflightSummary s = Run("base: main\npreflight:\n  gates:\n    - {name: a, run: " + gate +
                           "}\n    - {name: b, run: " + gate + "}\n    - {name: c, run: " + gate + "}\n");
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(OverallStatus(s), GateStatus::kOk);
  EXPECT_EQ(testing::Shell("wc -l < " + testing::Quote(log)).out, "3\n");
  EXPECT_LT(seconds, 2.5) << "three 1 s gates ran one after another";
}

TEST_F(Preflight, StagedFindsConflictMarkersInAddedLinesOnly) {
  repo_.WriteFile("committed.md", "<<<<<<< already in HEAD, not this change's business\n");
  repo_.Git("add committed.md");
  repo_.Git("commit -q --no-verify -m " + testing::Quote(GoodMessage("docs")));
  repo_.WriteFile("src.cpp", "int a;\n<<<<<<< HEAD\nint b;\n=======\nint c;\n>>>>>>> topic\n");
  repo_.Git("add src.cpp");
  repo_.WriteFile("unstaged.cpp", "<<<<<<< HEAD\n");
  std::string yaml = "base: main\n" + kTrailers;
  PreflightSummary plain = Run(yaml);
  EXPECT_EQ(plain.gates.size(), 1u);

  PreflightSummary staged = Run(yaml, {true, false});
  const GateReport* scan = Gate(staged, "staged");
  ASSERT_NE(scan, nullptr);
  EXPECT_EQ(scan->status, GateStatus::kFail);
  ASSERT_EQ(scan->findings.size(), 2u);
  EXPECT_EQ(scan->findings[0].file, "src.cpp");
  EXPECT_EQ(scan->findings[0].line, 2);
  EXPECT_EQ(scan->findings[1].line, 6);
  EXPECT_EQ(PreflightExitCode(staged), kExitFail);

  repo_.WriteFile("src.cpp", "int a;\n=======\n");
  repo_.Git("add src.cpp");
  EXPECT_EQ(Gate(Run(yaml, {true, false}), "staged")->status, GateStatus::kOk);
}

TEST_F(Preflight, StagedWorksOnAnUnbornBranch) {
  GitRepo fresh;
  fresh.WriteFile("a.txt", ">>>>>>> theirs\n");
  fresh.Git("add a.txt");
  Result<PreflightSummary> s = RunPreflight(fresh.path(), Parse("base: main\n"), {true, false});
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->gates.size(), 1u);
  EXPECT_EQ(s->gates[0].status, GateStatus::kFail);
}

TEST_F(Preflight, WritesNothingIntoTheWorkTree) {
  repo_.WriteFile("src.cpp", "<<<<<<< HEAD\n");
  repo_.Git("add src.cpp");
  std::string before = repo_.Git("status --porcelain --ignored --untracked-files=all");
  std::string index_before = testing::Shell("md5sum < " + testing::Quote(repo_.path() + "/.git/index")).out;
  Run("base: main\n" + kTrailers +
          "preflight:\n  gates:\n    - trailers\n    - {name: ls, run: 'ls > /dev/null'}\n",
      {true, false});
  EXPECT_EQ(repo_.Git("status --porcelain --ignored --untracked-files=all"), before);
  EXPECT_EQ(testing::Shell("md5sum < " + testing::Quote(repo_.path() + "/.git/index")).out, index_before);
}

TEST_F(Preflight, AmbiguousBaseIsAnError) {
  repo_.Git("tag main main");
  Result<PreflightSummary> s = RunPreflight(repo_.path(), Parse("base: main\n" + kTrailers), {});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("ambiguous"), std::string::npos);
}

}  // namespace
}  // namespace vt::gate
