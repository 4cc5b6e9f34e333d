// The vt-gate binary: pinned CLI, exit codes, and the three output formats.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/governance/git_fixture.h"

namespace vt::gate {
namespace {

using testing::GitRepo;
using testing::GoodMessage;
using testing::Quote;
using testing::Shell;
using testing::TempDir;

const std::string kConfig =
    "base: main\ntrailers:\n  required:\n    - key: Row\n    - key: AI-Assisted\n      values: [\"true\", "
    "\"false\"]\n";

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_.WriteFile(".vt-gate.yaml", kConfig);
    repo_.Commit(GoodMessage("root"));
    repo_.Git("checkout -q -b feature");
    good_ = repo_.Commit(GoodMessage("good"));
  }
  testing::CommandOutput Gate(const std::string& args, bool merge_stderr = true) {
    return Shell(std::string(VT_GATE_BINARY) + " --repo " + Quote(repo_.path()) + " " + args, merge_stderr);
  }
  GitRepo repo_;
  std::string good_;
};

TEST_F(Cli, ExitCodes) {
  EXPECT_EQ(Gate("trailers").status, 0);
  EXPECT_EQ(Gate("trailers --base main").status, 0);
  EXPECT_EQ(Gate("trailers --range main..HEAD").status, 0);
  EXPECT_EQ(Gate("trailers --base origin/main").status, 3);
  EXPECT_EQ(Gate("trailers --no-such-flag").status, 2);
  EXPECT_EQ(Gate("trailers --base main --message-file x").status, 2);
  EXPECT_EQ(Gate("").status, 2);
  repo_.Git("tag feature");
  EXPECT_EQ(Gate("trailers --range main..feature").status, 2);  // branch and tag: ambiguous
  repo_.Git("tag -d feature");
  repo_.Commit("bad\n");
  EXPECT_EQ(Gate("trailers").status, 1);
  EXPECT_EQ(Gate("trailers --range main.." + good_).status, 0);
  EXPECT_EQ(Gate("preflight").status, 1);
}

TEST_F(Cli, FirstParentFlag) {
  repo_.Git("checkout -q -b side");
  repo_.Commit("side commit without trailers\n");
  repo_.Git("checkout -q feature");
  repo_.Git("merge -q --no-ff --no-edit side");
  EXPECT_EQ(Gate("trailers").status, 1);
  EXPECT_EQ(Gate("trailers --first-parent").status, 0);
}

TEST_F(Cli, ConfigErrorsExitTwoWithFileAndLine) {
  TempDir dir;
  std::string bad = dir.Write("bad.yaml", "base: main\ntrailers:\n  merges: sometimes\n");
  testing::CommandOutput r = Gate("--config " + Quote(bad) + " trailers");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find(bad + ":3:"), std::string::npos) << r.out;
  EXPECT_EQ(Gate("--config " + Quote(dir.path() + "/absent.yaml") + " preflight").status, 2);
}

TEST_F(Cli, JsonReportHasThePinnedFields) {
  std::string bad = repo_.Commit("bad\n\nRow: none\n");
  testing::CommandOutput r = Gate("--format json trailers", false);
  EXPECT_EQ(r.status, 1);
  nlohmann::json j = nlohmann::json::parse(r.out);
  for (const char* key : {"gate", "status", "reason", "base", "checked", "elapsed_ms", "findings"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["gate"], "trailers");
  EXPECT_EQ(j["status"], "fail");
  EXPECT_EQ(j["base"], repo_.Git("rev-parse main"));
  EXPECT_EQ(j["checked"], 2);
  ASSERT_EQ(j["findings"].size(), 1u);
  const auto& f = j["findings"][0];
  for (const char* key : {"rule", "commit", "file", "line", "message"}) EXPECT_TRUE(f.contains(key)) << key;
  EXPECT_EQ(f["commit"], bad);
  EXPECT_EQ(f["rule"], "required:AI-Assisted");
}

TEST_F(Cli, JsonPreflightWrapsTheGates) {
  testing::CommandOutput r = Gate("--format json preflight", false);
  EXPECT_EQ(r.status, 0) << r.out;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["base"], repo_.Git("rev-parse main"));
  ASSERT_EQ(j["gates"].size(), 1u);
  EXPECT_EQ(j["gates"][0]["gate"], "trailers");
}

TEST_F(Cli, GithubAnnotations) {
  TempDir dir;
  std::string msg = dir.Write("MSG", "Title\n\nRow: none\nAI-Assisted: maybe\n");
  testing::CommandOutput r = Gate("--format github trailers --message-file " + Quote(msg));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("::error file=" + msg + ",line=4,title=vt-gate trailers value%3AAI-Assisted::"),
            std::string::npos)
      << r.out;
}

TEST_F(Cli, MessageFromStdinAndBinaryInput) {
  EXPECT_EQ(Shell("printf 'T\\n\\nRow: none\\nAI-Assisted: true\\n' | " + std::string(VT_GATE_BINARY) +
                  " --repo " + Quote(repo_.path()) + " trailers --message-file -")
                .status,
            0);
  EXPECT_EQ(Shell("head -c 4096 /dev/urandom | " + std::string(VT_GATE_BINARY) + " --repo " +
                  Quote(repo_.path()) + " trailers --message-file -")
                .status,
            1);
  EXPECT_EQ(
      Shell("head -c 4096 /dev/urandom | " + std::string(VT_GATE_BINARY) + " --repo " + Quote(repo_.path()) +
            " --format json trailers --message-file - | python3 -m json.tool > /dev/null")
          .status,
      0);
}

TEST_F(Cli, HelpListsCommandsAndExitCodes) {
  testing::CommandOutput r = Shell(std::string(VT_GATE_BINARY) + " --help");
  EXPECT_EQ(r.status, 0);
  for (const char* word : {"trailers", "preflight", "hooks", "3  could not verify"}) {
    EXPECT_NE(r.out.find(word), std::string::npos) << word;
  }
}

}  // namespace
}  // namespace vt::gate
