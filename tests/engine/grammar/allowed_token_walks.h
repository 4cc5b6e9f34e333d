// Random walks through the tokens a constraint's mask allows, on a real vocabulary, held against an
// oracle of the grammar's language: after every token the text is a prefix the oracle can still
// complete, the matcher may end (EOS is allowed) exactly where the oracle accepts the whole text,
// and the mask table's answer equals a walk of the whole vocabulary.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "engine/grammar/grammar_constraint.h"
#include "engine/grammar/grammar_matcher.h"

namespace vt::grammar {

struct LanguageOracle {
  std::function<bool(const std::string&)> accepts;    // the whole text is a sentence
  std::function<bool(const std::string&)> completes;  // some sentence starts with the text
};

inline void WalkAllowedTokens(const GrammarConstraint& c, const LanguageOracle& oracle, const std::string& label) {
  const TokenVocabulary& vocab = *c.vocabulary;
  std::mt19937 rng(3);
  int steps = 0, ended = 0;
  for (int walk = 0; walk < 30; ++walk) {
    GrammarMatcher m(c.grammar);
    std::string text;
    for (int step = 0; step < 40; ++step, ++steps) {
      TokenBitmask walked, tabled;
      m.AllowedTokens(vocab, &walked);
      m.AllowedTokens(vocab, &tabled, c.masks.get());
      ASSERT_EQ(walked.words(), tabled.words()) << label << ", walk " << walk << ", step " << step;
      std::vector<int32_t> choices;
      for (int64_t id = 0; id < walked.size(); ++id) {
        if (walked.Test(id)) choices.push_back(int32_t(id));
      }
      ASSERT_EQ(m.CanEnd(), oracle.accepts(text)) << label << ": '" << text << "'";
      if (m.CanEnd() && (choices.empty() || rng() % 4 == 0)) {
        ++ended;
        break;
      }
      ASSERT_FALSE(choices.empty()) << label << ": a dead end after '" << text << "'";
      const int32_t token = choices[rng() % choices.size()];
      ASSERT_TRUE(m.Accept(vocab.bytes(token)));
      text += vocab.bytes(token);
      ASSERT_TRUE(oracle.completes(text)) << label << ": '" << text << "' cannot become a sentence";
    }
  }
  EXPECT_GT(ended, 0) << label;
  EXPECT_GT(steps, 30) << label;
}

}  // namespace vt::grammar
