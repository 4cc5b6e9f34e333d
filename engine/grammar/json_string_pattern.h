// JSON Schema's `pattern` keyword: a JSON string literal whose decoded content the regular
// expression matches. Patterns in JSON Schema are unanchored (a match anywhere in the string
// counts; `^` and `$` anchor it), so the regex runs as `(?:.|\n)*(?:P)(?:.|\n)*` through the regex
// front end (regex_grammar.h, its syntax and limits). The automaton reads decoded characters; in
// the grammar, the characters JSON must escape (`"`, `\` and U+0000-U+001F) appear as their
// escapes (`\"`, `\\`, `\n`, ..., `\u00XX`), every other character as itself.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "engine/grammar/grammar.h"

namespace vt::grammar {

// Adds the rules to `g` and returns the id of the string rule (quotes included); `name` prefixes
// the new rules' names. Errors are the regex front end's, or a pattern that matches no string.
Result<int32_t> AddJsonStringPattern(Grammar& g, std::string_view pattern, const std::string& name);

}  // namespace vt::grammar
