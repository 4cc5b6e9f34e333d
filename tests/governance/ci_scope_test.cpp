// `vt-gate ci github` on real clones, with hand-written event payloads: CI
// checks the commits the event brings, not merge-base(base, HEAD)..HEAD (which
// on a push to the base is empty), and a pull request's title and body reach
// intake. Each test first shows what the plain preflight of the same clone
// saw (the hole), then what `ci github` sees.
#include <gtest/gtest.h>

#include <string>

#include "tests/governance/git_fixture.h"
#include "tests/governance/record_fixture.h"

namespace vt::gate {
namespace {

using testing::CommandOutput;
using testing::Quote;
using testing::RecordRepo;
using testing::Shell;
using testing::TempDir;

const std::string kZero(40, '0');
const std::string kGood = "work\n\nRow: APP-LIVE\n";
const std::string kNoRow = "work without a row\n";

// An upstream repository (the fixture's record on main) and CI's clone of it.
class CiGithub : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = upstream_.git().Head();
    // CI's base is the remote's main; trailers and intake are the gates under test.
    std::string config = RecordRepo::ConfigText();
    config.replace(config.find("base: main"), 10, "base: origin/main");
    config_ = dir_.Write("ci.yaml", config + "preflight:\n  gates: [trailers, intake]\n");
  }

  std::string Commit(const std::string& message) { return upstream_.git().Commit(message); }

  // Clones upstream as actions/checkout with fetch-depth 0 does (every branch
  // as refs/remotes/origin/*), HEAD detached at `sha`; `depth` > 0 is shallow.
  std::string Clone(const std::string& sha, int depth = 0) {
    std::string clone = dir_.path() + "/ci" + std::to_string(++clones_);
    std::string how = depth > 0 ? "--depth " + std::to_string(depth) + " --no-single-branch file://" : "";
    CommandOutput r = Shell("git clone -q " + how + Quote(upstream_.path()) +
                            " " + Quote(clone) + " && git -C " + Quote(clone) + " checkout -q " + sha);
    EXPECT_EQ(r.status, 0) << r.out;
    return clone;
  }

  std::string Event(const std::string& json) { return dir_.Write("event" + std::to_string(++events_) + ".json", json); }

  std::string PushEvent(const std::string& ref, const std::string& before, const std::string& after,
                        bool forced = false) {
    return Event("{\"ref\": \"" + ref + "\", \"before\": \"" + before + "\", \"after\": \"" + after +
                 "\", \"forced\": " + (forced ? "true" : "false") +
                 ", \"deleted\": false, \"repository\": {\"default_branch\": \"main\"}}");
  }

  std::string PullRequestEvent(int number, const std::string& base, const std::string& head, const std::string& body) {
    return Event("{\"number\": " + std::to_string(number) + ", \"pull_request\": {\"title\": \"Add the thing\", " +
                 "\"body\": \"" + body + "\", \"base\": {\"sha\": \"" + base + "\", \"ref\": \"main\"}, " +
                 "\"head\": {\"sha\": \"" + head + "\", \"ref\": \"feature\"}}}");
  }

  // Without the runner's own event: under GitHub Actions every step has GITHUB_EVENT_PATH and _NAME.
  CommandOutput Gate(const std::string& clone, const std::string& args) {
    return Shell("env -u GITHUB_EVENT_PATH -u GITHUB_EVENT_NAME " + std::string(VT_GATE_BINARY) + " --repo " + Quote(clone) + " --config " + Quote(config_) + " " +
                 args);
  }

  CommandOutput Ci(const std::string& clone, const std::string& name, const std::string& event,
                   const std::string& extra = "") {
    return Gate(clone, "ci github --event-name " + name + " --event " + Quote(event) + extra);
  }

  RecordRepo upstream_;
  TempDir dir_;
  std::string root_;
  std::string config_;
  int clones_ = 0;
  int events_ = 0;
};

bool Has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

