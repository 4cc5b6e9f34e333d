// The bytes a connection reads, cut into HTTP/1.1 requests: Boost.Beast's parser under the
// server's header and body limits, with no socket, so the same code serves the connection
// (http_session.cpp) and the fuzz target (tests/fuzz/http_reader_fuzzer.cpp). Pipelined requests
// come out one after another; an unparseable one ends the stream with the error to answer.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include "engine/server/http_exchange.h"

namespace vt::server {

struct ParsedRequest {
  HttpRequest request;
  bool keep_alive = true;
};

// The answer to bytes that are not a request within the limits; the connection ends after it.
struct HttpReadError {
  int status = 400;
  std::string message;
};

class HttpRequestReader {
 public:
  enum class Phase { kIdle, kHeader, kBody };  // where the next request's bytes have got to

  HttpRequestReader(size_t max_header_bytes, size_t max_body_bytes);

  void Append(const char* data, size_t n);
  // The next whole request, or nullopt when more bytes are needed (or after an error).
  std::optional<ParsedRequest> Next();
  // Set once the bytes cannot be a request; nothing parses after it.
  const std::optional<HttpReadError>& error() const { return error_; }
  Phase phase() const;
  // True once per request whose header asked `Expect: 100-continue` and whose body has not come.
  bool TakeContinue();

 private:
  void Reset();

  size_t max_header_bytes_;
  size_t max_body_bytes_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  std::optional<HttpReadError> error_;
  bool continue_asked_ = false;
};

}  // namespace vt::server
