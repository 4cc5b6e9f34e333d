// WalkedCommit parses commits itself on the walks' hot path; libgit2's
// git_commit_lookup is the oracle for every field it reads, on commit objects
// written byte for byte (git hash-object --literally), awkward ones included.
#include "governance/walked_commit.h"

#include <git2.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/governance/git_fixture.h"

namespace vt::gate {
namespace {

using testing::GitRepo;
using testing::Quote;

class WalkedCommitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_.Commit("first\n");
    tree_ = repo_.Git("rev-parse HEAD^{tree}");
    parent_ = repo_.Head();
  }

  // Writes `body` as a commit object as it is and returns its id.
  std::string Write(const std::string& body) {
    testing::TempDir scratch;
    std::string file = scratch.Write("commit", body);
    return repo_.Git("hash-object -t commit -w --literally " + Quote(file));
  }

  std::string Header(const std::string& parents) const {
    return "tree " + tree_ + "\n" + parents + "author Ada <ada@example.org> 1700000000 +0100\n" +
           "committer Bob <bob@example.org> 1700000123 -0200\n";
  }

  // Every field WalkedCommit reads equals libgit2's, or both fail.
  void ExpectSameAsLibgit2(const std::string& hex) {
    SCOPED_TRACE(hex);
    Result<Repository> repo = Repository::Open(repo_.path());
    ASSERT_TRUE(repo.ok()) << repo.status().message();
    git_oid oid;
    ASSERT_EQ(git_oid_fromstr(&oid, hex.c_str()), 0);
    git_commit* oracle = nullptr;
    int rc = git_commit_lookup(&oracle, repo->raw(), &oid);
    Result<WalkedCommit> walked = WalkedCommit::Read(repo.value(), oid, /*author=*/true);
    ASSERT_EQ(walked.ok(), rc == 0) << (walked.ok() ? "" : walked.status().message());
    if (rc != 0) return;
    EXPECT_TRUE(git_oid_equal(&walked->id(), git_commit_id(oracle)));
    EXPECT_EQ(walked->time(), git_commit_time(oracle));
    ASSERT_EQ(walked->parent_count(), git_commit_parentcount(oracle));
    for (unsigned i = 0; i < walked->parent_count(); ++i)
      EXPECT_TRUE(git_oid_equal(&walked->parent(i), git_commit_parent_id(oracle, i)));
    EXPECT_EQ(walked->message(), std::string_view(git_commit_message(oracle)));
    const char* encoding = git_commit_message_encoding(oracle);
    ASSERT_EQ(walked->encoding() == nullptr, encoding == nullptr);
    if (encoding) {
      EXPECT_STREQ(walked->encoding(), encoding);
    }
    git_commit* full = walked->Full();
    ASSERT_NE(full, nullptr);
    EXPECT_TRUE(git_oid_equal(git_commit_id(full), git_commit_id(oracle)));
    EXPECT_STREQ(git_commit_author(full)->email, git_commit_author(oracle)->email);
    EXPECT_EQ(walked->author(), SignatureText(git_commit_author(oracle)));
    git_commit_free(oracle);
  }

  GitRepo repo_;
  std::string tree_;
  std::string parent_;
};

TEST_F(WalkedCommitTest, ReadsWhatLibgit2Reads) {
  const std::string p = "parent " + parent_ + "\n";
  std::vector<std::string> bodies = {
      Header(p) + "\nsubject\n\nbody\n\nRow: X-Y\n",
      Header("") + "\nroot commit\n",
      Header(p + p) + "\nmerge\n",
      Header(p) + "encoding ISO-8859-1\n\nLatin-1 \xe9t\xe9\n",
      Header(p) + "encoding first\nencoding second\n\ntwo encodings: the last counts\n",
      Header(p) + "gpgsig -----BEGIN PGP SIGNATURE-----\n \n abc\n -----END PGP SIGNATURE-----\n\nsigned\n",
      Header(p) + "\n\n\nleading newlines\n",
      Header(p) + std::string("\nNUL\0after\n", 11),
      Header(p),                       // no message, no blank line
      Header(p) + "\n",                // an empty message
      Header(p) + "mergetag object x\n type commit\n\nextra header\n",
      Header("parent " + std::string(40, 'A') + "\n") + "\nupper-case parent id\n",
      // Authors as libgit2 splits them: blanks trimmed, the email in the last <...>, no name.
      "tree " + tree_ + "\n" + p + "author  Ada  Lovelace \t<\tada@x > 1 +0000\ncommitter C <c@x> 3 +0000\n\nblanks\n",
      "tree " + tree_ + "\n" + p + "author A <b> <c@x> 1 +0000\ncommitter C <c@x> 3 +0000\n\ntwo brackets\n",
      "tree " + tree_ + "\n" + p + "author <a@x> 1 +0000\ncommitter C <c@x> 3 +0000\n\nno name\n",
      "tree " + tree_ + "\n" + p + "author \"J. R. Doe, Jr.\" <'.jd@x;'> 1 +0000\ncommitter C <c@x> 3 +0000\n\ncrud\n",
      "tree " + tree_ + "\n" + p + "author dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com> 1 +0000\n" +
          "committer C <c@x> 3 +0000\n\na bot\n",
      // Left to libgit2: a second author line, no time, a name with '>' in it, odd times.
      "tree " + tree_ + "\n" + p + "author A <a@x> 1 +0000\nauthor B <b@x> 2 +0000\n" +
          "committer C <c@x> 3 +0000\n\ntwo authors\n",
      "tree " + tree_ + "\n" + p + "author A <a@x> 1 +0000\ncommitter C <c@x>\n\nno committer time\n",
      "tree " + tree_ + "\n" + p + "author A <a@x> 1 +0000\ncommitter C <c@x>  77 +0000\n\ntwo blanks\n",
      "tree " + tree_ + "\n" + p + "author A <a@x> 1 +0000\ncommitter C> <c@x> 99 +0000\n\nodd name\n",
      "tree " + tree_ + "\n" + p + "author A <a@x> 1 +0000\ncommitter C <c@x> -5 +0000\n\nnegative time\n",
      "tree " + tree_ + "\n" + p + "author A <a@x> 1 +0000\ncommitter C <c@x> 99999999999999999999 +0000\n\nhuge\n",
      // Malformed: both refuse.
      "tree " + tree_ + "\n" + p + "author A <a@x> 1 +0000\n\nno committer\n",
      "tree " + tree_ + "\nparent nothex\nauthor A <a@x> 1 +0000\ncommitter C <c@x> 3 +0000\n\nbad parent\n",
      "tree " + tree_ + "\n" + p + "author A a@x 1 +0000\ncommitter C <c@x> 3 +0000\n\nno email\n",
  };
  for (const std::string& body : bodies) ExpectSameAsLibgit2(Write(body));
}

TEST_F(WalkedCommitTest, ABorrowedCommitStaysTheCallers) {
  Result<Repository> repo = Repository::Open(repo_.path());
  ASSERT_TRUE(repo.ok());
  git_oid oid;
  ASSERT_EQ(git_oid_fromstr(&oid, parent_.c_str()), 0);
  git_commit* commit = nullptr;
  ASSERT_EQ(git_commit_lookup(&commit, repo->raw(), &oid), 0);
  {
    WalkedCommit borrowed = WalkedCommit::Borrow(commit);
    WalkedCommit moved = std::move(borrowed);
    EXPECT_EQ(moved.Full(), commit);
    EXPECT_EQ(moved.message(), "first\n");
  }
  EXPECT_STREQ(git_commit_message(commit), "first\n");  // still alive
  git_commit_free(commit);
}

}  // namespace
}  // namespace vt::gate
