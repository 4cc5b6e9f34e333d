// One mutation test per trailer rule: the clean message passes, the planted
// violation is caught with the right rule id and line.
#include "governance/trailer_rules.h"

#include <gtest/gtest.h>

#include "governance/config.h"

namespace vt::gate {
namespace {

constexpr const char* kConfig = R"(
trailers:
  fixups: fail
  bots: '\[bot\]@'
  required:
    - key: Row
      pattern: '^([A-Z][A-Z0-9]*(-[A-Z0-9]+)+|none)$'
    - key: AI-Assisted
      values: ["true", "false"]
    - key: Assisted-by
      count: ">=1"
      when: { AI-Assisted: "true" }
      pattern: '^[^\s:]+:\S+( \[[^\]]+\])*$'
  forbidden:
    - key: Change-Id
      reason: no Gerrit
  identity:
    tokens: [Claude, GPT]
    allow_emails: [claude.monet@example.org]
  marker: { token: FOLLOWING_AGENTS_PROTOCOL, placement: own-paragraph, count: 1 }
)";

const std::string kClean =
    "Add the scheduler\n"
    "\n"
    "Why it changes.\n"
    "\n"
    "FOLLOWING_AGENTS_PROTOCOL\n"
    "\n"
    "Row: ENG-SCHED\n"
    "AI-Assisted: true\n"
    "Assisted-by: Claude:claude-opus [vt-helper]\n"
    "Signed-off-by: Ada Lovelace <ada@example.org>\n";

Config LoadRules(const std::string& yaml = kConfig) {
  Result<Config> config = ParseConfig(yaml, "rules.yaml");
  EXPECT_TRUE(config.ok()) << config.status().message();
  return config.ok() ? config.value() : Config{};
}

MessageVerdict Check(const std::string& message, const Config& config, int parents = 1,
                     const std::string& author = "Ada <ada@example.org>") {
  MessageFacts facts;
  facts.message = message;
  facts.parent_count = parents;
  facts.author = author;
  return CheckMessage(config.trailers, TrailerSyntax{}, facts);
}

std::vector<std::string> Rules(const MessageVerdict& verdict) {
  std::vector<std::string> rules;
  for (const RuleFinding& f : verdict.findings) rules.push_back(f.rule);
  return rules;
}

// Replaces the first occurrence of `from` in kClean.
std::string Mutate(const std::string& from, const std::string& to) {
  std::string message = kClean;
  size_t at = message.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) message.replace(at, from.size(), to);
  return message;
}

using Strings = std::vector<std::string>;

class TrailerRules : public ::testing::Test {
 protected:
  Config config_ = LoadRules();
};

TEST_F(TrailerRules, CleanMessagePasses) {
  MessageVerdict verdict = Check(kClean, config_);
  EXPECT_EQ(verdict.disposition, CommitDisposition::kChecked);
  EXPECT_EQ(Rules(verdict), Strings{});
}

TEST_F(TrailerRules, MissingRequiredTrailer) {
  MessageVerdict verdict = Check(Mutate("Row: ENG-SCHED\n", ""), config_);
  EXPECT_EQ(Rules(verdict), Strings{"required:Row"});
}

TEST_F(TrailerRules, RequiredCountExceeded) {
  MessageVerdict verdict =
      Check(Mutate("AI-Assisted: true\n", "AI-Assisted: true\nAI-Assisted: true\n"), config_);
  EXPECT_EQ(Rules(verdict), Strings{"required:AI-Assisted"});
}

TEST_F(TrailerRules, ValuePatternViolation) {
  MessageVerdict verdict = Check(Mutate("Row: ENG-SCHED", "Row: sched stuff"), config_);
  ASSERT_EQ(Rules(verdict), Strings{"value:Row"});
  EXPECT_EQ(verdict.findings[0].line, 7);
}

TEST_F(TrailerRules, ValueEnumViolation) {
  MessageVerdict verdict = Check(Mutate("AI-Assisted: true", "AI-Assisted: yes"), config_);
  // "yes" is not "true", so Assisted-by is no longer required but still checked for form.
  EXPECT_EQ(Rules(verdict), Strings{"value:AI-Assisted"});
}