TEST_F(CiGithub, PushToTheBaseChecksThePushedCommits) {
  std::string bad = Commit(kNoRow);
  std::string clone = Clone(bad);
  // The hole: the base is origin/main, which the push already moved to HEAD.
  CommandOutput plain = Gate(clone, "preflight");
  EXPECT_EQ(plain.status, 0) << plain.out;
  EXPECT_TRUE(Has(plain.out, "0 commits in")) << plain.out;

  CommandOutput ci = Ci(clone, "push", PushEvent("refs/heads/main", root_, bad));
  EXPECT_EQ(ci.status, 1) << ci.out;
  EXPECT_TRUE(Has(ci.out, root_.substr(0, 12) + ".." + bad.substr(0, 12) + ", push to refs/heads/main")) << ci.out;
  EXPECT_TRUE(Has(ci.out, "required:Row")) << ci.out;
  EXPECT_TRUE(Has(ci.out, bad.substr(0, 12))) << ci.out;
}

TEST_F(CiGithub, PushedCommitMessagesReachIntake) {
  std::string wrong_row = Commit("work\n\nRefs #1\n\nRow: APP-LIVE\n");  // #1 belongs to APP-DONE
  std::string clone = Clone(wrong_row);
  EXPECT_EQ(Gate(clone, "preflight").status, 0);
  CommandOutput ci = Ci(clone, "push", PushEvent("refs/heads/main", root_, wrong_row));
  EXPECT_EQ(ci.status, 1) << ci.out;
  EXPECT_TRUE(Has(ci.out, "intake-mismatch")) << ci.out;
}

TEST_F(CiGithub, NewBranchChecksTheCommitsNotOnTheDefaultBranch) {
  upstream_.git().Git("checkout -q -b feature");
  Commit(kGood);
  std::string tip = Commit(kNoRow);
  std::string clone = Clone(tip);
  CommandOutput ci = Ci(clone, "push", PushEvent("refs/heads/feature", kZero, tip));
  EXPECT_EQ(ci.status, 1) << ci.out;
  EXPECT_TRUE(Has(ci.out, "not on origin/main")) << ci.out;
  EXPECT_TRUE(Has(ci.out, "a new ref")) << ci.out;
  EXPECT_TRUE(Has(ci.out, "(2 commits in")) << ci.out;
}

TEST_F(CiGithub, AnotherRefOfTheSamePushDoesNotHideItsCommits) {
  // `git push origin HEAD:a HEAD:b` is one push, two events: by the time the
  // run for `a` clones, origin/b has the same commits. They are still new.
  upstream_.git().Git("checkout -q -b a");
  std::string tip = Commit(kNoRow);
  upstream_.git().Git("branch b");
  std::string clone = Clone(tip);
  CommandOutput ci = Ci(clone, "push", PushEvent("refs/heads/a", kZero, tip));
  EXPECT_EQ(ci.status, 1) << ci.out;
  EXPECT_TRUE(Has(ci.out, "(1 commit")) << ci.out;
}

TEST_F(CiGithub, ForcePushWhoseOldTipIsGoneChecksWhatIsNotOnTheDefaultBranch) {
  upstream_.git().Git("checkout -q -b feature");
  std::string tip = Commit(kNoRow);
  std::string clone = Clone(tip);
  std::string vanished = "1234567890abcdef1234567890abcdef12345678";
  CommandOutput ci = Ci(clone, "push", PushEvent("refs/heads/feature", vanished, tip, true));
  EXPECT_EQ(ci.status, 1) << ci.out;
  EXPECT_TRUE(Has(ci.out, "(forced)")) << ci.out;
  EXPECT_TRUE(Has(ci.out, "its old tip 1234567890ab is not in this clone")) << ci.out;
}

