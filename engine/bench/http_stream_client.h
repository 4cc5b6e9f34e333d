// The HTTP/1.1 client of `vt bench serve`: one keep-alive connection that POSTs a body (or GETs) and hands
// the answer's body to a callback piece by piece as it arrives (so each SSE event can be timed),
// and says whether the answer came on a connection an earlier exchange had used (keep-alive
// requests can pay costs a fresh connection does not, such as a Nagle stall).
// Boost.Beast on a private Asio context, with connect and read timeouts.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace vt::bench {

struct HttpTarget {
  std::string host;
  std::string port;
};

// http://HOST:PORT (a trailing path is ignored); nullopt for anything else.
std::optional<HttpTarget> ParseBaseUrl(const std::string& url);

// A piece of an answer's body; return false to stop reading (the answer is then dropped, an error).
using BodySink = std::function<bool(const char*, size_t)>;

struct PostOutcome {
  std::string error;    // why no whole answer came (empty when one did)
  bool reused = false;  // sent on a connection kept alive from an earlier exchange
};

class HttpStreamClient {
 public:
  HttpStreamClient(HttpTarget target, std::string base_url, std::chrono::seconds connect_timeout,
                   std::chrono::seconds read_timeout);
  ~HttpStreamClient();

  // POSTs `body` (JSON) to `path`. `on_status` gets the status once the head is in, `on_data`
  // every piece of the body. A streamed answer may run up to `whole_answer_within` (each read within
  // the read timeout).
  PostOutcome Post(const std::string& path, const std::string& body, const std::function<void(int)>& on_status,
                   const BodySink& on_data, std::chrono::seconds whole_answer_within);
  // GETs `path`, with the same callbacks; the whole answer must be in within `whole_answer_within`
  // (a server trickling a byte per read timeout would otherwise hold the caller for ever).
  PostOutcome Get(const std::string& path, const std::function<void(int)>& on_status, const BodySink& on_data,
                  std::chrono::seconds whole_answer_within);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vt::bench
