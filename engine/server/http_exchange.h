// What a request handler sees of HTTP and what it answers, independent of the transport: the
// connection code (http_session.cpp) parses the bytes into an HttpRequest and writes the Reply,
// so handlers (JSON in, engine, JSON out) never touch a socket.
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace vt::server {

struct HttpRequest {
  std::string method;
  std::string path;  // the request target without its query string
  bool http10 = false;
  std::string authorization;  // the Authorization header, empty when absent
  std::string body;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};

// One step of a PendingReply. Streamed: `response.body` holds the body bytes that are new since the
// last step. Not streamed: nothing until `done`, then the whole response.
struct ReplyPart {
  HttpResponse response;
  bool done = false;
};

// The part of a reply the engine produces over time. The connection calls Start once, then Poll
// on its own executor after every wake, until a part is done; Cancel when the client has gone.
class PendingReply {
 public:
  virtual ~PendingReply() = default;
  // `wake` may be called from any thread (the engine's) whenever Poll has something new; it is
  // cheap and never blocks. Start calls it once itself when something is already there.
  virtual void Start(std::function<void()> wake) = 0;
  virtual ReplyPart Poll() = 0;
  virtual void Cancel() = 0;
};

struct Reply {
  // The whole reply, or with `pending` and `streamed` its status and content type.
  HttpResponse response;
  std::shared_ptr<PendingReply> pending;
  // The body is written as `pending` produces it (Server-Sent Events): chunked on HTTP/1.1,
  // ended by the connection's close on HTTP/1.0.
  bool streamed = false;
};

using HttpHandler = std::function<Reply(const HttpRequest&)>;

}  // namespace vt::server