TEST_F(CiGithub, ForcePushWhoseOldTipIsKnownChecksOnlyTheRewrittenCommits) {
  upstream_.git().Git("checkout -q -b feature");
  std::string old_tip = Commit(kNoRow);
  upstream_.git().Git("tag old " + old_tip);  // keeps the old tip in the clone
  upstream_.git().Git("reset -q --hard " + root_);
  std::string tip = Commit(kGood);
  std::string clone = Clone(tip);
  CommandOutput ci = Ci(clone, "push", PushEvent("refs/heads/feature", old_tip, tip, true));
  EXPECT_EQ(ci.status, 0) << ci.out;
  EXPECT_TRUE(Has(ci.out, " 1 commits in")) << ci.out;
}

TEST_F(CiGithub, ADeletionPushesNothing) {
  std::string clone = Clone(root_);
  std::string event = Event("{\"ref\": \"refs/heads/gone\", \"before\": \"" + root_ + "\", \"after\": \"" + kZero +
                            "\", \"deleted\": true}");
  CommandOutput ci = Ci(clone, "push", event);
  EXPECT_EQ(ci.status, 0) << ci.out;
  EXPECT_TRUE(Has(ci.out, "deletes refs/heads/gone")) << ci.out;
}

TEST_F(CiGithub, AShallowCloneThatCutsThePushIsNeverGreen) {
  Commit(kGood);
  std::string tip = Commit(kGood);
  std::string shallow = Clone(tip, 1);
  CommandOutput ci = Ci(shallow, "push", PushEvent("refs/heads/main", root_, tip));
  EXPECT_EQ(ci.status, 3) << ci.out;
  EXPECT_TRUE(Has(ci.out, "shallow clone")) << ci.out;
  // Deep enough to hold the old tip: the two pushed commits are checked.
  CommandOutput deep = Ci(Clone(tip, 3), "push", PushEvent("refs/heads/main", root_, tip));
  EXPECT_EQ(deep.status, 0) << deep.out;
  EXPECT_TRUE(Has(deep.out, " 2 commits in")) << deep.out;
}

TEST_F(CiGithub, PullRequestBodyReachesIntakeAndItsCommitsReachTrailers) {
  upstream_.git().Git("checkout -q -b feature");
  std::string head = Commit(kGood);
  upstream_.git().Git("checkout -q main");
  std::string clone = Clone(head);
  // The hole: without the body, the plain preflight sees only good commits.
  EXPECT_EQ(Gate(clone, "preflight").status, 0);
  // GitHub stores the body with CRLF line ends; #1 belongs to APP-DONE.
  CommandOutput wrong = Ci(clone, "pull_request", PullRequestEvent(7, root_, head, "Closes #1\\r\\n\\r\\nRow: APP-LIVE\\r\\n"));
  EXPECT_EQ(wrong.status, 1) << wrong.out;
  EXPECT_TRUE(Has(wrong.out, "intake-mismatch")) << wrong.out;
  EXPECT_TRUE(Has(wrong.out, "pull request #7")) << wrong.out;

  CommandOutput right = Ci(clone, "pull_request", PullRequestEvent(7, root_, head, "Closes #2\\r\\n\\r\\nRow: APP-LIVE\\r\\n"));
  EXPECT_EQ(right.status, 0) << right.out;
  EXPECT_TRUE(Has(right.out, " 1 commits in")) << right.out;

  upstream_.git().Git("checkout -q feature");
  std::string bad = Commit(kNoRow);
  CommandOutput bad_commit =
      Ci(Clone(bad), "pull_request", PullRequestEvent(7, root_, bad, "Closes #2\\r\\n\\r\\nRow: APP-LIVE\\r\\n"));
  EXPECT_EQ(bad_commit.status, 1) << bad_commit.out;
  EXPECT_TRUE(Has(bad_commit.out, "required:Row")) << bad_commit.out;
}

