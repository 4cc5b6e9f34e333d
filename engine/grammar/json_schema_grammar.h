// JSON Schema -> Grammar, for response_format json_schema and `vt generate --json-schema`: the
// grammar's sentences are compact JSON texts (at most one space after ':' and ',') that validate
// against the schema. Supported: type (one or a list), properties with required (in the keys'
// sorted order; the others optional), additionalProperties (extra properties are never generated
// beside properties; without properties, every member's value follows it), items,
// minItems/maxItems, enum and const (filtered by a type beside them), anyOf/oneOf (oneOf as anyOf:
// a value matching two branches passes), $ref into #/$defs and #/definitions (recursion included),
// string pattern and minLength/maxLength (alone or together: json_string_pattern.h), annotations
// (title, description, default, examples, $schema, $id, $comment). Without type, the keywords of
// one type say which is meant (pattern: a string, properties: an object, ...). Anything else that
// constrains values (format, minimum, multipleOf, a constraint beside $ref, enum or anyOf, ...) is
// an error naming the keyword, never ignored. tests/engine/grammar/data/json_schema_cases.json is
// the corpus of what it accepts and refuses.
#pragma once

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "engine/grammar/grammar.h"

namespace vt::grammar {

Result<Grammar> CompileJsonSchema(const nlohmann::json& schema);

// Any JSON value whose top level is an object: response_format {"type": "json_object"}.
Grammar JsonObjectGrammar();

}  // namespace vt::grammar