TEST_F(TrailerRules, ConditionalRequirementApplies) {
  MessageVerdict verdict = Check(Mutate("Assisted-by: Claude:claude-opus [vt-helper]\n", ""), config_);
  ASSERT_EQ(Rules(verdict), Strings{"required:Assisted-by"});
  EXPECT_NE(verdict.findings[0].message.find("required because AI-Assisted: true"), std::string::npos);
}

TEST_F(TrailerRules, ConditionalRequirementDoesNotApplyWhenFalse) {
  std::string message =
      Mutate("AI-Assisted: true\nAssisted-by: Claude:claude-opus [vt-helper]\n", "AI-Assisted: false\n");
  EXPECT_EQ(Rules(Check(message, config_)), Strings{});
}

TEST_F(TrailerRules, ConditionalValuePattern) {
  MessageVerdict verdict =
      Check(Mutate("Assisted-by: Claude:claude-opus [vt-helper]", "Assisted-by: Claude"), config_);
  EXPECT_EQ(Rules(verdict), Strings{"value:Assisted-by"});
}

TEST_F(TrailerRules, ForbiddenTrailer) {
  MessageVerdict verdict = Check(Mutate("Row: ENG-SCHED\n", "Row: ENG-SCHED\nChange-Id: I123\n"), config_);
  ASSERT_EQ(Rules(verdict), Strings{"forbidden:Change-Id"});
  EXPECT_EQ(verdict.findings[0].line, 8);
}

TEST_F(TrailerRules, IdentityBanInSignedOffBy) {
  MessageVerdict verdict =
      Check(Mutate("Ada Lovelace <ada@example.org>", "Claude <noreply@anthropic.com>"), config_);
  EXPECT_EQ(Rules(verdict), Strings{"identity:Signed-off-by"});
}

TEST_F(TrailerRules, IdentityBanInCoAuthoredByIsCaseInsensitive) {
  MessageVerdict verdict = Check(
      Mutate("Signed-off-by: Ada", "Co-authored-by: gpt-4o <x@example.org>\nSigned-off-by: Ada"), config_);
  EXPECT_EQ(Rules(verdict), Strings{"identity:Co-authored-by"});
}

TEST_F(TrailerRules, IdentityBanIsWholeWordAndHonoursEmailExemptions) {
  EXPECT_EQ(
      Rules(Check(Mutate("Ada Lovelace <ada@example.org>", "Claudette Colvin <c@example.org>"), config_)),
      Strings{});
  EXPECT_EQ(Rules(Check(Mutate("Ada Lovelace <ada@example.org>", "Claude Monet <claude.monet@example.org>"),
                        config_)),
            Strings{});
}

TEST_F(TrailerRules, MarkerMissing) {
  MessageVerdict verdict = Check(Mutate("FOLLOWING_AGENTS_PROTOCOL\n\n", ""), config_);
  EXPECT_EQ(Rules(verdict), Strings{"marker"});
}

TEST_F(TrailerRules, MarkerNotInItsOwnParagraph) {
  MessageVerdict verdict = Check(Mutate("Why it changes.\n\nFOLLOWING_AGENTS_PROTOCOL\n",
                                        "Why it changes.\nFOLLOWING_AGENTS_PROTOCOL\n"),
                                 config_);
  ASSERT_EQ(Rules(verdict), Strings{"marker"});
  EXPECT_EQ(verdict.findings[0].line, 4);
}

TEST_F(TrailerRules, MarkerCountExceeded) {
  MessageVerdict verdict =
      Check(Mutate("Why it changes.\n", "Why it changes.\n\nFOLLOWING_AGENTS_PROTOCOL\n"), config_);
  EXPECT_EQ(Rules(verdict), Strings{"marker"});
}

TEST_F(TrailerRules, MarkerAnywhereAcceptsAnyLine) {
  Config config =
      LoadRules("trailers:\n  marker: { token: FOLLOWING_AGENTS_PROTOCOL, placement: anywhere }\n");
  EXPECT_EQ(Rules(Check("Title\n\nbody\nFOLLOWING_AGENTS_PROTOCOL\n", config)), Strings{});
  EXPECT_EQ(Rules(Check("Title\n\nbody FOLLOWING_AGENTS_PROTOCOL inline\n", config)), Strings{"marker"});
}

