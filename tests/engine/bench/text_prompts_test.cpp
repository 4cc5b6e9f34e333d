#include "engine/bench/text_prompts.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>

namespace vt::bench {
namespace {

constexpr const char* kTokenizer = VT_SOURCE_DIR "/assets/models/fortune-qwen3-7m/tokenizer.json";

std::shared_ptr<Tokenizer> Load() {
  Result<std::shared_ptr<Tokenizer>> t = Tokenizer::FromFile(kTokenizer);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? *t : nullptr;
}

TEST(TextPrompts, EncodeBackToTheAskedLength) {
  std::shared_ptr<Tokenizer> tokenizer = Load();
  ASSERT_NE(tokenizer, nullptr);
  const TextPromptMaker maker(*tokenizer);
  std::mt19937_64 rng(7);
  for (int32_t length : {1, 16, 64, 300}) {
    for (int i = 0; i < 20; ++i) {
      const TextPrompt p = maker.Make(length, rng);
      SCOPED_TRACE(p.text);
      EXPECT_EQ(p.tokens, length);
      // The count is the tokenizer's own, not a claim.
      EXPECT_EQ(static_cast<int32_t>(tokenizer->Encode(p.text).size()), p.tokens);
      for (int32_t id : tokenizer->Encode(p.text)) EXPECT_FALSE(tokenizer->IsSpecial(id));
    }
  }
}

TEST(TextPrompts, TheSeedFixesThePrompts) {
  std::shared_ptr<Tokenizer> tokenizer = Load();
  ASSERT_NE(tokenizer, nullptr);
  const TextPromptMaker maker(*tokenizer);
  std::mt19937_64 a(3), b(3), c(4);
  const std::string first = maker.Make(32, a).text;
  EXPECT_EQ(maker.Make(32, b).text, first);
  EXPECT_NE(maker.Make(32, c).text, first);
}

}  // namespace
}  // namespace vt::bench
