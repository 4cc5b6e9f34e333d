// Range walks on real repositories with merges, criss-cross merges and clock
// skew, against two oracles: the git CLI (`git rev-list`, `git merge-base`)
// for which commits a range holds and where it starts, and libgit2's own
// topological revwalk for the order the gates have always visited them in.
#include "governance/git_range.h"

#include <git2.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <sstream>

#include "tests/governance/git_fixture.h"

namespace vt::gate {
namespace {

using testing::GitRepo;
using testing::Quote;
using testing::Shell;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

git_oid Oid(const std::string& hex) {
  git_oid oid;
  EXPECT_EQ(git_oid_fromstr(&oid, hex.c_str()), 0) << hex;
  return oid;
}

// Commits and merges with chosen committer dates, so a history can have the
// dates real ones have: increasing, equal, and sometimes going backwards.
class History {
 public:
  explicit History(GitRepo& repo) : repo_(repo) {}

  std::string Commit(const std::string& message, long date) {
    Run("commit --allow-empty -q -m " + Quote(message), date);
    return repo_.Head();
  }
  std::string Merge(const std::string& branch, long date) {
    Run("merge -q --no-ff --no-edit " + branch, date);
    return repo_.Head();
  }

 private:
  void Run(const std::string& args, long date) {
    std::string stamp = "@" + std::to_string(date) + " +0000";
    testing::CommandOutput r = Shell("cd " + Quote(repo_.path()) + " && GIT_COMMITTER_DATE=" + Quote(stamp) +
                                     " GIT_AUTHOR_DATE=" + Quote(stamp) + " git " + args);
    ASSERT_EQ(r.status, 0) << args << ": " << r.out;
  }
  GitRepo& repo_;
};

std::vector<std::string> Walked(const Repository& repo, const CommitRange& range, const WalkOptions& options,
                                Result<git_oid>* start) {
  std::vector<std::string> ids;
  *start = WalkRange(repo, range, options, [&](const WalkedCommit& c) {
    ids.push_back(OidHex(c.id()));
    return true;
  });
  return ids;
}

// The order the gates visited commits in before the walk was their own:
// libgit2's topological revwalk of head hiding the merge base.
std::vector<std::string> LibgitTopological(const Repository& repo, const std::string& merge_base,
                                           const std::string& head) {
  git_revwalk* walk = nullptr;
  EXPECT_EQ(git_revwalk_new(&walk, repo.raw()), 0);
  git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL);
  git_oid tip = Oid(head), hidden = Oid(merge_base);
  EXPECT_EQ(git_revwalk_push(walk, &tip), 0);
  EXPECT_EQ(git_revwalk_hide(walk, &hidden), 0);
  std::vector<std::string> ids;
  git_oid oid;
  while (git_revwalk_next(&oid, walk) == 0) ids.push_back(OidHex(oid));
  git_revwalk_free(walk);
  return ids;
}

// Every ordered pair of `tips` as base..head: the commits match `git
// rev-list`, the start matches `git merge-base`, and the order matches
// libgit2's topological walk; first parents match `git rev-list
// --first-parent`. Returns how many pairs had more than one merge base.
int CheckEveryPair(const GitRepo& git, const std::vector<std::string>& tips) {
  Result<Repository> repo = Repository::Open(git.path());
  EXPECT_TRUE(repo.ok()) << repo.status().message();
  int criss_cross = 0;
  for (const std::string& base : tips) {
    for (const std::string& head : tips) {
      SCOPED_TRACE(base.substr(0, 8) + ".." + head.substr(0, 8));
      Result<CommitRange> range = ResolveRange(repo.value(), Oid(base), head);
      EXPECT_TRUE(range.ok()) << range.status().message();
      std::vector<std::string> bases = Lines(git.Git("merge-base --all " + base + " " + head));
      Result<git_oid> start = Unavailable("not walked");
      std::vector<std::string> all = Walked(repo.value(), range.value(), {}, &start);
      EXPECT_EQ(Sorted(all), Sorted(Lines(git.Git("rev-list " + base + ".." + head))));
      EXPECT_TRUE(start.ok()) << start.status().message();
      if (!start.ok()) continue;
      if (bases.size() == 1) {
        EXPECT_EQ(OidHex(start.value()), bases[0]);
        EXPECT_EQ(all, LibgitTopological(repo.value(), bases[0], head));
      } else {
        ++criss_cross;
        Result<git_oid> libgit_pick = MergeBase(repo.value(), Oid(base), Oid(head));
        EXPECT_TRUE(libgit_pick.ok());
        if (libgit_pick.ok()) {
          EXPECT_EQ(OidHex(start.value()), OidHex(libgit_pick.value()));
        }
      }
      WalkOptions first_parent;
      first_parent.first_parent = true;
      std::vector<std::string> chain = Walked(repo.value(), range.value(), first_parent, &start);
      EXPECT_TRUE(start.ok()) << start.status().message();
      EXPECT_EQ(chain, Lines(git.Git("rev-list --first-parent " + base + ".." + head)));
    }
  }
  return criss_cross;
}

TEST(GitRange, RangesOfAMergeHeavyHistoryMatchGit) {
  GitRepo git;
  History history(git);
  std::mt19937 random(20);
  long date = 1'700'000'000;
  std::vector<std::string> branches = {"main", "a", "b", "c"};
  history.Commit("root", date);
  for (size_t i = 1; i < branches.size(); ++i) git.Git("branch " + branches[i]);
  std::vector<std::string> tips;
  for (int step = 0; step < 120; ++step) {
    // Mostly forward in time, sometimes the same second, sometimes a clock
    // running a little behind (a child older than its parent).
    int pick = static_cast<int>(random() % 10);
    date += pick < 7 ? 60 : pick < 9 ? 0 : -150;
    std::string branch = branches[random() % branches.size()];
    git.Git("checkout -q " + branch);
    if (random() % 3 == 0) {
      std::string other = branches[random() % branches.size()];
      if (other != branch && git.Git("rev-list --count " + branch + ".." + other) != "0") {
        history.Merge(other, date);
        continue;
      }
    }
    std::string id = history.Commit("change " + std::to_string(step), date);
    if (step % 15 == 0) tips.push_back(id);
  }
  for (const std::string& branch : branches) tips.push_back(git.Git("rev-parse " + branch));
  CheckEveryPair(git, tips);
}

// Two branches merging each other at once: base and head have two merge
// bases. The range is what git log base..head shows, and where it starts is
// the merge base git_merge_base picks.
TEST(GitRange, CrissCrossMergesStartAtTheMergeBaseLibgit2Picks) {
  GitRepo git;
  History history(git);
  history.Commit("root", 1'700'000'000);
  git.Git("branch side");
  std::string x = history.Commit("x on main", 1'700'000'100);
  git.Git("checkout -q side");
  std::string y = history.Commit("y on side", 1'700'000'200);
  history.Merge(x, 1'700'000'300);
  history.Commit("more side", 1'700'000'400);
  git.Git("checkout -q main");
  history.Merge(y, 1'700'000'500);
  history.Commit("more main", 1'700'000'600);
  ASSERT_EQ(Lines(git.Git("merge-base --all main side")).size(), 2u);
  EXPECT_EQ(CheckEveryPair(git, {git.Git("rev-parse main"), git.Git("rev-parse side")}), 2);
}

TEST(GitRange, UnrelatedHistoriesVisitNothing) {
  GitRepo git;
  History history(git);
  std::string base = history.Commit("root", 1'700'000'000);
  git.Git("checkout -q --orphan other");
  history.Commit("another root", 1'700'000'100);
  std::string head = history.Commit("on it", 1'700'000'200);
  Result<Repository> repo = Repository::Open(git.path());
  ASSERT_TRUE(repo.ok());
  Result<CommitRange> range = ResolveRange(repo.value(), Oid(base), head);
  ASSERT_TRUE(range.ok());
  for (bool first_parent : {false, true}) {
    WalkOptions options;
    options.first_parent = first_parent;
    Result<git_oid> start = Unavailable("not walked");
    EXPECT_TRUE(Walked(repo.value(), range.value(), options, &start).empty());
    EXPECT_EQ(start.status().code(), StatusCode::kUnavailable);
    EXPECT_NE(start.status().message().find("unrelated histories"), std::string::npos) << start.status().message();
  }
}

// A floor (the cutover) above the merge base stops the walk first; the range
// still starts at the merge base, and holds only what is above the floor.
TEST(GitRange, AFloorAboveTheMergeBaseCutsTheRangeNotItsStart) {
  GitRepo git;
  History history(git);
  std::string root = history.Commit("root", 1'700'000'000);
  git.Git("checkout -q -b feature");
  history.Commit("one", 1'700'000'100);
  std::string floor = history.Commit("two", 1'700'000'200);
  history.Commit("three", 1'700'000'300);
  std::string head = history.Commit("four", 1'700'000'400);
  Result<Repository> repo = Repository::Open(git.path());
  ASSERT_TRUE(repo.ok());
  Result<CommitRange> range = ResolveRange(repo.value(), Oid(root), head);
  ASSERT_TRUE(range.ok());
  WalkOptions options;
  options.floor = Oid(floor);
  Result<git_oid> start = Unavailable("not walked");
  EXPECT_EQ(Walked(repo.value(), range.value(), options, &start),
            Lines(git.Git("rev-list " + root + ".." + head + " ^" + floor)));
  ASSERT_TRUE(start.ok()) << start.status().message();
  EXPECT_EQ(OidHex(start.value()), root);
}

TEST(GitRange, AHeadTheBaseAlreadyHasIsAnEmptyRangeStartingAtIt) {
  GitRepo git;
  History history(git);
  std::string old = history.Commit("old", 1'700'000'000);
  std::string base = history.Commit("new", 1'700'000'100);
  Result<Repository> repo = Repository::Open(git.path());
  ASSERT_TRUE(repo.ok());
  Result<CommitRange> range = ResolveRange(repo.value(), Oid(base), old);
  ASSERT_TRUE(range.ok());
  Result<git_oid> start = Unavailable("not walked");
  EXPECT_TRUE(Walked(repo.value(), range.value(), {}, &start).empty());
  ASSERT_TRUE(start.ok()) << start.status().message();
  EXPECT_EQ(OidHex(start.value()), old);
}

// Dates far out of order: the base is a descendant of the head, but every
// commit above the head is dated long before it, so the walk (like git log)
// gives up before the base's history reaches the head and meets no hidden
// commit. That is not "unrelated": the range is empty, as merge-base..head
// always said.
TEST(GitRange, DatesThatHideTheBaseFromTheWalkAreNotUnrelatedHistories) {
  GitRepo git;
  History history(git);
  history.Commit("root", 1'700'000'000);
  std::string head = history.Commit("head", 1'700'001'000);
  std::string base;
  for (int i = 0; i < 12; ++i) base = history.Commit("dated long ago " + std::to_string(i), 1'600'000'000 - i);
  Result<Repository> repo = Repository::Open(git.path());
  ASSERT_TRUE(repo.ok());
  Result<CommitRange> range = ResolveRange(repo.value(), Oid(base), head);
  ASSERT_TRUE(range.ok());
  for (bool first_parent : {false, true}) {
    WalkOptions options;
    options.first_parent = first_parent;
    Result<git_oid> start = Unavailable("not walked");
    EXPECT_TRUE(Walked(repo.value(), range.value(), options, &start).empty());
    ASSERT_TRUE(start.ok()) << start.status().message();
    EXPECT_EQ(OidHex(start.value()), head);
  }
}

}  // namespace
}  // namespace vt::gate
