// Cherry-pick provenance on real repositories: picks made with
// `git cherry-pick -x`, authors changed with `git commit --amend --author`,
// co-author waivers, sources that do not exist, and shallow clones that cut
// the source off (unverified, never green).
#include "governance/cherry_pick.h"

#include <gtest/gtest.h>

#include "governance/git_range.h"
#include "governance/trailer_gate.h"
#include "tests/governance/git_fixture.h"

namespace vt::gate {
namespace {

using testing::GitRepo;
using testing::GoodMessage;
using testing::Quote;
using testing::Shell;
using testing::TempDir;

constexpr const char* kBob = "Bob <bob@example.org>";

Config Rules(const std::string& cherry_picks = "  cherry_picks:\n    author_waivers: [Co-authored-by]\n") {
  Result<Config> config = ParseConfig("base: main\ntrailers:\n  required:\n    - key: Row\n" + cherry_picks,
                                      "rules.yaml");
  EXPECT_TRUE(config.ok()) << config.status().message();
  return config.ok() ? config.value() : Config{};
}

GateReport Check(const std::string& path, const Config& config, const std::string& base) {
  Result<Repository> repo = Repository::Open(path);
  EXPECT_TRUE(repo.ok()) << repo.status().message();
  if (!repo.ok()) return {};
  Result<git_oid> pinned = PinBase(repo.value(), base);
  EXPECT_TRUE(pinned.ok()) << pinned.status().message();
  if (!pinned.ok()) return {};
  return CheckTrailerRange(repo.value(), config, pinned.value());
}

std::string Describe(const GateReport& report) {
  std::string out = std::string(StatusName(report.status)) + ": " + report.reason;
  for (const Finding& f : report.findings) out += "\n  " + f.rule + " " + f.commit + ": " + f.message;
  for (const std::string& note : report.notes) out += "\n  note: " + note;
  return out;
}

// main: root; feature: X by Bob; release (from root): X picked with -x by Ada.
struct PickedRepo {
  GitRepo repo;
  std::string source;
  std::string pick;

