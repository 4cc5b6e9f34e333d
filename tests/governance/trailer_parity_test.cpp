// Parity with `git interpret-trailers --parse` over a generated corpus of
// awkward messages: patch dividers, scissors lines, comments, continuation
// lines, blank-line placement, `Key: value` / `Key : value` / `key:value`,
// git's 25% rule, Conflicts blocks, CRLF, very long lines and Unicode, under
// several git configurations (trailer.separators, trailer.<name>.key,
// core.commentChar). Every message must parse exactly as git parses it.
//
// The corpus is seeded, so a disagreement reproduces. git runs once per
// configuration: `interpret-trailers --in-place --parse` rewrites every
// message file with its trailers, which keeps the 2,500 messages to a few
// seconds instead of one process each.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <random>
#include <sstream>

#include "governance/git_repository.h"
#include "governance/trailer_parser.h"
#include "tests/governance/git_fixture.h"

namespace vt::gate {
namespace {

using testing::GitRepo;
using testing::Quote;
using testing::ReadFile;
using testing::Shell;

constexpr int kMessagesPerConfig = 500;

// A git configuration under which the corpus is parsed; `settings` are
// `git config` argument pairs.
struct ParityConfig {
  std::string name;
  std::vector<std::pair<std::string, std::string>> settings;
  char comment_char = '#';
  std::string separators = ":";
};

std::vector<ParityConfig> Configs() {
  return {
      {"default", {}, '#', ":"},
      {"separators :# and commentChar ;",
       {{"trailer.separators", ":#"}, {"core.commentChar", ";"}},
       ';',
       ":#"},
      {"configured keys",
       {{"trailer.ack.key", "Acked-by"}, {"trailer.sign.key", "Signed-off-by: "}, {"trailer.bug.where", "end"}},
       '#',
       ":"},
      {"separators =: and keys",
       {{"trailer.separators", "=:"}, {"trailer.fix.key", "Fixes"}, {"trailer.see.key", "See-also="}},
       '#',
       "=:"},
      {"separators :% with key and commentChar %",
       {{"trailer.separators", ":%"}, {"trailer.ack.key", "Acked-by"}, {"core.commentChar", "%"}},
       '%',
       ":%"},
  };
}

// A deterministic generator: std::mt19937_64's output is fixed by the
// standard, the distributions' are not, so draws are taken modulo by hand.
class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}
  size_t Below(size_t n) { return static_cast<size_t>(engine_() % n); }
  bool Percent(int p) { return Below(100) < static_cast<size_t>(p); }
  template <typename T>
  const T& Pick(const std::vector<T>& items) {
    return items[Below(items.size())];
  }

 private:
  std::mt19937_64 engine_;
};

class MessageGenerator {
 public:
  MessageGenerator(uint64_t seed, const ParityConfig& config) : rng_(seed), config_(config) {}

  std::string Next() {
    std::vector<std::string> lines;
    if (rng_.Percent(10)) lines.push_back(Blank());
    if (rng_.Percent(10)) lines.push_back(Comment());
    if (!rng_.Percent(5)) lines.push_back(rng_.Percent(10) ? TrailerLine() : Prose());
    if (rng_.Percent(10)) lines.push_back(rng_.Percent(50) ? Prose() : TrailerLine());
    int paragraphs = static_cast<int>(rng_.Below(4));
    for (int p = 0; p < paragraphs; ++p) {
      lines.push_back(Blank());
      if (rng_.Percent(15)) lines.push_back(Blank());
      int n = 1 + static_cast<int>(rng_.Below(4));
      for (int i = 0; i < n; ++i) lines.push_back(rng_.Percent(20) ? TrailerLine() : Prose());
    }
    if (!rng_.Percent(10)) {
      lines.push_back(Blank());
      LastParagraph(lines);
    }
    Tail(lines);
    return Join(lines);
  }

 private:
  std::string Word() {
    static const std::vector<std::string> kWords = {
        "fix",   "the",      "parser", "value", "Ünïcödé", "日本語", "🚀",       "naïve", "x",  "a:b",
        "http://example.org/x", "—",  "Key:", "(see",  "it)",     "#1",    "--",      "Signed-off-by:",
        "ok",    "déjà-vu"};
    return rng_.Pick(kWords);
  }

  std::string Prose() {
    std::string out = Word();
    size_t n = rng_.Below(8);
    for (size_t i = 0; i < n; ++i) out += " " + Word();
    if (rng_.Percent(3)) out += " " + std::string(500 + rng_.Below(6000), 'w');
    return out;
  }

  std::string Blank() {
    static const std::vector<std::string> kBlanks = {"", "", "", " ", "\t", "  \t "};
    return rng_.Pick(kBlanks);
  }

