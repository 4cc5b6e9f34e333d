#include "engine/grammar/grammar.h"

#include "engine/tokenizer/utf8.h"

namespace vt::grammar {

Sequence Literal(std::string_view text) {
  Sequence s;
  for (const auto& [cp, bytes] : DecodeUtf8(text)) s.push_back(Char(static_cast<uint32_t>(cp)));
  return s;
}

int32_t AddRule(Grammar& g, std::string name) {
  g.rules.push_back({std::move(name), {}});
  return static_cast<int32_t>(g.rules.size()) - 1;
}

}  // namespace vt::grammar
