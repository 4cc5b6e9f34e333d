// The served-model context of the embedded model as `vt serve` builds it, for request tests:
// its tokenizer, a grammar cache over its vocabulary and (ChatModel) its chat template.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "engine/server/model_context.h"
#include "tests/source_root.h"

namespace vt::server::testing {

inline ModelContext TextModel(size_t cached = 8) {
  ModelContext m;
  m.served_name = "m";
  m.max_model_len = 2048;
  auto tok = Tokenizer::FromFile(
      (vt::testing::SourceRoot() / "assets/models/fortune-qwen3-7m/tokenizer.json").string());
  EXPECT_TRUE(tok.ok()) << tok.status().message();
  if (!tok.ok()) return m;
  m.tokenizer = *tok;
  m.vocab_size = (*tok)->vocab_size();
  m.grammars = std::make_shared<GrammarCache>(
      std::make_shared<const grammar::TokenVocabulary>((*tok)->TokenBytesTable()), cached);
  return m;
}

// TextModel with a chat template (the embedded model's unless `template_source` is given).
inline ModelContext ChatModel(const std::string& template_source = "") {
  ModelContext m = TextModel();
  std::string source = template_source;
  if (source.empty()) {
    std::ifstream in(vt::testing::SourceRoot() / "assets/models/fortune-qwen3-7m/tokenizer_config.json");
    std::stringstream text;
    text << in.rdbuf();
    source = nlohmann::json::parse(text.str())["chat_template"].get<std::string>();
  }
  auto t = ChatTemplate::Parse(source);
  EXPECT_TRUE(t.ok()) << t.status().message();
  if (t.ok()) m.chat_template = *t;
  return m;
}

}  // namespace vt::server::testing