  std::string Comment() {
    // The configured comment character, and sometimes another one that is not a comment here.
    char c = rng_.Percent(75) ? config_.comment_char : rng_.Pick(std::vector<char>{'#', ';', '%'});
    return std::string(1, c) + (rng_.Percent(30) ? "" : " " + Prose());
  }

  std::string Token() {
    static const std::vector<std::string> kTokens = {
        "Signed-off-by", "Row",  "AI-Assisted", "Key",  "key",   "Acked-by", "ack",  "Ack",   "sign",
        "Sign",          "fix",  "Fixes",       "see",  "See",   "bug",      "Bug",  "Reviewed-by",
        "Co-authored-by", "X",   "a-b-c",       "CC",   "acked", "see-also", "Ünï", "two words", "Key_1"};
    return rng_.Pick(kTokens);
  }

  std::string Separator() {
    // Mostly the configured ones, sometimes one that is not configured.
    if (rng_.Percent(80)) return std::string(1, config_.separators[rng_.Below(config_.separators.size())]);
    return rng_.Pick(std::vector<std::string>{":", "#", "=", "%", ";", " :"});
  }

  std::string Value() {
    switch (rng_.Below(6)) {
      case 0:
        return "";
      case 1:
        return "Ada Lovelace <ada@example.org>";
      case 2:
        return std::string(200 + rng_.Below(5000), 'v');
      default:
        return Prose();
    }
  }

  std::string TrailerLine() {
    static const std::vector<std::string> kBefore = {"", "", "", " ", "\t", "  "};
    static const std::vector<std::string> kAfter = {" ", " ", " ", "", "  ", "\t"};
    std::string line = Token() + rng_.Pick(kBefore) + Separator() + rng_.Pick(kAfter) + Value();
    if (rng_.Percent(5)) line += "   ";
    return line;
  }

  std::string Continuation() {
    return std::string(rng_.Percent(70) ? " " : "\t") + (rng_.Percent(20) ? TrailerLine() : Prose());
  }

  std::string GitGenerated() {
    if (rng_.Percent(50)) return "Signed-off-by: Ada <ada@example.org>";
    return "(cherry picked from commit 0123456789abcdef0123456789abcdef01234567)";
  }

  // The paragraph git may read as the trailer block: trailers mixed with
  // what keeps it from being one, near the 25% line.
  void LastParagraph(std::vector<std::string>& lines) {
    int n = 1 + static_cast<int>(rng_.Below(8));
    int prose_percent = static_cast<int>(rng_.Pick(std::vector<size_t>{0, 0, 10, 25, 50}));
    for (int i = 0; i < n; ++i) {
      size_t roll = rng_.Below(100);
      if (roll < static_cast<size_t>(prose_percent)) {
        lines.push_back(Prose());
      } else if (roll < 60) {
        lines.push_back(TrailerLine());
      } else if (roll < 72) {
        lines.push_back(Continuation());
      } else if (roll < 82) {
        lines.push_back(GitGenerated());
      } else if (roll < 90) {
        lines.push_back(Comment());
      } else if (roll < 95) {
        lines.push_back(Blank());
      } else {
        lines.push_back("Conflicts:");
        lines.push_back("\tsome/file.c");
      }
    }
  }

  void Tail(std::vector<std::string>& lines) {
    if (rng_.Percent(15)) {
      lines.push_back(Blank());
      lines.push_back(Comment());
    }
    if (rng_.Percent(8)) {
      lines.push_back("Conflicts:");
      lines.push_back("\tengine/x.cpp");
      if (rng_.Percent(50)) lines.push_back("\tgovernance/y.cpp");
    }
    // Never both a divider and a scissors line below it: git 2.39 loops
    // forever on that message (ignore_non_trailer walks towards a cutoff past
    // the end of the buffer), so git cannot be the oracle there;
    // TrailerParser.ScissorsBelowADividerEndsNothing covers vt-gate's side.
    bool divider = rng_.Percent(12);
    if (divider) {
      static const std::vector<std::string> kDividers = {"---", "--- ", "---\t", "----", "---x", "--- a/file",
                                                         " ---"};
      lines.push_back(rng_.Pick(kDividers));
      lines.push_back(rng_.Percent(50) ? TrailerLine() : " file | 2 +-");
      if (rng_.Percent(50)) lines.push_back("Row: AFTER-DIVIDER");
    }
    if (!divider && rng_.Percent(12)) {
      char c = rng_.Percent(80) ? config_.comment_char : '#';
      std::string scissors = std::string(1, c) + " ------------------------ >8 ------------------------";
      if (rng_.Percent(15)) scissors = "# ----------------------- >8 ------------------------";
      lines.push_back(scissors);
      lines.push_back(rng_.Percent(50) ? TrailerLine() : "diff --git a/x b/x");
      lines.push_back("Row: AFTER-SCISSORS");
    }
    if (rng_.Percent(10)) lines.push_back(Blank());
  }

