// The edges of issue #20, each on a real repository: duplicate config keys,
// merges (MERGE_HEAD in the hook, `merges: fail`), git's cleanup modes as the
// commit-msg hook sees them, configured trailer keys, corrupt objects, usage
// errors in --range, and the first push of a branch.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "governance/config.h"
#include "governance/trailer_gate.h"
#include "tests/governance/git_fixture.h"

namespace vt::gate {
namespace {

namespace fs = std::filesystem;
using testing::CommandOutput;
using testing::GitRepo;
using testing::GoodMessage;
using testing::Quote;
using testing::Shell;
using testing::TempDir;

const std::string kConfig =
    "base: main\n"
    "trailers:\n"
    "  merges: skip\n"
    "  required:\n"
    "    - key: Row\n"
    "    - key: AI-Assisted\n"
    "      values: [\"true\", \"false\"]\n"
    "  forbidden:\n"
    "    - key: Change-Id\n";

const std::string kScissors = "# ------------------------ >8 ------------------------\n";

std::string Gate(const std::string& repo) { return std::string(VT_GATE_BINARY) + " --repo " + Quote(repo); }

Config Rules(const std::string& yaml) {
  Result<Config> config = ParseConfig(yaml, "rules.yaml");
  EXPECT_TRUE(config.ok()) << config.status().message();
  return config.ok() ? config.value() : Config{};
}

TEST(DuplicateKeys, AreAConfigErrorNamingKeyAndLine) {
  Result<Config> twice = ParseConfig(kConfig + "trailers:\n  merges: check\n", "x.yaml");
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(twice.status().message().find("x.yaml:10: duplicate key 'trailers' (first at line 2)"),
            std::string::npos)
      << twice.status().message();

  Result<Config> nested = ParseConfig("trailers:\n  merges: skip\n  fixups: fail\n  merges: check\n", "y.yaml");
  ASSERT_FALSE(nested.ok());
  EXPECT_NE(nested.status().message().find("y.yaml:4: duplicate key 'merges'"), std::string::npos)
      << nested.status().message();

  Result<Config> in_list = ParseConfig(
      "trailers:\n  required:\n    - key: Row\n      count: 1\n      key: AI-Assisted\n", "z.yaml");
  ASSERT_FALSE(in_list.ok());
  EXPECT_NE(in_list.status().message().find("z.yaml:5: duplicate key 'key'"), std::string::npos)
      << in_list.status().message();

  GitRepo repo;
  repo.WriteFile(".vt-gate.yaml", kConfig + "trailers:\n  required: []\n");
  repo.Commit(GoodMessage());
  CommandOutput r = Shell(Gate(repo.path()) + " trailers");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("duplicate key 'trailers'"), std::string::npos) << r.out;
}

TEST(MergesFail, AMergeInTheRangeIsAFindingNamingIt) {
  GitRepo repo;
  repo.Commit("root\n");
  repo.Git("checkout -q -b feature");
  repo.Commit(GoodMessage("feature work"));
  repo.Git("checkout -q -b side");
  repo.Commit(GoodMessage("side work"));
  repo.Git("checkout -q feature");
  repo.Commit(GoodMessage("more feature work"));
  repo.Git("merge -q --no-ff --no-edit side");
  std::string merge = repo.Head();

  Result<Repository> opened = Repository::Open(repo.path());
  ASSERT_TRUE(opened.ok());
  Result<git_oid> base = PinBase(opened.value(), "main");
  ASSERT_TRUE(base.ok());
  std::string fail_config = kConfig;
  fail_config.replace(fail_config.find("merges: skip"), 12, "merges: fail");
  for (const char* first_parent : {"false", "true"}) {
    GateReport report = CheckTrailerRange(
        opened.value(), Rules(fail_config + "  first_parent: " + first_parent + "\n"), base.value());
    ASSERT_EQ(report.status, GateStatus::kFail) << report.reason;
    ASSERT_EQ(report.findings.size(), 1u);
    EXPECT_EQ(report.findings[0].rule, "merge");
    EXPECT_EQ(report.findings[0].commit, merge);
    EXPECT_EQ(ExitCodeFor(report), kExitFail);
  }
  GateReport skipped = CheckTrailerRange(opened.value(), Rules(kConfig), base.value());
  EXPECT_EQ(skipped.status, GateStatus::kOk) << skipped.reason;
}

// git config's trailer.<name>.key renames every token that prefixes it, after
// trimming (`Ack : yes`, `Ack = yes` with trailer.separators), so a rule on
// the configured key must see it; git interpret-trailers is the oracle.
TEST(ConfiguredKeys, AreMatchedAsGitMatchesThem) {
  GitRepo repo;
  repo.Commit("root\n");
  repo.Git("checkout -q -b feature");
  repo.Git("config trailer.ack.key Acked-by");
  repo.Git("config trailer.separators :=");
  std::string spaced = repo.Commit("spaced\n\nRow: none\nAI-Assisted: false\nAck : yes\n");
  std::string equals = repo.Commit("equals\n\nRow: none\nAI-Assisted: false\nAck = yes\n");
  for (const std::string& id : {spaced, equals}) {
    EXPECT_EQ(repo.Git("log -1 --format=%B " + id + " | git -C " + Quote(repo.path()) + " interpret-trailers --parse | tail -1"), "Acked-by: yes");
  }
  // A name configured without a key still makes a 25% paragraph a trailer block.
  repo.Git("config trailer.cc.where end");
  std::string prose = repo.Commit("prose\n\nRow: none\nAI-Assisted: false\none\ntwo\nthree\ncc: Bob\n");
  EXPECT_NE(repo.Git("log -1 --format=%B " + prose + " | git -C " + Quote(repo.path()) + " interpret-trailers --parse"), "");

  Result<Repository> opened = Repository::Open(repo.path());
  ASSERT_TRUE(opened.ok());
  Result<git_oid> base = PinBase(opened.value(), "main");
  ASSERT_TRUE(base.ok());
  GateReport report = CheckTrailerRange(
      opened.value(), Rules(kConfig + "    - key: Acked-by\n    - key: Cc\n"), base.value());
  ASSERT_EQ(report.status, GateStatus::kFail) << report.reason;
  std::vector<std::string> found;
  for (const Finding& f : report.findings) found.push_back(f.rule + " " + f.commit);
  EXPECT_EQ(found, (std::vector<std::string>{"forbidden:Cc " + prose, "forbidden:Acked-by " + equals,
                                             "forbidden:Acked-by " + spaced}));
}

// A truncated loose object once made libgit2 1.5 inflate forever. The wait
// is bounded generously by `timeout`; 124 means the hang is back.
TEST(CorruptObjects, TruncatedLooseCommitIsNamedNotAHang) {
  GitRepo repo;
  repo.WriteFile(".vt-gate.yaml", kConfig);
  repo.Commit(GoodMessage("root"));
  repo.Git("checkout -q -b feature");
  repo.Commit(GoodMessage("one"));
  std::string victim = repo.Commit(GoodMessage("two"));
  repo.Commit(GoodMessage("three"));
  fs::path file = fs::path(repo.path()) / ".git/objects" / victim.substr(0, 2) / victim.substr(2);
  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write);
  fs::resize_file(file, fs::file_size(file) - 6);
  EXPECT_NE(Shell("git -C " + Quote(repo.path()) + " log --oneline").status, 0);  // git agrees

