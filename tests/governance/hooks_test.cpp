// hooks install/uninstall with chaining, and the shims end to end: real
// `git commit` and `git push` runs calling the built vt-gate.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "governance/hooks_installer.h"
#include "tests/governance/git_fixture.h"

namespace vt::gate {
namespace {

namespace fs = std::filesystem;
using testing::GitRepo;
using testing::GoodMessage;
using testing::Quote;
using testing::ReadFile;
using testing::Shell;
using testing::TempDir;

const std::string kConfig =
    "base: main\ntrailers:\n  required:\n    - key: Row\n    - key: AI-Assisted\n      values: [\"true\", "
    "\"false\"]\n";

// Commits kConfig as the repository's first commit, past any hook.
void CommitConfig(const GitRepo& repo) {
  repo.WriteFile(".vt-gate.yaml", kConfig);
  repo.Git("add .vt-gate.yaml");
  repo.Git("commit -q --no-verify -m " + Quote(GoodMessage("config")));
}

TEST(Hooks, RepositoryShimsAreWhatTheInstallerWrites) {
  for (const std::string& hook : ManagedHooks()) {
    fs::path shim = fs::path(VT_SOURCE_DIR) / "hooks" / hook;
    EXPECT_EQ(ReadFile(shim), HookShim(hook, "vt-gate")) << shim;
    EXPECT_EQ(Shell("sh -n " + Quote(shim.string())).status, 0);
    EXPECT_TRUE((fs::status(shim).permissions() & fs::perms::owner_exec) != fs::perms::none) << shim;
  }
}

// For every form: a hook that was there is kept and runs first, reinstalling never chains our own
// hook to itself, and uninstall gives the user's hook back.
TEST(Hooks, InstallChainsExistingHooksAndUninstallRestoresThem) {
  for (HookForm form : {HookForm::kInterpreter, HookForm::kShim, HookForm::kLink}) {
    GitRepo repo;
    fs::path hooks = fs::path(repo.path()) / ".git/hooks";
    fs::create_directories(hooks);
    std::string mine = "#!/bin/sh\necho my own hook\n";
    std::ofstream(hooks / "commit-msg") << mine;
    fs::permissions(hooks / "commit-msg", fs::perms::owner_all);

    Result<Repository> opened = Repository::Open(repo.path());
    ASSERT_TRUE(opened.ok());
    std::vector<std::string> log;
    ASSERT_TRUE(InstallHooks(opened.value(), "/opt/vt/vt-gate", &log, form).ok());
    EXPECT_EQ(ReadFile(hooks / "commit-msg.vt-gate-chained"), mine);
    switch (form) {
      case HookForm::kShim: EXPECT_EQ(ReadFile(hooks / "commit-msg"), HookShim("commit-msg", "/opt/vt/vt-gate")); break;
      case HookForm::kInterpreter:
        EXPECT_EQ(ReadFile(hooks / "commit-msg"), InterpreterHook("commit-msg", "/opt/vt/vt-gate"));
        break;
      case HookForm::kLink: EXPECT_EQ(fs::read_symlink(hooks / "commit-msg"), "/opt/vt/vt-gate"); break;
    }
    EXPECT_TRUE(fs::exists(hooks / "pre-commit") || fs::is_symlink(hooks / "pre-commit"));
    EXPECT_TRUE(fs::exists(hooks / "pre-push"));
    // Installing twice, in either form, must not chain our hook to itself.
    ASSERT_TRUE(InstallHooks(opened.value(), "/opt/vt/vt-gate", &log, form).ok());
    ASSERT_TRUE(InstallHooks(opened.value(), "/opt/vt/vt-gate", &log, HookForm::kShim).ok());
    ASSERT_TRUE(InstallHooks(opened.value(), "/opt/vt/vt-gate", &log, form).ok());
    EXPECT_EQ(ReadFile(hooks / "commit-msg.vt-gate-chained"), mine);

    ASSERT_TRUE(UninstallHooks(opened.value(), &log).ok());
    EXPECT_EQ(ReadFile(hooks / "commit-msg"), mine);
    EXPECT_FALSE(fs::exists(hooks / "commit-msg.vt-gate-chained"));
    EXPECT_FALSE(fs::exists(fs::symlink_status(hooks / "pre-commit")));
    EXPECT_FALSE(fs::exists(hooks / "pre-push"));
  }
}

TEST(Hooks, InstallHonoursCoreHooksPath) {
  GitRepo repo;
  repo.Git("config core.hooksPath githooks");
  Result<Repository> opened = Repository::Open(repo.path());
  ASSERT_TRUE(opened.ok());
  EXPECT_EQ(HooksDirectory(opened.value()), repo.path() + "/githooks");
  std::vector<std::string> log;
  ASSERT_TRUE(InstallHooks(opened.value(), "vt-gate", &log, HookForm::kShim).ok());
  EXPECT_TRUE(fs::exists(repo.path() + "/githooks/commit-msg"));
}

// Every end-to-end case runs with each form of `hooks install`: the default (commit-msg and pre-commit
// scripts whose #! line names the binary), `--shim` (sh shims) and `--direct` (links to the binary).
class HooksEndToEnd : public ::testing::TestWithParam<HookForm> {
 protected:
  void SetUp() override {
    CommitConfig(repo_);
    const char* flag = GetParam() == HookForm::kLink ? " --direct" : GetParam() == HookForm::kShim ? " --shim" : "";
    testing::CommandOutput r =
        Shell(std::string(VT_GATE_BINARY) + " --repo " + Quote(repo_.path()) + " hooks install" + flag);
    ASSERT_EQ(r.status, 0) << r.out;
    const fs::path hook = fs::path(repo_.path()) / ".git/hooks/commit-msg";
    ASSERT_EQ(fs::is_symlink(fs::symlink_status(hook)), GetParam() == HookForm::kLink);
    const std::string binary = fs::canonical(VT_GATE_BINARY).string();
    switch (GetParam()) {
      case HookForm::kLink: EXPECT_EQ(fs::canonical(hook), binary); break;
      case HookForm::kShim: EXPECT_EQ(ReadFile(hook), HookShim("commit-msg", binary)); break;
      case HookForm::kInterpreter: EXPECT_EQ(ReadFile(hook), InterpreterHook("commit-msg", binary)); break;
    }
  }
  testing::CommandOutput GitCommit(const std::string& message) {
    std::string name = "f";
    name += std::to_string(++n_);
    repo_.WriteFile(name, "x\n");
    repo_.Git("add -A");
    return Shell("git -C " + Quote(repo_.path()) + " commit -q -m " + Quote(message));
  }

