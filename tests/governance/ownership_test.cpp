// File ownership on real repositories: the row that anchors a file owns it,
// and a commit changing it under another row's trailer is a finding (fail), a
// note (warn), or nothing when the file is shared. The first test shows the
// hole: without the rule, the same commit passes.
#include "governance/ownership.h"

#include <gtest/gtest.h>

#include "governance/git_range.h"
#include "governance/intake_gate.h"
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
  static Result<Config> WithOwnership(const std::string& ownership) {
    std::string text = RecordRepo::ConfigText();
    text.insert(text.find("  anchor_prefixes:"), ownership);
    Result<Config> config = ParseConfig(text, "ownership.yaml");
    EXPECT_TRUE(config.ok()) << config.status().message();
    return config;
  }

  GateReport Run(const std::string& ownership) {
    Result<Config> config = WithOwnership(ownership);
    if (!config.ok()) return GateReport{};
    Result<Repository> repo = Repository::Open(repo_.path());
    Result<git_oid> base = PinBase(repo.value(), "main");
    EXPECT_TRUE(base.ok());
    return CheckTrailerRange(repo.value(), config.value(), base.value());
  }

  // Intake of pull request #9's description over this change: through CI's scope (head, `base`
  // hidden) or through the pinned `base` (the CLI's --description).
  GateReport PullRequestIntake(const Config& config, const std::string& description, const git_oid& base,
                               bool through_scope) {
    Result<Repository> repo = Repository::Open(repo_.path());
    EXPECT_TRUE(repo.ok());
    if (!repo.ok()) return GateReport{};
    IntakeInput input;
    input.description_name = "pull request #9";
    input.description_text = description;
    if (through_scope) {
      ChangeScope scope;
      EXPECT_EQ(git_oid_fromstr(&scope.head, repo_.git().Head().c_str()), 0);
      scope.hide = {base};
      scope.describe = "pull request #9";
      input.scope = scope;
    } else {
      input.base = base;
    }
    return CheckIntake(repo.value(), config, input);
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

// A change cannot take a file over by anchoring it to its own row: the owners at its base decide,
// in one commit that edits the file and anchors it, and in two (the anchor first, then the edit),
// for commits and for a pull request's description. A file no row owned at the base can be claimed.
TEST_F(Ownership, AnchoringAnotherRowsFileInTheChangeDoesNotTakeItOver) {
  const std::string take = "| [engine.cpp](../src/engine.cpp#L10) | [test](../tests/engine_test.cpp) |";
  const std::string taken =
      "| [engine.cpp](../src/engine.cpp#L10) [next](../src/next.cpp) | [test](../tests/engine_test.cpp) |";
  repo_.Replace("roadmap/rows.md", take, taken);
  Change("src/next.cpp", "APP-LIVE");  // the edit and the anchor in one commit
  GateReport one = Run(kFail);
  ASSERT_EQ(one.status, GateStatus::kFail) << Dump(one);
  ASSERT_EQ(one.findings.size(), 1u) << Dump(one);
  EXPECT_EQ(one.findings[0].message, "Row: APP-LIVE changes files it does not own: src/next.cpp (owned by APP-NEXT)");
  Result<Config> config = WithOwnership(kFail);
  ASSERT_TRUE(config.ok());
  Result<Repository> repo = Repository::Open(repo_.path());
  ASSERT_TRUE(repo.ok());
  Result<git_oid> base = PinBase(repo.value(), "main");
  ASSERT_TRUE(base.ok());
  GateReport pr = PullRequestIntake(config.value(), "Live work\n\nRefs #2\n\nRow: APP-LIVE\n", base.value(), true);
  ASSERT_EQ(pr.findings.size(), 1u) << Dump(pr);
  EXPECT_EQ(pr.findings[0].message, "Row: APP-LIVE changes files it does not own: src/next.cpp (owned by APP-NEXT)");

  repo_.git().Git("reset -q --hard main");
  repo_.Replace("roadmap/rows.md", take, taken);
  Change("roadmap/rows.md", "APP-LIVE");  // the anchor alone: the record is no row's
  Change("src/next.cpp", "APP-LIVE");
  GateReport two = Run(kFail);
  ASSERT_EQ(two.findings.size(), 1u) << Dump(two);
  EXPECT_EQ(two.findings[0].commit, repo_.git().Head());

  // A file no row owned at the base is the row's that anchors it now: another row may not edit it.
  repo_.git().Git("reset -q --hard main");
  repo_.Write("src/new.cpp", "// new\n");
  repo_.Replace("roadmap/rows.md", take,
                "| [engine.cpp](../src/engine.cpp#L10) [new](../src/new.cpp) | [test](../tests/engine_test.cpp) |");
  Change("src/new.cpp", "APP-LIVE");
  EXPECT_EQ(Run(kFail).status, GateStatus::kOk) << Dump(Run(kFail));
  Change("src/new.cpp", "APP-NEXT");
  GateReport claimed = Run(kFail);
  ASSERT_EQ(claimed.findings.size(), 1u) << Dump(claimed);
  EXPECT_EQ(claimed.findings[0].message, "Row: APP-NEXT changes files it does not own: src/new.cpp (owned by APP-LIVE)");
}

// A pull request's description speaks for the whole change (a squash merge lands it under that
// text): its Row must own every owned file the change edits, merge-base..head, whatever each
// commit's own trailer said. Through the pinned base (the CLI's --description) and through CI's
// scope (head, the base it hides).
TEST_F(Ownership, APullRequestDescriptionMustOwnTheFilesOfTheWholeChange) {
  Change("src/next.cpp", "APP-NEXT");  // each commit is owned: the trailers gate passes
  Change("src/engine.cpp", "APP-LIVE");
  Result<Repository> repo = Repository::Open(repo_.path());
  ASSERT_TRUE(repo.ok());
  Result<git_oid> base = PinBase(repo.value(), "main");
  ASSERT_TRUE(base.ok());
  auto intake = [&](const std::string& ownership, const std::string& description, bool through_scope) {
    Result<Config> config = WithOwnership(ownership);
    return config.ok() ? PullRequestIntake(config.value(), description, base.value(), through_scope) : GateReport{};
  };
  const std::string live = "Live work\n\nRefs #2\n\nRow: APP-LIVE\n";
  GateReport without = intake("", live, false);
  EXPECT_EQ(without.status, GateStatus::kOk) << "the hole: " << Dump(without);
  for (bool through_scope : {false, true}) {
    GateReport r = intake(kFail, live, through_scope);
    ASSERT_EQ(r.status, GateStatus::kFail) << Dump(r);
    ASSERT_EQ(r.findings.size(), 1u) << Dump(r);
    EXPECT_EQ(r.findings[0].rule, "ownership");
    EXPECT_EQ(r.findings[0].file, "pull request #9");
    EXPECT_EQ(r.findings[0].message,
              "Row: APP-LIVE changes files it does not own: src/next.cpp (owned by APP-NEXT)");
  }
  // Two rows between them own both files (the intake rule still wants each issue's own row).
  GateReport both = intake(kFail, "Both\n\nRefs #2\nRefs #3\n\nRow: APP-LIVE\nRow: APP-NEXT\n", true);
  for (const Finding& f : both.findings) EXPECT_NE(f.rule, "ownership") << Dump(both);
  GateReport warned = intake("  ownership: {mode: warn}\n", live, false);
  EXPECT_EQ(warned.status, GateStatus::kOk) << Dump(warned);
  ASSERT_EQ(warned.notes.size(), 1u) << Dump(warned);
  EXPECT_NE(warned.notes[0].find("ownership (warn): pull request #9 Row: APP-LIVE changes files"), std::string::npos)
      << warned.notes[0];
  GateReport unnamed = intake(kFail, "No row here\n\nRefs #2\n", false);
  EXPECT_EQ(unnamed.status, GateStatus::kOk) << Dump(unnamed);
  ASSERT_EQ(unnamed.notes.size(), 1u) << Dump(unnamed);
  EXPECT_NE(unnamed.notes[0].find("names no `Row:`"), std::string::npos) << unnamed.notes[0];
}

// CI's clone may lack the fork point (a base with no history in common with the head here): the
// description's ownership cannot be verified, and the gate says so in a note rather than passing
// the files silently or failing the change for what it could not read.
TEST_F(Ownership, ADescriptionWhoseForkPointIsNotInTheCloneIsANote) {
  Change("src/next.cpp", "APP-NEXT");  // not APP-LIVE's: a known fork point makes this a finding
  Result<Config> config = WithOwnership(kFail);
  ASSERT_TRUE(config.ok());
  auto intake = [&](const std::string& base) {
    git_oid oid;
    EXPECT_EQ(git_oid_fromstr(&oid, base.c_str()), 0);
    return PullRequestIntake(config.value(), "Live work\n\nRefs #2\n\nRow: APP-LIVE\n", oid, true);
  };
  GateReport known = intake(repo_.git().Git("rev-parse main"));
  ASSERT_EQ(known.status, GateStatus::kFail) << Dump(known);
  const std::string unrelated = repo_.git().Git("commit-tree -m unrelated " + repo_.git().Git("write-tree"));
  GateReport unknown = intake(unrelated);
  EXPECT_EQ(unknown.status, GateStatus::kOk) << Dump(unknown);
  for (const Finding& f : unknown.findings) EXPECT_NE(f.rule, "ownership") << Dump(unknown);
  ASSERT_EQ(unknown.notes.size(), 1u) << Dump(unknown);
  EXPECT_EQ(unknown.notes[0], "ownership of pull request #9 not verified: the change's fork point is unknown");
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
