// File ownership on real repositories: the row that anchors a file owns it,
// and a commit changing it under another row's trailer is a finding (fail), a
// note (warn), or nothing when the file is shared. The first test shows the
// hole: without the rule, the same commit passes.
#include "governance/ownership.h"

#include <gtest/gtest.h>

#include "governance/git_range.h"
#include "governance/trailer_gate.h"
#include "tests/governance/record_fixture.h"

namespace vt::gate {
namespace {

using testing::RecordRepo;

std::string Dump(const GateReport& r) {
  std::string out = std::string(StatusName(r.status)) + " " + r.reason + "\n";
  for (const Finding& f : r.findings) out += f.commit.substr(0, 8) + " " + f.rule + ": " + f.message + "\n";
  for (const std::string& n : r.notes) out += "note: " + n + "\n";
  return out;
}

class Ownership : public ::testing::Test {
 protected:
  void SetUp() override {
    // APP-NEXT alone anchors src/next.cpp; APP-DONE and APP-LIVE both anchor src/engine.cpp.
    repo_.Write("src/next.cpp", "// next\n");
    repo_.Replace("roadmap/rows.md", "| `APP-NEXT` | next thing | - |", "| `APP-NEXT` | next thing | `src/next.cpp:1` |");
    repo_.git().Git("add -A");
    repo_.git().Commit("anchor next\n\nRow: APP-NEXT\n");
    repo_.git().Git("checkout -q -b change");
  }

  // Appends a line to `file` and commits it under `row`.
  void Change(const std::string& file, const std::string& row) {
    repo_.Write(file, repo_.Read(file) + "// more\n");
    repo_.git().Git("add -A");
    repo_.git().Commit("change " + file + "\n\nRow: " + row + "\n");
  }

  // The fixture's config with `ownership` (YAML under record:) added.
  GateReport Run(const std::string& ownership) {
    std::string text = RecordRepo::ConfigText();
    text.insert(text.find("  anchor_prefixes:"), ownership);
    Result<Config> config = ParseConfig(text, "ownership.yaml");
    EXPECT_TRUE(config.ok()) << config.status().message();
    if (!config.ok()) return GateReport{};
    Result<Repository> repo = Repository::Open(repo_.path());
    Result<git_oid> base = PinBase(repo.value(), "main");
    EXPECT_TRUE(base.ok());
    return CheckTrailerRange(repo.value(), config.value(), base.value());
  }

  RecordRepo repo_;
};

const std::string kFail = "  ownership: {mode: fail}\n";

TEST_F(Ownership, AnotherRowsFileFailsNamingFileAndOwner) {
  Change("src/next.cpp", "APP-LIVE");
  GateReport without = Run("");
  EXPECT_EQ(without.status, GateStatus::kOk) << "the hole: " << Dump(without);

  GateReport r = Run(kFail);
  ASSERT_EQ(r.status, GateStatus::kFail) << Dump(r);
  ASSERT_EQ(r.findings.size(), 1u) << Dump(r);
  EXPECT_EQ(r.findings[0].rule, "ownership");
  EXPECT_EQ(r.findings[0].commit, repo_.git().Head());
  EXPECT_EQ(r.findings[0].message,
            "Row: APP-LIVE changes files it does not own: src/next.cpp (owned by APP-NEXT)");
}

TEST_F(Ownership, OwnersCoOwnersAndFreeFilesPass) {
  Change("src/next.cpp", "APP-NEXT");
  Change("src/engine.cpp", "APP-DONE");  // co-owned with APP-LIVE
  Change("README.md", "APP-LIVE");       // no row anchors it
  GateReport r = Run(kFail);
  EXPECT_EQ(r.status, GateStatus::kOk) << Dump(r);
  EXPECT_EQ(r.checked, 3);
}

TEST_F(Ownership, WarnModeNotesAndSharedFilesAreFree) {
  Change("src/next.cpp", "none");
  GateReport warned = Run("  ownership: {mode: warn}\n");
  EXPECT_EQ(warned.status, GateStatus::kOk) << Dump(warned);
  ASSERT_EQ(warned.notes.size(), 1u) << Dump(warned);
  EXPECT_NE(warned.notes[0].find("ownership (warn): " + repo_.git().Head().substr(0, 12) +
                                 " Row: none changes files it does not own: src/next.cpp (owned by APP-NEXT)"),
            std::string::npos)
      << warned.notes[0];
  GateReport shared = Run("  ownership: {mode: fail, shared: [\"src/*.cpp\"]}\n");
  EXPECT_EQ(shared.status, GateStatus::kOk) << Dump(shared);
}

TEST_F(Ownership, ARenameAwayFromAnOwnedPathIsAChangeToIt) {
  repo_.git().Git("mv src/next.cpp src/moved.cpp");
  repo_.git().Commit("move next\n\nRow: APP-LIVE\n");
  GateReport r = Run(kFail);
  ASSERT_EQ(r.findings.size(), 1u) << Dump(r);
  EXPECT_NE(r.findings[0].message.find("src/next.cpp (owned by APP-NEXT)"), std::string::npos) << Dump(r);
}

TEST_F(Ownership, ABadModeIsAConfigError) {
  std::string text = RecordRepo::ConfigText();
  text.insert(text.find("  anchor_prefixes:"), "  ownership: {mode: sometimes}\n");
  Result<Config> config = ParseConfig(text, "x.yaml");
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.status().message().find("ownership mode must be `warn` or `fail`"), std::string::npos)
      << config.status().message();
}

}  // namespace
}  // namespace vt::gate
