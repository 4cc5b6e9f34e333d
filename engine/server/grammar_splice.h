// Grammars built from grammars: the server wraps the engine's compiled JSON Schema grammars in a
// model's tool-call syntax and after its reasoning block. Splicing copies one grammar's rules
// into another, so each part keeps being compiled by engine/grammar alone.
#pragma once

#include <cstdint>

#include "engine/grammar/grammar.h"

namespace vt::server {

// Appends `part`'s rules to `into` (its rule references renumbered) and returns the id its root
// has there.
int32_t SpliceGrammar(grammar::Grammar& into, const grammar::Grammar& part);

}  // namespace vt::server