  CommandOutput r = Shell("timeout 60 " + Gate(repo.path()) + " trailers");
  ASSERT_NE(r.status, 124) << "vt-gate hung on a truncated loose object";
  EXPECT_EQ(r.status, 3) << r.out;
  EXPECT_NE(r.out.find("corrupt object " + victim), std::string::npos) << r.out;
}

TEST(CorruptObjects, CorruptPackedBaseAncestorIsNamedAndHeadTyposAreUsage) {
  GitRepo repo;
  repo.WriteFile(".vt-gate.yaml", kConfig);
  repo.Commit(GoodMessage("root"));
  std::string victim = repo.Commit(GoodMessage("on main"));
  repo.Commit(GoodMessage("main tip"));
  repo.Git("checkout -q -b feature");
  repo.Commit(GoodMessage("feature"));
  repo.Git("gc -q");
  // Overwrite the end of the victim's deflated data inside the pack.
  std::string pack = Shell("ls " + Quote(repo.path() + "/.git/objects/pack") + " | grep '\\.pack$'").out;
  while (!pack.empty() && pack.back() == '\n') pack.pop_back();
  std::istringstream row(repo.Git("verify-pack -v .git/objects/pack/" + pack.substr(0, pack.size() - 5) +
                                  ".idx | grep ^" + victim));
  std::string id, type;
  long size = 0, packed = 0, offset = 0;
  ASSERT_TRUE(row >> id >> type >> size >> packed >> offset);
  std::string path = repo.path() + "/.git/objects/pack/" + pack;
  ASSERT_EQ(Shell("chmod u+w " + Quote(path) + " && printf XXXXXXXX | dd of=" + Quote(path) +
                  " bs=1 conv=notrunc seek=" + std::to_string(offset + packed - 8) + " 2>/dev/null")
                .status,
            0);
  EXPECT_NE(Shell("git -C " + Quote(repo.path()) + " log --oneline main").status, 0);  // git agrees

  CommandOutput range = Shell("timeout 60 " + Gate(repo.path()) + " trailers");
  EXPECT_EQ(range.status, 3) << range.out;
  EXPECT_NE(range.out.find("corrupt object " + victim), std::string::npos) << range.out;
  // A base whose tip is the corrupt commit: not "base not found".
  repo.WriteFile(".git/refs/heads/broken", victim + "\n");
  CommandOutput base = Shell("timeout 60 " + Gate(repo.path()) + " trailers --base broken");
  EXPECT_EQ(base.status, 3) << base.out;
  EXPECT_NE(base.out.find("corrupt object " + victim), std::string::npos) << base.out;
  EXPECT_EQ(base.out.find("not found"), std::string::npos) << base.out;

  CommandOutput typo = Shell(Gate(repo.path()) + " trailers --range main..featur");
  EXPECT_EQ(typo.status, 2) << typo.out;
  EXPECT_NE(typo.out.find("'featur' does not name a commit"), std::string::npos) << typo.out;
}