  std::string Join(const std::vector<std::string>& lines) {
    bool crlf = rng_.Percent(8);
    bool partial_crlf = !crlf && rng_.Percent(4);
    std::string out;
    for (size_t i = 0; i < lines.size(); ++i) {
      out += lines[i];
      if (crlf || (partial_crlf && rng_.Percent(50))) out += '\r';
      if (i + 1 < lines.size() || !rng_.Percent(10)) out += '\n';
    }
    return out;
  }

  Rng rng_;
  const ParityConfig& config_;
};

// git prints `tok<sep> value`, or `tokvalue` when a configured key already
// ends in a separator; both become (key, value) here.
std::vector<std::string> Normalize(const std::string& git_output, const std::string& separators) {
  std::vector<std::string> out;
  std::istringstream lines(git_output);
  std::string line;
  while (std::getline(lines, line)) {
    size_t sep = line.find_first_of(separators);
    if (sep == std::string::npos) {
      out.push_back("<unsplittable> " + line);
      continue;
    }
    std::string value = line.substr(sep + 1);
    if (!value.empty() && value[0] == ' ') value.erase(0, 1);
    out.push_back(line.substr(0, sep) + " | " + value);
  }
  return out;
}

std::vector<std::string> Ours(const std::string& message, const TrailerSyntax& syntax) {
  std::vector<std::string> out;
  for (const Trailer& t : ParseTrailers(message, syntax).trailers) out.push_back(t.key + " | " + t.value);
  return out;
}

std::string Escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      out += c;
    }
  }
  return out;
}

std::string Show(const std::vector<std::string>& pairs) {
  std::string out;
  for (const std::string& p : pairs) out += "  [" + Escaped(p.size() > 200 ? p.substr(0, 200) + "..." : p) + "]\n";
  return out.empty() ? "  (none)\n" : out;
}

TEST(TrailerParity, GeneratedCorpusAgreesWithGitInterpretTrailers) {
  int total = 0;
  int disagreements = 0;
  int with_trailers = 0;
  std::string first;
  std::vector<ParityConfig> configs = Configs();
  for (size_t c = 0; c < configs.size(); ++c) {
    const ParityConfig& config = configs[c];
    GitRepo repo;
    for (const auto& [key, value] : config.settings) repo.Git("config " + Quote(key) + " " + Quote(value));
    Result<Repository> opened = Repository::Open(repo.path());
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    // The syntax comes from the repository's config, as the gates read it.
    TrailerSyntax syntax = opened->ReadTrailerSyntax();
    ASSERT_EQ(syntax.comment_char, config.comment_char) << config.name;
    ASSERT_EQ(syntax.separators, config.separators) << config.name;

    MessageGenerator generator(0x5eed0000u + c, config);
    std::vector<std::string> messages;
    std::string files;
    for (int i = 0; i < kMessagesPerConfig; ++i) {
      messages.push_back(generator.Next());
      std::string name = "corpus/" + std::to_string(i) + ".msg";
      repo.WriteFile(name, messages.back());
      files += " " + name;
    }
    testing::CommandOutput git =
        Shell("cd " + Quote(repo.path()) + " && timeout 120 git interpret-trailers --in-place --parse" + files);
    ASSERT_EQ(git.status, 0) << git.out;
    for (int i = 0; i < kMessagesPerConfig; ++i) {
      ++total;
      std::string git_output = ReadFile(repo.path() + "/corpus/" + std::to_string(i) + ".msg");
      std::vector<std::string> theirs = Normalize(git_output, config.separators);
      std::vector<std::string> ours = Ours(messages[i], syntax);
      if (!theirs.empty()) ++with_trailers;
      if (ours == theirs) continue;
      if (++disagreements == 1) {
        first = "config: " + config.name + ", message " + std::to_string(i) + " (seed " +
                std::to_string(0x5eed0000u + c) + "):\n---- message ----\n" + Escaped(messages[i]) +
                "\n---- vt-gate ----\n" + Show(ours) + "---- git ----\n" + Show(theirs);
      }
    }
  }
  EXPECT_GE(total, 2000);
  // Both sides of git's block rules are exercised, not just one.
  EXPECT_GT(with_trailers, total / 4);
  EXPECT_GT(total - with_trailers, total / 10);
  EXPECT_EQ(disagreements, 0) << disagreements << " of " << total
                              << " messages parse differently; the first:\n"
                              << first;
}

}  // namespace
}  // namespace vt::gate
