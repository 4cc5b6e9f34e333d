// The trailers gate on real repositories: ranges from the merge base, merges
// and first-parent walks, shallow clones, unborn HEAD, missing and moved
// bases, cutover and exceptions, pushes and message files.
#include "governance/trailer_gate.h"

#include <gtest/gtest.h>

#include <sstream>

#include "governance/git_range.h"
#include "tests/governance/git_fixture.h"

namespace vt::gate {
namespace {

using testing::GitRepo;
using testing::GoodMessage;
using testing::Quote;
using testing::Shell;
using testing::TempDir;

constexpr const char* kRules = R"(
base: main
trailers:
  required:
    - key: Row
      pattern: '^([A-Z][A-Z0-9]*(-[A-Z0-9]+)+|none)$'
    - key: AI-Assisted
      values: ["true", "false"]
    - key: Assisted-by
      count: ">=1"
      when: { AI-Assisted: "true" }
)";

Config Rules(const std::string& extra = "") {
  Result<Config> config = ParseConfig(kRules + extra, "rules.yaml");
  EXPECT_TRUE(config.ok()) << config.status().message();
  return config.ok() ? config.value() : Config{};
}

Repository Open(const std::string& path) {
  Result<Repository> repo = Repository::Open(path);
  EXPECT_TRUE(repo.ok()) << repo.status().message();
  return std::move(repo).value();
}

git_oid Pin(const Repository& repo, const std::string& spec) {
  Result<git_oid> oid = PinBase(repo, spec);
  EXPECT_TRUE(oid.ok()) << oid.status().message();
  return oid.ok() ? oid.value() : git_oid{};
}

GateReport CheckRange(const std::string& path, const Config& config, const std::string& base,
                      const std::string& head = "HEAD") {
  Repository repo = Open(path);
  return CheckTrailerRange(repo, config, Pin(repo, base), head);
}

std::vector<std::string> FindingCommits(const GateReport& report) {
  std::vector<std::string> commits;
  for (const Finding& f : report.findings) commits.push_back(f.commit);
  return commits;
}

TEST(TrailerGate, ChecksOnlyTheRangeAboveTheMergeBase) {
  GitRepo repo;
  repo.Commit("old commit without trailers\n");
  repo.Git("checkout -q -b feature");
  repo.Commit(GoodMessage());
  std::string bad = repo.Commit("no trailers here\n\nRow: ENG-CORE\n");
  repo.Git("checkout -q main");
  repo.Commit("main moved on, also without trailers\n");
  repo.Git("checkout -q feature");

  GateReport report = CheckRange(repo.path(), Rules(), "main");
  EXPECT_EQ(report.status, GateStatus::kFail);
  EXPECT_EQ(report.checked, 2);
  EXPECT_EQ(FindingCommits(report), std::vector<std::string>{bad});
  EXPECT_EQ(report.findings[0].rule, "required:AI-Assisted");
  EXPECT_EQ(report.base, repo.Git("rev-parse main"));
  EXPECT_EQ(ExitCodeFor(report), kExitFail);
}

TEST(TrailerGate, CleanRangePasses) {
  GitRepo repo;
  repo.Commit("root\n");
  repo.Git("checkout -q -b feature");
  repo.Commit(GoodMessage("one"));
  repo.Commit(GoodMessage("two"));
  GateReport report = CheckRange(repo.path(), Rules(), "main");
  EXPECT_EQ(report.status, GateStatus::kOk) << report.reason;
  EXPECT_EQ(report.checked, 2);
  EXPECT_EQ(ExitCodeFor(report), kExitOk);
}

TEST(TrailerGate, MergesSkippedByParentCountAndFirstParentWalk) {
  GitRepo repo;
  repo.Commit("root\n");
  repo.Git("checkout -q -b feature");
  repo.Commit(GoodMessage("feature work"));
  repo.Git("checkout -q -b side");
  std::string side_bad = repo.Commit("side commit without trailers\n");
  repo.Git("checkout -q feature");
  repo.Commit(GoodMessage("more feature work"));
  repo.Git("merge -q --no-ff --no-edit side");  // the merge message has no trailers

  GateReport all = CheckRange(repo.path(), Rules(), "main");
  // No trailer block, so both required keys are missing: three findings, all on the side commit.
  EXPECT_EQ(FindingCommits(all), (std::vector<std::string>(3, side_bad)));
  EXPECT_EQ(all.checked, 3);
  ASSERT_EQ(all.notes.size(), 1u);
  EXPECT_NE(all.notes[0].find("1 merge commits"), std::string::npos);

  GateReport first_parent = CheckRange(repo.path(), Rules("  first_parent: true\n"), "main");
  EXPECT_EQ(first_parent.status, GateStatus::kOk) << first_parent.reason;
  EXPECT_EQ(first_parent.checked, 2);

  GateReport merges_checked =
      CheckRange(repo.path(), Rules("  first_parent: true\n  merges: check\n"), "main");
  ASSERT_EQ(merges_checked.status, GateStatus::kFail);
  EXPECT_EQ(merges_checked.findings[0].commit, repo.Head());
}

// The first-parent chain can enter the base's history below the merge base
// (main merged into the change): the walk stops there, as git log does, and
// does not go on to the root.
TEST(TrailerGate, FirstParentChainStopsWhereItEntersTheBaseHistory) {
  GitRepo repo;
  repo.Commit("root without trailers\n");
  repo.Git("checkout -q -b feature");
  repo.Commit(GoodMessage("feature work"));
  repo.Git("checkout -q main");
  repo.Commit(GoodMessage("main moves on"));
  repo.Git("checkout -q feature");
  repo.Git("merge -q --no-ff --no-edit main");

  GateReport first_parent = CheckRange(repo.path(), Rules("  first_parent: true\n"), "main");
  EXPECT_EQ(first_parent.status, GateStatus::kOk) << first_parent.reason;
  EXPECT_EQ(first_parent.checked, 1);
}

TEST(TrailerGate, ShallowCloneWhoseBoundaryCutsTheRangeIsSkipped) {
  GitRepo origin;
  origin.Commit("root\n");
  origin.Git("checkout -q -b feature");
  for (int i = 0; i < 5; ++i) origin.Commit(GoodMessage("feature " + std::to_string(i)));
  TempDir clone_dir;
  std::string clone = clone_dir.path() + "/clone";
  ASSERT_EQ(Shell("git clone -q --no-single-branch --depth 2 -b feature " + Quote("file://" + origin.path()) +
                  " " + Quote(clone))
                .status,
            0);
  ASSERT_EQ(Shell("test -f " + Quote(clone + "/.git/shallow")).status, 0);
  // origin/main (root) is outside the two fetched feature commits: the range cannot be seen whole.
  Repository repo = Open(clone);
  GateReport report = CheckTrailerRange(repo, Rules(), Pin(repo, "origin/main"));
  EXPECT_EQ(report.status, GateStatus::kSkip) << report.reason;
  EXPECT_NE(report.reason.find("shallow"), std::string::npos) << report.reason;
  EXPECT_EQ(ExitCodeFor(report), kExitUnverified);
}

TEST(TrailerGate, ShallowCloneDeepEnoughForTheRangeIsChecked) {
  GitRepo origin;
  origin.Commit("root\n");
  for (int i = 0; i < 3; ++i) origin.Commit(GoodMessage("main " + std::to_string(i)));
  origin.Git("checkout -q -b feature");
  origin.Commit(GoodMessage("feature"));
  TempDir clone_dir;
  std::string clone = clone_dir.path() + "/clone";
  ASSERT_EQ(Shell("git clone -q --no-single-branch --depth 3 -b feature " + Quote("file://" + origin.path()) +
                  " " + Quote(clone))
                .status,
            0);
  Repository repo = Open(clone);
  GateReport report = CheckTrailerRange(repo, Rules(), Pin(repo, "origin/main"));
  EXPECT_EQ(report.status, GateStatus::kOk) << report.reason;
  EXPECT_EQ(report.checked, 1);
}

TEST(TrailerGate, UnbornHeadIsSkipped) {
  GitRepo base_repo;
  std::string root = base_repo.Commit("root\n");
  base_repo.Git("checkout -q --orphan fresh");
  Repository repo = Open(base_repo.path());
  GateReport report = CheckTrailerRange(repo, Rules(), Pin(repo, root));
  EXPECT_EQ(report.status, GateStatus::kSkip);
  EXPECT_NE(report.reason.find("unborn"), std::string::npos) << report.reason;
}

TEST(TrailerGate, MissingBaseIsUnavailableWithAHint) {
  GitRepo repo;
  repo.Commit("root\n");
  Repository opened = Open(repo.path());
  Result<git_oid> base = PinBase(opened, "origin/main");
  ASSERT_FALSE(base.ok());
  EXPECT_EQ(base.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(base.status().message().find("git fetch origin main"), std::string::npos);
}

TEST(TrailerGate, AmbiguousBaseIsAUsageError) {
  GitRepo repo;
  repo.Commit("root\n");
  repo.Git("branch release");
  repo.Git("tag release");
  Repository opened = Open(repo.path());
  Result<git_oid> base = PinBase(opened, "release");
  ASSERT_FALSE(base.ok());
  EXPECT_EQ(base.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(base.status().message().find("ambiguous"), std::string::npos);
  EXPECT_TRUE(PinBase(opened, "refs/tags/release").ok());
}

TEST(TrailerGate, UnrelatedHistoriesAreSkipped) {
  GitRepo repo;
  repo.Commit("root\n");
  repo.Git("checkout -q --orphan other");
  repo.Commit(GoodMessage());
  GateReport report = CheckRange(repo.path(), Rules(), "main");
  EXPECT_EQ(report.status, GateStatus::kSkip);
  EXPECT_NE(report.reason.find("unrelated"), std::string::npos) << report.reason;
}

TEST(TrailerGate, PinnedBaseWinsWhenTheRefMovesDuringARun) {
  GitRepo repo;
  repo.Commit("root\n");
  repo.Git("checkout -q -b feature");
  std::string bad = repo.Commit("bad\n");
  Repository opened = Open(repo.path());
  git_oid pinned = Pin(opened, "main");
  // A fetch in another worktree moves the base past the bad commit mid-run.
  repo.Git("update-ref refs/heads/main " + bad);
  GateReport report = CheckTrailerRange(opened, Rules(), pinned);
  EXPECT_EQ(report.status, GateStatus::kFail);
  EXPECT_EQ(report.base, repo.Git("rev-parse main~1"));
  EXPECT_EQ(FindingCommits(report).front(), bad);
  // A fresh run would see the moved base and an empty range.
  EXPECT_EQ(CheckRange(repo.path(), Rules(), "main").checked, 0);
}

TEST(TrailerGate, SquashShapedMessagesUseTheLastParagraph) {
  GitRepo repo;
  repo.Commit("root\n");
  repo.Git("checkout -q -b feature");
  std::string squashed = repo.Commit(
      "feat: things (#12)\n\n* first\n\nRow: ENG-A\nAI-Assisted: false\n\n* second\n\n"
      "Co-authored-by: Bob <bob@example.org>\n");
  std::string fixed = repo.Commit(
      "feat: more (#13)\n\n* first\n\nRow: ENG-A\n\n* second\n\nRow: ENG-B\nAI-Assisted: false\n"
      "Co-authored-by: Bob <bob@example.org>\n");
  GateReport report = CheckRange(repo.path(), Rules(), "main");
  std::vector<std::string> commits = FindingCommits(report);
  EXPECT_EQ(commits, (std::vector<std::string>{squashed, squashed}));
}

TEST(TrailerGate, CutoverClampsTheRangeAndExceptionsAreDebt) {
  GitRepo repo;
  repo.Commit("root\n");
  repo.Git("checkout -q -b feature");
  repo.Commit("before cutover, no trailers\n");
  std::string cutover = repo.Commit("the cutover commit, no trailers\n");
  std::string excused = repo.Commit("landed by mistake\n\nRow: ENG-CORE\n");
  repo.Commit(GoodMessage());
  std::string extra = "  cutover: " + cutover + "\n  exceptions:\n    - commit: " + excused +
                      "\n      rule: required:AI-Assisted\n      reason: hook not installed yet\n";
  GateReport report = CheckRange(repo.path(), Rules(extra), "main");
  EXPECT_EQ(report.status, GateStatus::kOk) << report.reason;
  EXPECT_EQ(report.checked, 2);
  ASSERT_EQ(report.debt.size(), 1u);
  EXPECT_EQ(report.debt[0].commit, excused);

  GateReport no_exception = CheckRange(repo.path(), Rules("  cutover: " + cutover + "\n"), "main");
  EXPECT_EQ(FindingCommits(no_exception), std::vector<std::string>{excused});

  GateReport unknown_cutover =
      CheckRange(repo.path(), Rules("  cutover: " + std::string(40, 'a') + "\n"), "main");
  EXPECT_EQ(unknown_cutover.status, GateStatus::kSkip);
}

TEST(TrailerGate, PrePushChecksNewBranchesUpdatesAndIgnoresDeletions) {
  GitRepo origin;
  std::string root = origin.Commit("root\n");
  TempDir dir;
  std::string clone = dir.path() + "/clone";
  ASSERT_EQ(Shell("git clone -q " + Quote(origin.path()) + " " + Quote(clone)).status, 0);
  auto git = [&](const std::string& args) { return Shell("git -C " + Quote(clone) + " " + args).out; };
  git("config user.name Ada && git -C " + Quote(clone) + " config user.email ada@example.org");
  git("checkout -q -b topic");
  git("commit -q --allow-empty -m " + Quote(GoodMessage()));
  git("commit -q --allow-empty -m 'bad push'");
  std::string tip = Shell("git -C " + Quote(clone) + " rev-parse HEAD").out.substr(0, 40);
  std::string zeros(40, '0');

  Repository repo = Open(clone);
  std::istringstream new_branch("refs/heads/topic " + tip + " refs/heads/topic " + zeros + "\n");
  GateReport report = CheckTrailerPush(repo, Rules(), new_branch, "origin", std::nullopt);
  EXPECT_EQ(report.status, GateStatus::kFail);
  EXPECT_EQ(report.checked, 2);  // only the two new commits, not root
  EXPECT_EQ(report.findings[0].commit, tip);

  std::string good = Shell("git -C " + Quote(clone) + " rev-parse HEAD~1").out.substr(0, 40);
  std::istringstream update("refs/heads/topic " + tip + " refs/heads/topic " + good + "\n");
  GateReport updated = CheckTrailerPush(repo, Rules(), update, "origin", std::nullopt);
  EXPECT_EQ(updated.checked, 1);

  git("tag -a -m 'release' v1 " + tip);
  std::string tag_object = Shell("git -C " + Quote(clone) + " rev-parse v1").out.substr(0, 40);
  ASSERT_NE(tag_object, tip);
  std::istringstream tag_push("refs/tags/v1 " + tag_object + " refs/tags/v1 " + zeros + "\n");
  GateReport tagged = CheckTrailerPush(repo, Rules(), tag_push, "origin", std::nullopt);
  EXPECT_EQ(tagged.checked, 2);
  EXPECT_EQ(tagged.status, GateStatus::kFail);

  std::istringstream deletion("(delete) " + zeros + " refs/heads/old " + root + "\n");
  GateReport deleted = CheckTrailerPush(repo, Rules(), deletion, "origin", std::nullopt);
  EXPECT_EQ(deleted.status, GateStatus::kOk);
  EXPECT_EQ(deleted.checked, 0);
}

class MessageFile : public ::testing::Test {
 protected:
  GateReport Check(const std::string& content, const std::string& git_config = "") {
    if (!git_config.empty()) repo_.Git(git_config);
    std::string path = dir_.Write("COMMIT_EDITMSG", content);
    Repository repo = Open(repo_.path());
    return CheckTrailerMessageFile(&repo, Rules(), path);
  }
  GitRepo repo_;
  TempDir dir_;
};

// The cut line and its explanation as `git commit -v` writes them.
TEST_F(MessageFile, CommentsAndScissorsAreCleanedLikeGit) {
  std::string message =
      GoodMessage() + "\n# Please enter the commit message for your changes.\n#\n" +
      "# ------------------------ >8 ------------------------\n"
      "# Do not modify or remove the line above.\n# Everything below it will be ignored.\n"
      "diff --git a/x b/x\n+Row: bad value\n";
  GateReport report = Check(message);
  EXPECT_EQ(report.status, GateStatus::kOk) << report.reason;
}

TEST_F(MessageFile, FindingLinesPointIntoTheEditedFile) {
  GateReport report = Check("# leading comment\nTitle\n\n# comment\n\nRow: bad\nAI-Assisted: false\n");
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].rule, "value:Row");
  EXPECT_EQ(report.findings[0].line, 6);
  EXPECT_NE(report.findings[0].file.find("COMMIT_EDITMSG"), std::string::npos);
}

TEST_F(MessageFile, HonoursCoreCommentChar) {
  // With ';' as comment char, '#' lines are content and ';' lines are dropped.
  std::string message = "Title\n\nRow: none\nAI-Assisted: false\n; Please enter a message\n";
  EXPECT_EQ(Check(message, "config core.commentChar ';'").status, GateStatus::kOk);
  GateReport hashed = Check("Title\n\nRow: none\nAI-Assisted: false\n# not a comment now\n");
  EXPECT_EQ(hashed.status, GateStatus::kFail);
}

TEST_F(MessageFile, BadInputGivesAVerdictNotACrash) {
  Repository repo = Open(repo_.path());
  GateReport missing = CheckTrailerMessageFile(&repo, Rules(), dir_.path() + "/absent");
  EXPECT_EQ(missing.status, GateStatus::kFail);
  EXPECT_NE(missing.reason.find("cannot read"), std::string::npos);

  GateReport directory = CheckTrailerMessageFile(&repo, Rules(), dir_.path());
  EXPECT_EQ(directory.status, GateStatus::kFail);
  EXPECT_NE(directory.reason.find("directory"), std::string::npos);

  std::string binary = "Title\n\n" + std::string("\x00\x01\x02\xff", 4) + "\nRow: none\nAI-Assisted: false\n";
  GateReport bin = Check(binary);
  ASSERT_EQ(bin.status, GateStatus::kFail);
  EXPECT_EQ(bin.findings[0].rule, "encoding");

  GateReport latin1 = Check("Titl\xe9\n\nRow: none\nAI-Assisted: false\n");
  ASSERT_EQ(latin1.status, GateStatus::kFail);
  EXPECT_EQ(latin1.findings[0].rule, "encoding");

  std::string huge = "Title\n\n";
  for (int i = 0; i < 220000; ++i) huge += "a line of body text that is fifty characters long\n";
  huge += "\nRow: none\nAI-Assisted: false\n";
  ASSERT_GT(huge.size(), 10u << 20);
  GateReport big = Check(huge);
  EXPECT_EQ(big.status, GateStatus::kOk) << big.reason;
}

TEST_F(MessageFile, WorksWithoutARepository) {
  std::string path = dir_.Write("msg", "Title\n\nRow: none\nAI-Assisted: false\n");
  EXPECT_EQ(CheckTrailerMessageFile(nullptr, Rules(), path).status, GateStatus::kOk);
}

}  // namespace
}  // namespace vt::gate