// The installed hooks, driven by real `git commit` and `git merge` runs.
class HookEdges : public ::testing::Test {
 protected:
  void SetUp() override { Install(kConfig); }
  void Install(const std::string& config) {
    repo_.WriteFile(".vt-gate.yaml", config);
    repo_.Git("add .vt-gate.yaml");
    repo_.Git("commit -q --no-verify -m " + Quote(GoodMessage("config")));
    CommandOutput r = Shell(Gate(repo_.path()) + " hooks install");
    ASSERT_EQ(r.status, 0) << r.out;
  }
  // `git ARGS` in the repository with the hooks active; GIT_EDITOR=true
  // stands in for an editor that saves the prepared file unchanged.
  CommandOutput Git(const std::string& args) {
    return Shell("cd " + Quote(repo_.path()) + " && GIT_EDITOR=true git " + args);
  }
  void Stage() {
    repo_.WriteFile("f" + std::to_string(++n_), "x\n");
    repo_.Git("add -A");
  }
  std::string MessageFile(const std::string& content) { return dir_.Write("msg" + std::to_string(++n_), content); }
  std::string StoredTrailer(const std::string& key) {
    return repo_.Git("log -1 " + Quote("--format=%(trailers:key=" + key + ",valueonly)"));
  }
  // An empty bare repository, added as `origin`; its path.
  std::string AddEmptyOrigin() {
    std::string remote = dir_.path() + "/remote" + std::to_string(++n_) + ".git";
    EXPECT_EQ(Shell("git init -q --bare " + Quote(remote)).status, 0);
    repo_.Git("remote add origin " + Quote(remote));
    return remote;
  }

