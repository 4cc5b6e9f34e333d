// JSON Schema -> Grammar, for response_format json_schema and `vt generate --json-schema`: the
// grammar's sentences are compact JSON texts (at most one space after ':' and ',') that validate
// against the schema. Supported: type (one or a list), properties with required (in the keys'
// sorted order; the others optional), additionalProperties (extra properties are never generated),
// items, minItems/maxItems, enum, const, anyOf/oneOf (oneOf as anyOf), $ref into
// #/$defs and #/definitions (recursion included), string pattern and minLength/maxLength (alone or
// together: json_string_pattern.h), annotations (title, description, default, examples, $schema,
// $id, $comment). Anything else that constrains values (format, minimum, multipleOf, ...) is an
// error naming the keyword, never ignored.
#pragma once

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "engine/grammar/grammar.h"

namespace vt::grammar {

Result<Grammar> CompileJsonSchema(const nlohmann::json& schema);

// Any JSON value whose top level is an object: response_format {"type": "json_object"}.
Grammar JsonObjectGrammar();

}  // namespace vt::grammar
