// Small rules made only of characters (a JSON string's character, an optional space) copied into
// the sequences that refer to them. The language is unchanged; what changes is that such a rule no
// longer sits between its many callers and the token mask table: a character that was a position
// of the shared rule — whose caller, and so whose next characters, the table cannot know — becomes
// a position of each caller's own rule, where the table can decide most tokens once.
#pragma once

#include "engine/grammar/grammar.h"

namespace vt::grammar {

Grammar InlineCharacterRules(Grammar grammar);

}  // namespace vt::grammar