  PickedRepo() {
    repo.Commit(GoodMessage("root"));
    repo.Git("checkout -q -b feature");
    source = repo.Commit(GoodMessage("the fix"), kBob);
    repo.Git("checkout -q -b release main");
    repo.Git("cherry-pick -x " + source);
    pick = repo.Head();
  }
};

TEST(CherryPick, FindsGitsLineAndRejectsMalformedOnes) {
  std::vector<CherryPickClaim> claims = FindCherryPickClaims(
      "T\n\nbody\n\nRow: none\n(cherry picked from commit 0123abcd)\n(cherry picked from commit xyz)\n");
  ASSERT_EQ(claims.size(), 2u);
  EXPECT_EQ(claims[0].source, "0123abcd");
  EXPECT_EQ(claims[0].line, 6);
  EXPECT_TRUE(claims[0].well_formed);
  EXPECT_EQ(claims[1].source, "xyz");
  EXPECT_FALSE(claims[1].well_formed);
  EXPECT_TRUE(FindCherryPickClaims("T\n\nnot (cherry picked from commit 0123abcd)\n").empty());
}

TEST(CherryPick, PickWithTheOriginalAuthorPasses) {
  PickedRepo picked;
  // The real `git cherry-pick -x` line is what the gate reads.
  std::string message = picked.repo.Git("log -1 --format=%B");
  std::vector<CherryPickClaim> claims = FindCherryPickClaims(message);
  ASSERT_EQ(claims.size(), 1u) << message;
  EXPECT_EQ(claims[0].source, picked.source);
  EXPECT_EQ(picked.repo.Git("log -1 --format=%an"), "Bob");

  GateReport report = Check(picked.repo.path(), Rules(), "main");
  EXPECT_EQ(report.status, GateStatus::kOk) << Describe(report);
  EXPECT_EQ(report.checked, 1);
}

TEST(CherryPick, ChangedAuthorFailsNamingBothAuthorsAndTheCommit) {
  PickedRepo picked;
  picked.repo.Git("commit -q --amend --no-edit --author='Eve <eve@example.org>'");
  std::string amended = picked.repo.Head();

  GateReport report = Check(picked.repo.path(), Rules(), "main");
  ASSERT_EQ(report.status, GateStatus::kFail) << Describe(report);
  ASSERT_EQ(report.findings.size(), 1u) << Describe(report);
  const Finding& f = report.findings[0];
  EXPECT_EQ(f.rule, "cherry-pick:author");
  EXPECT_EQ(f.commit, amended);
  EXPECT_NE(f.message.find("Eve <eve@example.org>"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find(kBob), std::string::npos) << f.message;
  EXPECT_NE(f.message.find(picked.source), std::string::npos) << f.message;
  EXPECT_EQ(ExitCodeFor(report), kExitFail);

  // Without the section the rule is off: the same history passes.
  EXPECT_EQ(Check(picked.repo.path(), Rules(""), "main").status, GateStatus::kOk);
}

TEST(CherryPick, ConfiguredCoAuthorTrailerWaivesTheAuthorMatch) {
  PickedRepo picked;
  picked.repo.Git("commit -q --amend --no-edit --author='Eve <eve@example.org>' --trailer " +
                  Quote(std::string("Co-authored-by: ") + kBob));
  GateReport waived = Check(picked.repo.path(), Rules(), "main");
  EXPECT_EQ(waived.status, GateStatus::kOk) << Describe(waived);

  // The waiver must name the source's author, under a configured key.
  GateReport not_configured = Check(picked.repo.path(), Rules("  cherry_picks:\n    author_waivers: []\n"), "main");
  ASSERT_EQ(not_configured.status, GateStatus::kFail) << Describe(not_configured);
  EXPECT_EQ(not_configured.findings[0].rule, "cherry-pick:author");
  GateReport other_key =
      Check(picked.repo.path(), Rules("  cherry_picks:\n    author_waivers: [Original-author]\n"), "main");
  EXPECT_EQ(other_key.status, GateStatus::kFail) << Describe(other_key);

  picked.repo.Git("commit -q --amend --no-edit --trailer 'Co-authored-by: Mallory <m@example.org>'");
  GateReport someone_else = Check(picked.repo.path(), Rules("  cherry_picks:\n    author_waivers: []\n"), "main");
  EXPECT_EQ(someone_else.status, GateStatus::kFail) << Describe(someone_else);
}

TEST(CherryPick, NonexistentSourceFailsNamingTheId) {
  GitRepo repo;
  repo.Commit(GoodMessage("root"));
  repo.Git("checkout -q -b release");
  const std::string ghost = "0123456789abcdef0123456789abcdef01234567";
  std::string commit = repo.Commit(GoodMessage("picked") + "(cherry picked from commit " + ghost + ")\n");
  std::string malformed = repo.Commit(GoodMessage("picked again") + "(cherry picked from commit HEAD~2)\n");

  GateReport report = Check(repo.path(), Rules(), "main");
  ASSERT_EQ(report.status, GateStatus::kFail) << Describe(report);
  ASSERT_EQ(report.findings.size(), 2u) << Describe(report);
  // Newest first.
  EXPECT_EQ(report.findings[0].commit, malformed);
  EXPECT_EQ(report.findings[0].rule, "cherry-pick:source");
  EXPECT_NE(report.findings[0].message.find("does not name a commit id"), std::string::npos);
  EXPECT_EQ(report.findings[1].commit, commit);
  EXPECT_EQ(report.findings[1].rule, "cherry-pick:source");
  EXPECT_NE(report.findings[1].message.find(ghost), std::string::npos) << report.findings[1].message;
  EXPECT_EQ(report.findings[1].line, 8);
}

TEST(CherryPick, SourceThatIsNotACommitFails) {
  GitRepo repo;
  repo.Commit(GoodMessage("root"));
  std::string blob = repo.Git("rev-parse HEAD:file1.txt");
  repo.Git("checkout -q -b release");
  repo.Commit(GoodMessage("picked") + "(cherry picked from commit " + blob + ")\n");
  GateReport report = Check(repo.path(), Rules(), "main");
  ASSERT_EQ(report.findings.size(), 1u) << Describe(report);
  EXPECT_NE(report.findings[0].message.find("is a blob, not a commit"), std::string::npos)
      << report.findings[0].message;
}

// A clone of the release branch alone never fetched X. Shallow, X may lie
// below the cut: the gate skips naming it. Complete, X is simply missing.
TEST(CherryPick, SourceCutOffByAShallowCloneIsNotGreen) {
  PickedRepo picked;
  TempDir dir;
  std::string shallow = dir.path() + "/shallow";
  std::string full = dir.path() + "/full";
  std::string url = Quote("file://" + picked.repo.path());
  ASSERT_EQ(Shell("git clone -q --single-branch -b release --depth 2 " + url + " " + Quote(shallow)).status, 0);
  ASSERT_EQ(Shell("git clone -q --single-branch -b release " + url + " " + Quote(full)).status, 0);
  ASSERT_EQ(Shell("test -f " + Quote(shallow + "/.git/shallow")).status, 0);
  ASSERT_NE(Shell("git -C " + Quote(shallow) + " cat-file -e " + picked.source).status, 0)
      << "the clone must not have the source";

  GateReport cut = Check(shallow, Rules(), "HEAD~1");
  EXPECT_EQ(cut.status, GateStatus::kSkip) << Describe(cut);
  EXPECT_EQ(ExitCodeFor(cut), kExitUnverified);
  EXPECT_NE(cut.reason.find(picked.source), std::string::npos) << cut.reason;
  EXPECT_NE(cut.reason.find("shallow"), std::string::npos) << cut.reason;

  GateReport missing = Check(full, Rules(), "HEAD~1");
  ASSERT_EQ(missing.status, GateStatus::kFail) << Describe(missing);
  EXPECT_EQ(missing.findings[0].rule, "cherry-pick:source");
  EXPECT_EQ(missing.findings[0].commit, picked.pick);
  EXPECT_NE(missing.findings[0].message.find(picked.source), std::string::npos);

  // Next to a real finding the unverified source is a note, and the gate fails.
  Shell("git -C " + Quote(shallow) + " -c user.name=Ada -c user.email=ada@example.org commit -q --allow-empty -m " +
        Quote("no row\n"));
  GateReport both = Check(shallow, Rules(), "HEAD~2");
  ASSERT_EQ(both.status, GateStatus::kFail) << Describe(both);
  ASSERT_EQ(both.notes.size(), 1u) << Describe(both);
  EXPECT_NE(both.notes[0].find(picked.source), std::string::npos) << both.notes[0];
}

// An exception for the pick's `cherry-pick:source` accepts the unverified source too.
TEST(CherryPick, ExceptionCoversAnUnverifiableSource) {
  PickedRepo picked;
  TempDir dir;
  std::string shallow = dir.path() + "/shallow";
  ASSERT_EQ(Shell("git clone -q --single-branch -b release --depth 2 " + Quote("file://" + picked.repo.path()) +
                  " " + Quote(shallow))
                .status,
            0);
  ASSERT_EQ(Check(shallow, Rules("  cherry_picks: {}\n"), "HEAD~1").status, GateStatus::kSkip);
  Config config = Rules("  cherry_picks: {}\n  exceptions:\n    - { commit: " + picked.pick +
                        ", rule: \"cherry-pick:source\", reason: picked from a private fork }\n");
  GateReport report = Check(shallow, config, "HEAD~1");
  EXPECT_EQ(report.status, GateStatus::kOk) << Describe(report);
  ASSERT_EQ(report.debt.size(), 1u);
}

}  // namespace
}  // namespace vt::gate
