// The served model's tool-call and reasoning formats, from `vt serve --tool-call-parser` and
// `--reasoning-parser`: a format name, or "auto" to recognise it from the chat template's text
// (none when the model has no template).
#pragma once

#include <string>

#include "base/status.h"
#include "engine/server/model_context.h"

namespace vt::server {

Status ResolveOutputFormats(const std::string& tool_call_parser, const std::string& reasoning_parser,
                            ModelContext* model);

}  // namespace vt::server
