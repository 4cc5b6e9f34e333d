#include "engine/bench/http_stream_client.h"

#include <array>
#include <cstdint>
#include <limits>
#include <utility>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

namespace vt::bench {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

std::optional<HttpTarget> ParseBaseUrl(const std::string& url) {
  const std::string scheme = "http://";
  if (url.rfind(scheme, 0) != 0) return std::nullopt;
  const std::string authority = url.substr(scheme.size(), url.find('/', scheme.size()) - scheme.size());
  const size_t colon = authority.rfind(':');
  if (colon == std::string::npos) return authority.empty() ? std::nullopt : std::optional<HttpTarget>({authority, "80"});
  HttpTarget t{authority.substr(0, colon), authority.substr(colon + 1)};
  if (t.host.empty() || t.port.empty() || t.port.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return t;
}

struct HttpStreamClient::Impl {
  HttpTarget target;
  std::string base_url;
  std::chrono::seconds connect_timeout;
  std::chrono::seconds read_timeout;
  asio::io_context io;
  beast::tcp_stream stream{io};
  // Bounded: Beast puts no limit of its own on a chunk's size line or the trailer, so a server
  // could otherwise grow it for as long as it keeps sending within the read timeout.
  static constexpr size_t kUnparsedBytesCap = size_t(1) << 20;
  beast::flat_buffer buffer{kUnparsedBytesCap};
  bool connected = false;
  std::chrono::steady_clock::time_point deadline;  // the whole exchange's

  // Each network wait ends at the read timeout or at the exchange's deadline, whichever is first.
  void ArmTimer(std::chrono::seconds timeout) {
    std::chrono::steady_clock::time_point until = std::chrono::steady_clock::now() + timeout;
    if (deadline < until) until = deadline;
    stream.expires_at(until);
  }

  // What a failed read says: the deadline's own message once it has passed.
  std::string ReadFailure(const error_code& ec) const {
    if (std::chrono::steady_clock::now() >= deadline) return "the answer did not finish within its time limit";
    if (ec == http::error::buffer_overflow) {
      return "the answer's unparsed bytes (a head, a chunk's size line or trailer) ran past " +
             std::to_string(kUnparsedBytesCap >> 20) + " MiB";
    }
    return "the connection broke (or timed out) while reading the answer: " + ec.message();
  }

  // Runs one asynchronous operation to its end: Beast's timeouts work only on those.
  template <typename Start>
  error_code Run(Start start) {
    error_code result;
    start([&result](error_code ec, auto&&...) { result = ec; });
    io.restart();
    io.run();
    return result;
  }

  std::string Connect() {
    error_code ec;
    tcp::resolver resolver(io);
    const auto endpoints = resolver.resolve(target.host, target.port, ec);
    if (ec) return "could not connect to " + base_url;
    ArmTimer(connect_timeout);
    ec = Run([&](auto done) { stream.async_connect(endpoints, done); });
    if (ec == beast::error::timeout) return "connecting to " + base_url + " timed out";
    if (ec) return "could not connect to " + base_url;
    stream.socket().set_option(tcp::no_delay(true), ec);
    buffer.clear();
    connected = true;
    return "";
  }

  void Disconnect() {
    error_code ignored;
    stream.socket().close(ignored);
    connected = false;
  }

  // One exchange; `reused` says whether it went on a connection kept alive from an earlier one,
  // and `stale` is set when such a connection failed before any answer came (the server had closed
  // it while idle), which is worth one retry on a fresh connection.
  std::string Exchange(http::verb verb, const std::string& path, const std::string& body,
                       const std::function<void(int)>& on_status,
                       const BodySink& on_data, bool& reused, bool& stale) {
    reused = connected;
    if (!connected) {
      if (std::string e = Connect(); !e.empty()) return e;
    }
    http::request<http::string_body> req{verb, path, 11};
    req.set(http::field::host, target.host);
    if (verb == http::verb::post) req.set(http::field::content_type, "application/json");
    req.set(http::field::accept, "text/event-stream");
    req.body() = body;
    req.prepare_payload();
    // A keep-alive connection the server closed while idle fails at once; one that timed out was
    // heard, and a POST is not sent twice.
    auto closed_while_idle = [&](const error_code& ec) { return reused && ec != beast::error::timeout; };
    ArmTimer(read_timeout);
    if (error_code ec = Run([&](auto done) { http::async_write(stream, req, done); })) {
      stale = closed_while_idle(ec);
      return "the connection broke while sending the request";
    }
    http::response_parser<http::buffer_body> parser;
    parser.body_limit(std::numeric_limits<std::uint64_t>::max());  // streams run as long as they run
    if (error_code ec = Run([&](auto done) { http::async_read_header(stream, buffer, parser, done); })) {
      stale = closed_while_idle(ec);
      return ReadFailure(ec);
    }
    on_status(parser.get().result_int());
    std::array<char, 16384> piece;
    while (!parser.is_done()) {
      parser.get().body().data = piece.data();
      parser.get().body().size = piece.size();
      ArmTimer(read_timeout);
      // read_some returns as soon as some of the body is in, so each event is timed as it arrives.
      const error_code ec = Run([&](auto done) { http::async_read_some(stream, buffer, parser, done); });
      if (ec && ec != http::error::need_buffer) return ReadFailure(ec);
      const size_t n = piece.size() - parser.get().body().size;
      if (n > 0 && !on_data(piece.data(), n)) return "the caller stopped reading the answer part way";
    }
    if (!parser.get().keep_alive()) Disconnect();
    return "";
  }

  PostOutcome Send(http::verb verb, const std::string& path, const std::string& body,
                   const std::function<void(int)>& on_status, const BodySink& on_data,
                   std::chrono::seconds within) {
    deadline = std::chrono::steady_clock::now() + within;
    PostOutcome outcome;
    bool stale = false;
    outcome.error = Exchange(verb, path, body, on_status, on_data, outcome.reused, stale);
    if (!outcome.error.empty()) Disconnect();
    if (stale) {
      stale = false;
      outcome.error = Exchange(verb, path, body, on_status, on_data, outcome.reused, stale);
      if (!outcome.error.empty()) Disconnect();
    }
    return outcome;
  }
};

HttpStreamClient::HttpStreamClient(HttpTarget target, std::string base_url, std::chrono::seconds connect_timeout,
                                   std::chrono::seconds read_timeout)
    : impl_(std::make_unique<Impl>()) {
  impl_->target = std::move(target);
  impl_->base_url = std::move(base_url);
  impl_->connect_timeout = connect_timeout;
  impl_->read_timeout = read_timeout;
}

HttpStreamClient::~HttpStreamClient() = default;

PostOutcome HttpStreamClient::Post(const std::string& path, const std::string& body,
                                   const std::function<void(int)>& on_status,
                                   const BodySink& on_data, std::chrono::seconds whole_answer_within) {
  return impl_->Send(http::verb::post, path, body, on_status, on_data, whole_answer_within);
}

PostOutcome HttpStreamClient::Get(const std::string& path, const std::function<void(int)>& on_status,
                                  const BodySink& on_data, std::chrono::seconds whole_answer_within) {
  return impl_->Send(http::verb::get, path, "", on_status, on_data, whole_answer_within);
}

}  // namespace vt::bench
