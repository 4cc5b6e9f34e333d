// What the grammar tests ask of a compiled grammar: shared for matchers, and whether a text is a
// whole sentence of it.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "base/status.h"
#include "engine/grammar/grammar.h"
#include "engine/grammar/grammar_matcher.h"

namespace vt::grammar {

// `compiled`, shared; empty (the test failing, naming `source`) when it is an error.
inline std::shared_ptr<const Grammar> Shared(Result<Grammar> compiled, const std::string& source) {
  EXPECT_TRUE(compiled.ok()) << source << "\n" << compiled.status().message();
  return std::make_shared<const Grammar>(compiled.ok() ? std::move(*compiled) : Grammar{});
}

inline bool Matches(const std::shared_ptr<const Grammar>& g, const std::string& text) {
  GrammarMatcher m(g);
  return m.Accept(text) && m.CanEnd();
}

}  // namespace vt::grammar
