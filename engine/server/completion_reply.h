// The reply to a /v1/completions or /v1/chat/completions request: its choices run on the engine,
// and the connection pulls what they produced whenever the engine wakes it: one JSON response
// at the end, or Server-Sent Events as the tokens come.
#pragma once

#include <memory>
#include <string>

#include "engine/server/completion_request.h"
#include "engine/server/engine_service.h"
#include "engine/server/http_exchange.h"

namespace vt::server {

// Submits every choice of `r` (n per prompt) and returns the reply; a 503 when the engine will
// not take them (overloaded, stopping), with nothing left running.
Reply StartCompletion(EngineService& service, const CompletionRequest& r, std::shared_ptr<const ModelContext> model,
                      const std::string& id, const std::string& fingerprint);

}  // namespace vt::server
