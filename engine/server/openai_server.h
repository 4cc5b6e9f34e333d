// The OpenAI-compatible HTTP API over an EngineService: /v1/completions,
// /v1/chat/completions (JSON or Server-Sent Events), /v1/models[/{id}], vLLM's /tokenize and
// /detokenize, /health, /ping, /version and /metrics.
// Handler threads parse, template and tokenize; I/O threads read and write every connection
// (http_listener.h); the engine thread runs steps and wakes the connections its tokens are for.
// The server listens before the model is loaded, answering 503 until then.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "base/status.h"
#include "engine/server/completion_request.h"
#include "engine/server/engine_service.h"
#include "engine/server/http_listener.h"

namespace vt::server {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8000;                    // 0: any free port (see port())
  std::string api_key;                // empty: no authentication
  size_t max_body_bytes = 8u << 20;  // for every content type, chunked bodies included
  // Threads, the connection cap, the listen backlog and timeouts (its host, port and body limit
  // are the ones above).
  ListenerOptions listener;
  std::string version;                // vt's version: /version and system_fingerprint
  std::string build_source;           // the source it was built from (base/build_source.h): /version
  // The model's tool-call and reasoning formats: a name, or "auto" to recognise them from its
  // chat template (output_formats.h).
  std::string tool_call_parser = "auto";
  std::string reasoning_parser = "auto";
};

class OpenAiServer {
 public:
  explicit OpenAiServer(ServerOptions options);
  ~OpenAiServer();

  // Binds the port; fails with the reason when it cannot.
  Status Bind();
  int port() const { return port_; }
  // Serves until Stop(); returns when the listener has closed.
  void Serve();
  // Makes the model available; requests before this answer 503. Fails (and keeps answering 503)
  // when a parser named in the options does not exist.
  Status SetModel(std::unique_ptr<EngineService> service, ModelContext model);
  // Closes the listener; requests in flight go on. Serve() returns once they have finished.
  void StopAccepting();
  // StopAccepting, then cancels whatever is still in flight and stops the engine.
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace vt::server