  GitRepo repo_;
  int n_ = 0;
};

TEST_P(HooksEndToEnd, CommitMsgHookRejectsAndAccepts) {
  testing::CommandOutput bad = GitCommit("no trailers at all");
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.out.find("required:Row"), std::string::npos) << bad.out;
  testing::CommandOutput good = GitCommit(GoodMessage());
  EXPECT_EQ(good.status, 0) << good.out;
}

// A chained hook runs first and can veto, with a #! line or without one (a shell script to git and to
// the shim: every form runs it so).
TEST_P(HooksEndToEnd, ChainedHookRunsFirstAndCanVeto) {
  const fs::path chained = fs::path(repo_.path()) / ".git/hooks/commit-msg.vt-gate-chained";
  for (const std::string interpreter : {"#!/bin/sh\n", ""}) {
    std::ofstream(chained) << interpreter << "grep -q VETO \"$1\" && exit 1\nexit 0\n";
    fs::permissions(chained, fs::perms::owner_all);
    EXPECT_NE(GitCommit(GoodMessage("VETO this")).status, 0) << interpreter;
    EXPECT_EQ(GitCommit(GoodMessage("fine")).status, 0) << interpreter;
  }
}

TEST_P(HooksEndToEnd, PreCommitHookScansTheStagedChange) {
  repo_.WriteFile("merge.txt", "<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> x\n");
  repo_.Git("add merge.txt");
  testing::CommandOutput r = Shell("git -C " + Quote(repo_.path()) + " commit -q -m " + Quote(GoodMessage()));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("conflict-marker"), std::string::npos) << r.out;
}