  GitRepo repo_;
  TempDir dir_;
  int n_ = 0;
};

TEST_F(HookEdges, MergeHeadMakesTheMessageAMerge) {
  repo_.Git("checkout -q -b side");
  repo_.WriteFile("conflict", "side\n");
  repo_.Git("add conflict");
  repo_.Git("commit -q --no-verify -m " + Quote(GoodMessage("side")));
  repo_.Git("checkout -q main");
  repo_.WriteFile("conflict", "main\n");
  repo_.Git("add conflict");
  repo_.Git("commit -q --no-verify -m " + Quote(GoodMessage("main")));
  EXPECT_NE(Git("merge -q side").status, 0);  // conflicts: MERGE_HEAD and MERGE_MSG stay
  repo_.WriteFile("conflict", "resolved\n");
  repo_.Git("add conflict");
  // "Merge branch 'side'" has no trailers; with merges: skip the hook must let it through.
  CommandOutput commit = Git("commit -q --no-edit");
  EXPECT_EQ(commit.status, 0) << commit.out;
  EXPECT_EQ(repo_.Git("rev-list --count --merges HEAD"), "1");
}

TEST_F(HookEdges, MergesFailRejectsAMergeInTheHook) {
  std::string config = kConfig;
  config.replace(config.find("merges: skip"), 12, "merges: fail");
  repo_.WriteFile(".vt-gate.yaml", config);
  repo_.Git("commit -q --no-verify -am " + Quote(GoodMessage("merges fail")));
  repo_.Git("checkout -q -b side");
  Stage();
  repo_.Git("commit -q --no-verify -m " + Quote(GoodMessage("side")));
  repo_.Git("checkout -q main");
  CommandOutput merge = Git("merge -q --no-ff -m " + Quote(GoodMessage("merge side")) + " side");
  EXPECT_NE(merge.status, 0) << merge.out;
  EXPECT_NE(merge.out.find("merge: a merge commit"), std::string::npos) << merge.out;
  EXPECT_EQ(repo_.Git("rev-list --count --merges HEAD"), "0");
}

// With `base: main` and a remote that has nothing yet, the base cannot stand
// in for the remote: every pushed commit is checked, not "0 pushed commits".
TEST_F(HookEdges, FirstPushOfABranchOnTheBaseChecksItsCommits) {
  const std::string remote = AddEmptyOrigin();
  Stage();
  repo_.Git("commit -q --no-verify -m 'unsigned, no trailers'");
  std::string bad = repo_.Head();
  CommandOutput push = Git("push -q origin main");
  EXPECT_NE(push.status, 0) << push.out;
  EXPECT_NE(push.out.find(bad.substr(0, 12)), std::string::npos) << push.out;
  EXPECT_NE(push.out.find("required:Row"), std::string::npos) << push.out;
  EXPECT_NE(Shell("git -C " + Quote(remote) + " rev-parse --verify -q refs/heads/main").status, 0);

  repo_.Git("commit -q --amend --no-verify -m " + Quote(GoodMessage("fixed")));
  CommandOutput fixed = Git("push -q origin main");
  EXPECT_EQ(fixed.status, 0) << fixed.out;
}

// A local base is not on the remote: with an unpushed commit on main and a
// branch on top, `git push origin feature` to a remote without tracking refs
// sends all three commits, and all three are checked.
TEST_F(HookEdges, FirstPushOfABranchAboveAnUnpushedBaseChecksTheBaseCommitsToo) {
  const std::string remote = AddEmptyOrigin();
  Stage();
  repo_.Git("commit -q --no-verify -m 'on main, no Row'");
  std::string bad = repo_.Head();
  repo_.Git("checkout -q -b feature");
  Stage();
  repo_.Git("commit -q --no-verify -m " + Quote(GoodMessage("feature")));
  CommandOutput push = Git("push -q origin feature");
  EXPECT_NE(push.status, 0) << push.out;
  EXPECT_NE(push.out.find(bad.substr(0, 12)), std::string::npos) << push.out;
  EXPECT_NE(push.out.find("required:Row"), std::string::npos) << push.out;
  EXPECT_NE(Shell("git -C " + Quote(remote) + " rev-parse --verify -q refs/heads/feature").status, 0);
}

