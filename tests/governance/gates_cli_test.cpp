// The record, intake, rows and gencode commands of the vt-gate binary: exit
// codes, file:line in every format, stdin descriptions, the commit-msg path
// of the Row rule, and config errors for a gate without its section.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "tests/governance/record_fixture.h"

namespace vt::gate {
namespace {

using testing::Quote;
using testing::RecordRepo;
using testing::Shell;

class GatesCli : public ::testing::Test {
 protected:
  testing::CommandOutput Gate(const std::string& args, bool merge_stderr = true) {
    return Shell(std::string(VT_GATE_BINARY) + " --repo " + Quote(repo_.path()) + " " + args, merge_stderr);
  }
  RecordRepo repo_;
};

TEST_F(GatesCli, ExitCodesOfTheNewGates) {
  EXPECT_EQ(Gate("record").status, 0) << Gate("record").out;
  EXPECT_EQ(Gate("rows").status, 0) << Gate("rows").out;
  EXPECT_EQ(Gate("intake").status, 0) << Gate("intake").out;
  EXPECT_EQ(Gate("gencode").status, 2) << "no gencode section is a config error";
  repo_.Write(".vt-gate.yaml", std::string(RecordRepo::ConfigText()) + "gencode: {}\n");
  EXPECT_EQ(Gate("gencode").status, 1) << "no features table at kernels/cuda/features.yaml";
  repo_.Write("kernels/cuda/features.yaml", "features:\n  a: [90]\nsources:\n  \"*.cu\": a\n");
  EXPECT_EQ(Gate("gencode --compile-commands nowhere.json").status, 3);
  repo_.Replace("roadmap/rows.md", "#L10", "#L99");
  EXPECT_EQ(Gate("record").status, 1);
  repo_.git().Git("branch -m main trunk");
  EXPECT_EQ(Gate("rows").status, 3) << "no base";
}

TEST_F(GatesCli, FindingsCarryFileAndLineInEveryFormat) {
  repo_.Replace("roadmap/rows.md", "#L10", "#L99");
  int line = repo_.LineOf("roadmap/rows.md", "#L99");
  std::string text = Gate("record", false).out;
  EXPECT_NE(text.find("roadmap/rows.md:" + std::to_string(line) + "  anchor: "), std::string::npos) << text;
  nlohmann::json json = nlohmann::json::parse(Gate("--format json record", false).out);
  ASSERT_EQ(json["findings"].size(), 1u) << json.dump();
  EXPECT_EQ(json["findings"][0]["file"], "roadmap/rows.md");
  EXPECT_EQ(json["findings"][0]["line"], line);
  EXPECT_EQ(json["findings"][0]["rule"], "anchor");
  std::string github = Gate("--format github record", false).out;
  EXPECT_NE(github.find("::error file=roadmap/rows.md,line=" + std::to_string(line) + ","), std::string::npos)
      << github;
}

TEST_F(GatesCli, IntakeReadsADescriptionFromStdin) {
  testing::CommandOutput out =
      Shell("printf 'Work.\\n\\nRefs #77\\n\\nRow: APP-LIVE\\n' | " + std::string(VT_GATE_BINARY) +
            " --repo " + Quote(repo_.path()) + " intake --description -");
  EXPECT_EQ(out.status, 1) << out.out;
  EXPECT_NE(out.out.find("<stdin>:3  intake-unowned"), std::string::npos) << out.out;
}

TEST_F(GatesCli, TheCommitMsgPathChecksRowsAgainstTheRecord) {
  std::string good = repo_.git().path() + "/.git/GOOD_MSG";
  std::string bad = repo_.git().path() + "/.git/BAD_MSG";
  repo_.Write(".git/GOOD_MSG", "change\n\nRow: APP-NEXT\n");
  repo_.Write(".git/BAD_MSG", "change\n\nRow: APP-RENAMED\n");
  EXPECT_EQ(Gate("trailers --message-file " + Quote(good)).status, 0);
  testing::CommandOutput out = Gate("trailers --message-file " + Quote(bad));
  EXPECT_EQ(out.status, 1);
  EXPECT_NE(out.out.find("record:Row: `Row: APP-RENAMED` names no row of the record"), std::string::npos)
      << out.out;
}

TEST_F(GatesCli, PreflightRunsTheNewGatesOnce) {
  repo_.Write(".vt-gate.yaml", std::string(RecordRepo::ConfigText()) +
                                   "preflight:\n  gates: [trailers, record, intake, rows]\n");
  testing::CommandOutput out = Gate("preflight --fail-on-skip");
  EXPECT_EQ(out.status, 0) << out.out;
  EXPECT_NE(out.out.find("ALL GREEN: 4 gates"), std::string::npos) << out.out;
  repo_.Write(".vt-gate.yaml", std::string(RecordRepo::ConfigText()) + "preflight:\n  gates: [gencode]\n");
  out = Gate("preflight");
  EXPECT_EQ(out.status, 2) << out.out;
  // The gates list is on the second line after the fixture's config.
  std::string config = RecordRepo::ConfigText();
  std::string line = std::to_string(std::count(config.begin(), config.end(), '\n') + 2);
  EXPECT_NE(out.out.find(".vt-gate.yaml:" + line + ": gate 'gencode' needs a gencode section"), std::string::npos)
      << out.out;
}

}  // namespace
}  // namespace vt::gate