TEST_P(HooksEndToEnd, PrePushHookChecksPushedCommitsAndAllowsDeletions) {
  TempDir remote_dir;
  std::string remote = remote_dir.path() + "/remote.git";
  ASSERT_EQ(Shell("git init -q --bare " + Quote(remote)).status, 0);
  repo_.Git("remote add origin " + Quote(remote));
  auto push = [&](const std::string& args) {
    return Shell("git -C " + Quote(repo_.path()) + " push -q " + args);
  };
  ASSERT_EQ(push("origin main").status, 0);
  repo_.Git("checkout -q -b topic");
  repo_.WriteFile("t", "t\n");
  repo_.Git("add t");
  repo_.Git("commit -q --no-verify -m 'sneaked past commit-msg'");
  testing::CommandOutput rejected = push("origin topic");
  EXPECT_NE(rejected.status, 0);
  EXPECT_NE(rejected.out.find("required:Row"), std::string::npos) << rejected.out;
  EXPECT_NE(Shell("git -C " + Quote(remote) + " rev-parse --verify -q refs/heads/topic").status, 0);

  repo_.Git("commit -q --amend --no-verify -m " + Quote(GoodMessage("fixed")));
  EXPECT_EQ(push("origin topic").status, 0);
  EXPECT_EQ(push("origin :topic").status, 0);
}

INSTANTIATE_TEST_SUITE_P(EveryForm, HooksEndToEnd,
                         ::testing::Values(HookForm::kInterpreter, HookForm::kShim, HookForm::kLink),
                         [](const ::testing::TestParamInfo<HookForm>& info) {
                           return info.param == HookForm::kInterpreter ? "Interpreter"
                                  : info.param == HookForm::kShim      ? "Shim"
                                                                       : "Direct";
                         });

// Whatever runs the hook file with a shell (`sh HOOK MSG`) gets the same check, not the comments (a
// link is the binary itself: no shell can run it).
TEST(Hooks, RunByAShellTheHookStillChecks) {
  for (HookForm form : {HookForm::kInterpreter, HookForm::kShim}) {
    GitRepo repo;
    repo.WriteFile(".vt-gate.yaml", kConfig);
    repo.WriteFile("bad-message", "no trailers at all\n");
    Result<Repository> opened = Repository::Open(repo.path());
    ASSERT_TRUE(opened.ok());
    std::vector<std::string> log;
    ASSERT_TRUE(InstallHooks(opened.value(), fs::canonical(VT_GATE_BINARY).string(), &log, form).ok());
    testing::CommandOutput r = Shell("cd " + Quote(repo.path()) + " && sh .git/hooks/commit-msg bad-message");
    EXPECT_NE(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("required:Row"), std::string::npos) << r.out;
  }
}

// Git runs a linked worktree's hooks from the common git dir: installed from inside a worktree, the
// hooks land there, and the worktree's commits are checked.
TEST(Hooks, InstalledFromAWorktreeTheHooksGoWhereGitRunsThem) {
  GitRepo repo;
  CommitConfig(repo);
  TempDir other;
  const std::string worktree = other.path() + "/wt";
  repo.Git("worktree add -q " + Quote(worktree));
  testing::CommandOutput r = Shell(std::string(VT_GATE_BINARY) + " --repo " + Quote(worktree) + " hooks install");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(fs::exists(fs::path(repo.path()) / ".git/hooks/commit-msg")) << r.out;
  std::ofstream(worktree + "/f") << "x\n";
  ASSERT_EQ(Shell("git -C " + Quote(worktree) + " add f").status, 0);
  testing::CommandOutput commit = Shell("git -C " + Quote(worktree) + " commit -q -m 'no trailers'");
  EXPECT_NE(commit.status, 0) << commit.out;
  EXPECT_NE(commit.out.find("required:Row"), std::string::npos) << commit.out;
}