// Without -v or --cleanup=scissors git keeps what follows a scissors line
// (strip mode drops only the comment line itself): the hook must see it.
TEST_F(HookEdges, ScissorsCutOnlyWhenGitCuts) {
  std::string message = "title\n\nbody\n\nRow: none\nAI-Assisted: false\n" + kScissors + "Change-Id: I1\n";
  Stage();
  CommandOutput edited = Git("commit -q -e -F " + Quote(MessageFile(message)));
  EXPECT_NE(edited.status, 0) << edited.out;
  EXPECT_NE(edited.out.find("forbidden:Change-Id"), std::string::npos) << edited.out;
  // The oracle: git itself stores the trailer the hook refused.
  ASSERT_EQ(Git("commit -q --no-verify -e -F " + Quote(MessageFile(message))).status, 0);
  EXPECT_EQ(StoredTrailer("Change-Id"), "I1");

  // With -v git writes its own cut line and truncates at the first one.
  Stage();
  CommandOutput verbose = Git("commit -q -v -e -F " + Quote(MessageFile(message)));
  EXPECT_EQ(verbose.status, 0) << verbose.out;
  EXPECT_EQ(StoredTrailer("Change-Id"), "");
  // --cleanup=scissors in an editor session: the same cut.
  Stage();
  CommandOutput scissors = Git("commit -q --cleanup=scissors -e -F " + Quote(MessageFile(message)));
  EXPECT_EQ(scissors.status, 0) << scissors.out;
  // commit.verbose is seen by the hook even with -F.
  repo_.Git("config commit.verbose true");
  Stage();
  CommandOutput configured = Git("commit -q -F " + Quote(MessageFile(message)));
  EXPECT_EQ(configured.status, 0) << configured.out;
  EXPECT_EQ(StoredTrailer("Change-Id"), "");
}

// A scissors line typed by hand, a comment below it, then a trailer: not the
// layout git writes below its own cut line (comments up to the end or the
// diff), so without -v git keeps the trailer and the hook must see it; with
// -v git cuts at the first scissors line, the typed one.
TEST_F(HookEdges, AHandTypedScissorsLineHidesNoTrailer) {
  std::string message = "Add thing\n\nRow: none\nAI-Assisted: false\n" + kScissors + "# (typed by hand)\nChange-Id: I1\n";
  Stage();
  CommandOutput edited = Git("commit -q -e -F " + Quote(MessageFile(message)));
  EXPECT_NE(edited.status, 0) << edited.out;
  EXPECT_NE(edited.out.find("forbidden:Change-Id"), std::string::npos) << edited.out;
  // The oracle: git itself stores the trailer below the typed line.
  Stage();
  ASSERT_EQ(Git("commit -q --no-verify -e -F " + Quote(MessageFile(message))).status, 0);
  EXPECT_EQ(StoredTrailer("Change-Id"), "I1");

  Stage();
  CommandOutput verbose = Git("commit -q -v -e -F " + Quote(MessageFile(message)));
  EXPECT_EQ(verbose.status, 0) << verbose.out;
  EXPECT_EQ(StoredTrailer("Change-Id"), "");
}

// -m and -F without an editor clean with `whitespace`: a '#' title is kept.
TEST_F(HookEdges, NoEditorMeansWhitespaceCleanup) {
  Stage();
  CommandOutput r = Git("commit -q -m " + Quote("#12 fix the parser\n\nRow: none\nAI-Assisted: false\n"));
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(repo_.Git("log -1 --format=%s"), "#12 fix the parser");
}

}  // namespace
}  // namespace vt::gate