TEST_F(TrailerRules, BrokenTrailerBlockIsExplained) {
  // With a Signed-off-by the paragraph would still qualify (25% rule); without one it must be all trailers.
  MessageVerdict verdict = Check(
      Mutate("Assisted-by: Claude:claude-opus [vt-helper]\nSigned-off-by: Ada Lovelace <ada@example.org>\n",
             "Assisted by: Claude\n"),
      config_);
  ASSERT_FALSE(verdict.findings.empty());
  EXPECT_EQ(verdict.findings[0].rule, "trailer-block");
  EXPECT_EQ(verdict.findings[0].line, 9);
  EXPECT_NE(verdict.findings[0].message.find("line 9"), std::string::npos) << verdict.findings[0].message;
  EXPECT_NE(verdict.findings[0].message.find("not a trailer"), std::string::npos);
}

TEST_F(TrailerRules, FixupCommitsFailOrSkipByPolicy) {
  std::string fixup = "fixup! " + kClean;
  EXPECT_EQ(Rules(Check(fixup, config_)), Strings{"fixup"});
  Config skip = LoadRules("trailers:\n  fixups: skip\n  required: [{key: Row}]\n");
  EXPECT_EQ(Check("squash! x\n", skip).disposition, CommitDisposition::kSkippedFixup);
  EXPECT_EQ(Rules(Check("amend! x\n\nRow: none\n", config_)).front(), "fixup");
}

TEST_F(TrailerRules, MergesSkippedByParentCountNotTitle) {
  EXPECT_EQ(Check("Update\n", config_, 2).disposition, CommitDisposition::kSkippedMerge);
  // A merge-looking title on a one-parent commit is checked.
  MessageVerdict fake = Check("Merge branch 'x'\n", config_, 1);
  EXPECT_EQ(fake.disposition, CommitDisposition::kChecked);
  EXPECT_FALSE(fake.findings.empty());
  Config check = LoadRules("trailers:\n  merges: check\n  required: [{key: Row}]\n");
  Strings expected{"trailer-block", "required:Row"};
  EXPECT_EQ(Rules(Check("Merge branch 'x'\n", check, 2)), expected);
}

TEST_F(TrailerRules, RevertsByPolicy) {
  Config skip = LoadRules("trailers:\n  reverts: skip\n  required: [{key: Row}]\n");
  EXPECT_EQ(Check("Revert \"x\"\n\nThis reverts commit abc.\n", skip).disposition,
            CommitDisposition::kSkippedRevert);
  Config check = LoadRules("trailers:\n  required: [{key: Row}]\n");
  EXPECT_EQ(Check("Revert \"x\"\n\nThis reverts commit abc.\n", check).disposition,
            CommitDisposition::kChecked);
}

TEST_F(TrailerRules, BotAuthorsSkipped) {
  EXPECT_EQ(
      Check("Bump x\n", config_, 1, "dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>")
          .disposition,
      CommitDisposition::kSkippedBot);
  EXPECT_EQ(Check("Bump x\n", config_, 1, "Ada <ada@example.org>").disposition, CommitDisposition::kChecked);
}

TEST_F(TrailerRules, InvalidUtf8AndBinaryMessages) {
  MessageVerdict latin1 = Check(Mutate("Why it changes.", "Why it ch\xe4nges."), config_);
  ASSERT_EQ(Rules(latin1), Strings{"encoding"});
  EXPECT_EQ(latin1.findings[0].line, 3);
  std::string binary = kClean;
  binary[5] = '\0';
  EXPECT_EQ(Rules(Check(binary, config_)), Strings{"encoding"});
}

TEST_F(TrailerRules, TrailerKeysMatchCaseInsensitively) {
  EXPECT_EQ(Rules(Check(Mutate("Row: ENG-SCHED", "row: ENG-SCHED"), config_)), Strings{});
}

TEST_F(TrailerRules, HugeMessageIsHandled) {
  std::string huge = "Title\n\n" + std::string(10 << 20, 'x') + "\n\nRow: none\nAI-Assisted: false\n";
  Config config = LoadRules("trailers:\n  required: [{key: Row, pattern: '^none$'}, {key: AI-Assisted}]\n");
  EXPECT_EQ(Rules(Check(huge, config)), Strings{});
  std::string one_line(10 << 20, 'y');
  EXPECT_EQ(Rules(Check("T\n\nRow: " + one_line + "\nAI-Assisted: false\n", config)), Strings{"value:Row"});
}

}  // namespace
}  // namespace vt::gate