// What each form does when the binary is gone from its installed path: the interpreter hook and the
// shim stop the commit (git cannot start the hook, or the shim cannot run the binary); git skips a
// dangling link as if there were no hook, and the commit lands unchecked.
TEST(Hooks, AMissingBinaryStopsTheCommitUnlessTheHookIsALink) {
  for (HookForm form : {HookForm::kInterpreter, HookForm::kShim, HookForm::kLink}) {
    GitRepo repo;
    CommitConfig(repo);
    TempDir bin;
    const std::string gone = bin.path() + "/vt-gate";  // never written
    Result<Repository> opened = Repository::Open(repo.path());
    ASSERT_TRUE(opened.ok());
    std::vector<std::string> log;
    ASSERT_TRUE(InstallHooks(opened.value(), gone, &log, form).ok());
    repo.WriteFile("f", "x\n");
    repo.Git("add f");
    testing::CommandOutput r = Shell("git -C " + Quote(repo.path()) + " commit -q -m 'no trailers'");
    if (form == HookForm::kLink) {
      EXPECT_EQ(r.status, 0) << "git runs no dangling link: " << r.out;
    } else {
      EXPECT_NE(r.status, 0) << r.out;
      EXPECT_EQ(Shell("git -C " + Quote(repo.path()) + " rev-list --count HEAD").out, "1\n") << "nothing landed";
    }
  }
}

// A relative path is refused; an absolute one the kernel cannot take after #! gets shims, and the log
// says so.
TEST(Hooks, AnInterpreterPathTheKernelCannotTakeGetsShims) {
  GitRepo repo;
  Result<Repository> opened = Repository::Open(repo.path());
  ASSERT_TRUE(opened.ok());
  fs::path hooks = fs::path(repo.path()) / ".git/hooks";
  EXPECT_EQ(InterpreterLine("/opt/vt/vt-gate"), "#!/opt/vt/vt-gate --hook");
  std::vector<std::string> refused;
  EXPECT_FALSE(InstallHooks(opened.value(), "vt-gate", &refused, HookForm::kInterpreter).ok()) << "a relative path";
  for (const std::string& path :
       {std::string("/opt/my tools/vt-gate"), "/" + std::string(kMaxInterpreterLine, 'd') + "/vt-gate"}) {
    EXPECT_EQ(InterpreterLine(path), "") << path;
    std::vector<std::string> log;
    ASSERT_TRUE(InstallHooks(opened.value(), path, &log, HookForm::kInterpreter).ok()) << path;
    EXPECT_EQ(ReadFile(hooks / "commit-msg"), HookShim("commit-msg", path)) << path;
    ASSERT_FALSE(log.empty());
    EXPECT_NE(log[0].find("installing shims"), std::string::npos) << log[0];
  }
}

// Reinstalling, either way, replaces a direct hook's link and never writes through it into the
// binary; uninstall removes the link and gives back the hook it chained.
TEST(Hooks, DirectLinksAreReplacedNotWrittenThrough) {
  GitRepo repo;
  TempDir bin;
  const std::string binary = bin.Write("vt-gate", "not really a binary\n");
  fs::path hooks = fs::path(repo.path()) / ".git/hooks";
  fs::create_directories(hooks);
  std::ofstream(hooks / "commit-msg") << "#!/bin/sh\nexit 0\n";
  Result<Repository> opened = Repository::Open(repo.path());
  ASSERT_TRUE(opened.ok());
  std::vector<std::string> log;
  EXPECT_FALSE(InstallHooks(opened.value(), "vt-gate", &log, HookForm::kLink).ok()) << "a relative path";
  ASSERT_TRUE(InstallHooks(opened.value(), binary, &log, HookForm::kLink).ok());
  EXPECT_EQ(fs::read_symlink(hooks / "commit-msg"), fs::path(binary));
  EXPECT_EQ(ReadFile(hooks / "commit-msg.vt-gate-chained"), "#!/bin/sh\nexit 0\n");
  EXPECT_FALSE(fs::is_symlink(hooks / "pre-push")) << "pre-push stays a shim";
  ASSERT_TRUE(InstallHooks(opened.value(), binary, &log, HookForm::kShim).ok());  // back to shims
  EXPECT_EQ(ReadFile(binary), "not really a binary\n");
  EXPECT_EQ(ReadFile(hooks / "commit-msg"), HookShim("commit-msg", binary));
  ASSERT_TRUE(InstallHooks(opened.value(), binary, &log, HookForm::kLink).ok());
  fs::remove(binary);  // a dangling link is still ours to remove
  ASSERT_TRUE(UninstallHooks(opened.value(), &log).ok());
  EXPECT_EQ(ReadFile(hooks / "commit-msg"), "#!/bin/sh\nexit 0\n");
  EXPECT_FALSE(fs::exists(hooks / "commit-msg.vt-gate-chained"));
}

}  // namespace
}  // namespace vt::gate
