// Parser details the corpus does not reach: line numbers, configured trailers
// (checked against git with the same config), comment characters, the
// missing-block diagnostics, and git's message cleanup.
#include "governance/trailer_parser.h"

#include <gtest/gtest.h>

#include "governance/message_cleanup.h"
#include "tests/governance/git_fixture.h"

namespace vt::gate {
namespace {

using testing::Quote;
using testing::Shell;

TEST(TrailerParser, ReportsKeyLinesAndBlockRange) {
  TrailerBlock block = ParseTrailers("Title\n\nbody\n\nRow: none\nKey: a\n  b\nLast: z\n");
  ASSERT_TRUE(block.found);
  EXPECT_EQ(block.first_line, 5);
  EXPECT_EQ(block.last_line, 8);
  ASSERT_EQ(block.trailers.size(), 3u);
  EXPECT_EQ(block.trailers[1].key, "Key");
  EXPECT_EQ(block.trailers[1].value, "a b");
  EXPECT_EQ(block.trailers[1].line, 6);
  EXPECT_EQ(block.trailers[2].line, 8);
}

// A configured trailer makes a 25% paragraph a block and renames a token that
// prefixes it, exactly as git does with the same configuration.
TEST(TrailerParser, ConfiguredTrailersMatchGit) {
  testing::TempDir dir;
  std::string message = "Title\n\nprose\nmore prose\nprose again\nack: Bob <b@example.org>\n";
  std::string file = dir.Write("msg", message);
  testing::CommandOutput git =
      Shell("git -c trailer.ack.key=Acked-by interpret-trailers --parse < " + Quote(file), false);
  ASSERT_EQ(git.status, 0);
  EXPECT_EQ(git.out, "Acked-by: Bob <b@example.org>\n");

  TrailerSyntax syntax;
  syntax.configured.push_back({"ack", "Acked-by"});
  TrailerBlock block = ParseTrailers(message, syntax);
  ASSERT_EQ(block.trailers.size(), 1u);
  EXPECT_EQ(block.trailers[0].key + ": " + block.trailers[0].value + "\n", git.out);
  EXPECT_FALSE(ParseTrailers(message).found);
}

TEST(TrailerParser, CustomCommentCharMatchesGit) {
  testing::TempDir dir;
  std::string message = "Title\n\nRow: none\n; comment\nAI-Assisted: true\n\n; trailing\n";
  std::string file = dir.Write("msg", message);
  testing::CommandOutput git =
      Shell("git -c core.commentChar=';' interpret-trailers --parse < " + Quote(file), false);
  TrailerSyntax syntax;
  syntax.comment_char = ';';
  std::string ours;
  for (const Trailer& t : ParseTrailers(message, syntax).trailers) ours += t.key + ": " + t.value + "\n";
  EXPECT_EQ(ours, git.out);
  EXPECT_EQ(ours, "Row: none\nAI-Assisted: true\n");
}

// git 2.39 never returns on this message (its scissors search runs past the
// patch divider's end of the message), so git cannot be the oracle; newer git
// ignores a scissors line below the divider, and so does vt-gate, at once.
TEST(TrailerParser, ScissorsBelowADividerEndsNothing) {
  TrailerBlock block = ParseTrailers(
      "T\n\nbody\n\nRow: none\n--- a/file\nmore\n# ------------------------ >8 ------------------------\n"
      "Row: AFTER-SCISSORS\n");
  ASSERT_EQ(block.trailers.size(), 1u);
  EXPECT_EQ(block.trailers[0].value, "none");
  EXPECT_EQ(block.last_line, 5);
}

TEST(TrailerParser, DiagnosesEachWayABlockGoesMissing) {
  EXPECT_EQ(DiagnoseMissingTrailerBlock("T\n\nRow: none\n").reason, "");
  EXPECT_NE(DiagnoseMissingTrailerBlock("Row: none\n").reason.find("first paragraph"), std::string::npos);
  EXPECT_NE(DiagnoseMissingTrailerBlock("").reason.find("empty"), std::string::npos);
  EXPECT_NE(DiagnoseMissingTrailerBlock("T\n\njust prose\n").reason.find("no `Key: value`"),
            std::string::npos);

  MissingBlockDiagnosis mixed =
      DiagnoseMissingTrailerBlock("T\n\nbody\n\nRow: none\nsee the docs\nAI-Assisted: true\n");
  EXPECT_EQ(mixed.line, 6);
  EXPECT_NE(mixed.reason.find("line 6 `see the docs` is not a trailer"), std::string::npos) << mixed.reason;
  EXPECT_NE(mixed.reason.find("lines 5-7"), std::string::npos) << mixed.reason;

  MissingBlockDiagnosis divider = DiagnoseMissingTrailerBlock("T\n\nbody\n---\nRow: none\n");
  EXPECT_NE(divider.reason.find("patch divider"), std::string::npos) << divider.reason;
}

TEST(MessageCleanup, StripsLikeGitCommit) {
  // Compared with `git stripspace --strip-comments`, which is git's cleanup.
  testing::TempDir dir;
  std::string raw = "\n\n  \nTitle   \n\n\n# comment\nbody\t\n\n\n\nRow: none\n\n# trailing\n\n";
  std::string file = dir.Write("raw", raw);
  testing::CommandOutput git = Shell("git stripspace --strip-comments < " + Quote(file), false);
  CleanMessage clean = CleanupMessage(raw, {CleanupMode::kStrip, true}, '#');
  EXPECT_EQ(clean.text, git.out);
  EXPECT_EQ(clean.text, "Title\n\nbody\n\nRow: none\n");
  EXPECT_EQ(clean.SourceLine(1), 4);
  EXPECT_EQ(clean.SourceLine(3), 8);
  EXPECT_EQ(clean.SourceLine(5), 12);

  testing::CommandOutput whitespace = Shell("git stripspace < " + Quote(file), false);
  EXPECT_EQ(CleanupMessage(raw, {CleanupMode::kWhitespace, true}, '#').text, whitespace.out);
}

TEST(MessageCleanup, ScissorsCutsAndVerbatimKeepsEverything) {
  std::string raw = "Title\n\nRow: none\n# ------------------------ >8 ------------------------\ndiff\n";
  EXPECT_EQ(CleanupMessage(raw, {CleanupMode::kStrip, true}, '#').text, "Title\n\nRow: none\n");
  EXPECT_EQ(CleanupMessage(raw, {CleanupMode::kVerbatim, false}, '#').text, raw);
  // scissors mode is whitespace cleanup plus the cut: other comment lines stay.
  std::string scissors =
      "T\n# kept\n\nRow: none\n# ------------------------ >8 ------------------------\n# cut\n";
  EXPECT_EQ(CleanupMessage(scissors, {CleanupMode::kScissors, true}, '#').text, "T\n# kept\n\nRow: none\n");
  EXPECT_EQ(ParseCleanupMode("verbatim", true), CleanupMode::kVerbatim);
  EXPECT_EQ(ParseCleanupMode("default", true), CleanupMode::kStrip);
  // Without an editor (-m, -F) git's default and scissors modes are whitespace.
  EXPECT_EQ(ParseCleanupMode("default", false), CleanupMode::kWhitespace);
  EXPECT_EQ(ParseCleanupMode("scissors", false), CleanupMode::kWhitespace);
}

// Hand-typed scissors lines, each with a comment below it, above a trailer: none of them is git's
// cut line, however many there are (one pass over the message decides, not one per line); git's
// own cut line after them, comments and the end or a diff below it, still is.
TEST(MessageCleanup, TypedScissorsLinesAreNotGitsCutLineHoweverMany) {
  const std::string cut = "# ------------------------ >8 ------------------------\n";
  std::string typed;
  for (int i = 0; i < 20000; ++i) typed += cut + "# typed\n";
  const std::string message = "Subject\n\n" + typed + "Row: none\n";
  EXPECT_FALSE(PlanCleanup(message, "", true, false, '#').cut_at_scissors);
  EXPECT_TRUE(PlanCleanup(message + cut + "# git's explanation\n", "", true, false, '#').cut_at_scissors);
  EXPECT_TRUE(PlanCleanup(message + cut + "# git's\ndiff --git a/f b/f\n+x\n", "", true, false, '#').cut_at_scissors);
}

}  // namespace
}  // namespace vt::gate
