// One HTTP/1.1 connection of the server: reads requests (http_request_reader.h; pipelined ones
// too), hands each to the handler on the worker pool, and writes the replies in request order on
// the connection's strand, streamed ones as the engine wakes it. A client that goes away cancels
// whatever it had in flight. Every error the connection answers itself (malformed request, body
// or header over its limit, too slow, too many connections) is an OpenAI-shaped JSON body.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include "engine/server/http_exchange.h"
#include "engine/server/http_request_reader.h"

namespace vt::server {

struct HttpConfig {
  size_t max_body_bytes = 8u << 20;  // for every content type, chunked bodies included
  size_t max_header_bytes = 16u << 10;
  // A request's header must arrive within header_timeout of its first byte, its body within
  // body_timeout of the header; a connection with nothing in flight is closed after
  // idle_timeout; a write that makes no progress for write_timeout ends the connection.
  std::chrono::seconds header_timeout{30};
  std::chrono::seconds body_timeout{60};
  std::chrono::seconds idle_timeout{60};
  std::chrono::seconds write_timeout{60};
};

// What every connection of one listener shares.
struct HttpShared {
  HttpConfig config;
  HttpHandler handler;
  // Handlers parse, template and tokenize, which can take a while: they run here, off the I/O
  // threads, so one heavy request never delays another connection's bytes.
  boost::asio::thread_pool* workers = nullptr;
};

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  // `socket` runs on a strand; `on_destroy` runs when the session is gone (the listener counts
  // connections with it).
  HttpSession(boost::asio::ip::tcp::socket socket, std::shared_ptr<const HttpShared> shared,
              std::function<void()> on_destroy);
  ~HttpSession();

  // Reads and answers requests until the client or a timeout ends the connection.
  void Start();
  // Answers `error` without reading a request, then closes (the connection cap's 503).
  void Reject(int status, const std::string& message);
  // Thread-safe. Drain: answer what is in flight, read no further request, then close. Abort:
  // close now, cancelling what is in flight.
  void Drain();
  void Abort();

 private:
  struct Exchange;
  using Phase = HttpRequestReader::Phase;

  // Dispatches the requests already read, then reads more (or pauses at kMaxPipelined).
  void ReadRequest();
  void OnRequest(ParsedRequest parsed);
  void OnReadError(boost::system::error_code ec);
  void OnReply(const std::shared_ptr<Exchange>& ex, Reply reply);
  // Queues an error answered by the connection itself, after the replies before it, and ends the
  // connection once it is written.
  void Fail(int status, const std::string& message);
  // Writes whatever the replies at the front of the queue have ready, in request order.
  void Pump();
  void FinishFront(bool close);
  void Flush();
  // Reads and drops what the client sends, to see it leave (and for a graceful close).
  void Discard();
  // Sends FIN and waits briefly for the client's, so it reads the last response before the
  // socket closes (closing with unread input would reset the connection and lose it).
  void Linger();
  void Close();
  void ArmRead(std::chrono::steady_clock::duration after);

  boost::asio::ip::tcp::socket socket_;
  std::shared_ptr<const HttpShared> shared_;
  std::function<void()> on_destroy_;
  HttpRequestReader reader_;
  std::array<char, 16384> read_buf_{};
  boost::asio::steady_timer read_timer_;
  boost::asio::steady_timer write_timer_;
  uint64_t read_deadline_ = 0;  // which ArmRead a firing read timer belongs to
  Phase phase_ = Phase::kIdle;  // of the request being read, when its deadline was set
  bool reading_ = false;
  bool read_timed_out_ = false;
  bool no_more_requests_ = false;  // Connection: close, an error, or draining
  bool draining_ = false;
  bool lingering_ = false;
  bool closed_ = false;
  std::deque<std::shared_ptr<Exchange>> exchanges_;  // in request order
  std::string out_;      // bytes waiting for the write in progress to finish
  std::string writing_;  // the bytes of the write in progress
  bool writing_now_ = false;
  bool close_after_write_ = false;
};

}  // namespace vt::server
