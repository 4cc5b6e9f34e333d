// A grammar that applies to the answer after a model's reasoning, not inside it: the output may
// (or, when the prompt opened the block, does) start with free reasoning text up to </think>,
// and the answer grammar constrains what follows. The reasoning is any text without "</think>",
// so the model reasons as it would unconstrained and the grammar takes over at the tag.
#pragma once

#include "engine/chat/reasoning_stream.h"
#include "engine/grammar/grammar.h"

namespace vt::server {

// `answer` unchanged for ReasoningStart::kAnswer.
grammar::Grammar AfterReasoning(const grammar::Grammar& answer, chat::ReasoningStart start);

}  // namespace vt::server