// record, intake and rows read the checkout: `pull_request_target` checks out the base by default,
// whose record is fine while the head breaks an anchor. Only the event's commit, or the merge of
// its head into its base (actions/checkout's for a pull request), is checked; anything else is
// "not verified", naming both commits.
TEST_F(CiGithub, ACheckoutThatIsNotTheEventsCommitIsNeverGreen) {
  config_ = dir_.Write("record.yaml", std::string(RecordRepo::ConfigText()).replace(0, 10, "base: origin/main") +
                                          "preflight:\n  gates: [trailers, record, intake]\n");
  upstream_.git().Git("checkout -q -b feature");
  upstream_.Write("src/engine.cpp", "// engine, now too short for its anchors\n");
  upstream_.git().Git("add -A");
  std::string head = Commit(kGood);
  upstream_.git().Git("checkout -q main");
  const std::string event = PullRequestEvent(7, root_, head, "Closes #2\\r\\n\\r\\nRow: APP-LIVE\\r\\n");

  std::string base_checkout = Clone(root_);
  CommandOutput ci = Ci(base_checkout, "pull_request_target", event);
  EXPECT_EQ(ci.status, 3) << ci.out;
  EXPECT_TRUE(Has(ci.out, "NOT VERIFIED")) << ci.out;
  EXPECT_TRUE(Has(ci.out, "HEAD " + root_)) << ci.out;
  EXPECT_TRUE(Has(ci.out, "event's commit " + head)) << ci.out;

  CommandOutput at_head = Ci(Clone(head), "pull_request_target", event);
  EXPECT_EQ(at_head.status, 1) << at_head.out;
  EXPECT_TRUE(Has(at_head.out, "anchor")) << at_head.out;

  // GitHub's merge of the head into `base`, checked out: checked, so red on the broken anchor.
  auto expect_merge_checked = [&](const std::string& base) {
    std::string merged = Clone(base);
    ASSERT_EQ(Shell("git -C " + Quote(merged) + " -c user.name=Ada -c user.email=ada@example.org merge -q --no-ff "
                    "--no-verify -m merge " + head).status, 0);
    CommandOutput at_merge = Ci(merged, "pull_request", event);
    EXPECT_EQ(at_merge.status, 1) << at_merge.out;
    EXPECT_TRUE(Has(at_merge.out, "anchor")) << at_merge.out;
  };
  expect_merge_checked(root_);
  // The base branch moved after the event: GitHub's merge has the newer base as its first parent
  // while the payload still names the old one. Still that merge, so still checked, not refused.
  upstream_.Write("docs/later.md", "later\n");
  upstream_.git().Git("add -A");
  expect_merge_checked(Commit(kGood));
}

TEST_F(CiGithub, UsageErrorsAndUnknownCommits) {
  std::string clone = Clone(root_);
  CommandOutput no_event = Gate(clone, "ci github");
  EXPECT_EQ(no_event.status, 2) << no_event.out;
  EXPECT_TRUE(Has(no_event.out, "GITHUB_EVENT_PATH")) << no_event.out;
  EXPECT_EQ(Ci(clone, "push", Event("{\"ref\": 3}")).status, 2);
  EXPECT_EQ(Ci(clone, "push", Event("not json")).status, 2);
  EXPECT_EQ(Ci(clone, "push", PushEvent("refs/heads/main", root_, root_), " --except nosuchgate").status, 2);
  // A pushed commit the clone lacks: could not verify.
  CommandOutput missing = Ci(clone, "push", PushEvent("refs/heads/main", root_, std::string(40, 'a')));
  EXPECT_EQ(missing.status, 3) << missing.out;
  EXPECT_TRUE(Has(missing.out, "is not in this clone")) << missing.out;
  // An event that names no change runs the configured gates on the configured base.
  CommandOutput other = Ci(clone, "workflow_dispatch", Event("{}"));
  EXPECT_EQ(other.status, 0) << other.out;
  EXPECT_TRUE(Has(other.out, "names no change")) << other.out;
  // --except leaves a gate to another job.
  CommandOutput except = Ci(clone, "push", PushEvent("refs/heads/main", root_, root_), " --except intake");
  EXPECT_EQ(except.status, 0) << except.out;
  EXPECT_FALSE(Has(except.out, "intake")) << except.out;
}

}  // namespace
}  // namespace vt::gate
