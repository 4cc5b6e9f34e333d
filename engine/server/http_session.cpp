#include "engine/server/http_session.h"

#include <atomic>
#include <cstdio>
#include <utility>

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/status.hpp>

#include "engine/server/api_error.h"

namespace vt::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

// Requests a client may send ahead of their answers. Past this the connection reads no more
// until the first ones are answered (and a client that leaves meanwhile is seen when it does).
constexpr size_t kMaxPipelined = 16;
// How long a closing connection waits for the client's FIN after sending its own.
constexpr auto kLinger = std::chrono::seconds(2);

std::string StatusLine(int status) {
  const beast::string_view reason = http::obsolete_reason(static_cast<http::status>(status));
  return "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason.data(), reason.size()) + "\r\n";
}

std::string ErrorJson(int status, const std::string& message) {
  const std::string type = status == 503 ? "ServiceUnavailableError" : "BadRequestError";
  return ApiError{status, message, type, "", ""}.ToJson().dump();
}

// A whole response with its Content-Length.
std::string Whole(const HttpResponse& r, bool http10, bool keep_alive) {
  std::string out = StatusLine(r.status);
  out += "Content-Type: " + r.content_type + "\r\nContent-Length: " + std::to_string(r.body.size()) + "\r\n";
  // HTTP/1.0 closes by default and HTTP/1.1 keeps alive: say so only where it differs.
  if (!keep_alive) out += "Connection: close\r\n";
  if (keep_alive && http10) out += "Connection: keep-alive\r\n";
  out += "\r\n";
  out += r.body;
  return out;
}

// The head of a streamed response: chunked on HTTP/1.1; HTTP/1.0 has no chunks, so the body
// ends with the connection.
std::string StreamHead(const HttpResponse& r, bool http10, bool keep_alive) {
  std::string out = StatusLine(r.status);
  out += "Content-Type: " + r.content_type + "\r\nCache-Control: no-cache\r\n";
  out += http10 ? "Connection: close\r\n" : "Transfer-Encoding: chunked\r\n";
  if (!http10 && !keep_alive) out += "Connection: close\r\n";
  out += "\r\n";
  return out;
}

std::string Chunk(const std::string& data) {
  char size[24];
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  return size + data + "\r\n";
}

}  // namespace

struct HttpSession::Exchange {
  bool http10 = false;
  bool keep_alive = true;
  bool ready = false;  // the handler has answered
  bool head_sent = false;
  Reply reply;
  // Set while a wake is posted and not yet handled: the choices' streams (n > 1) each wake it,
  // and one Pump takes everything that is there.
  std::atomic<bool> woken{false};
};

HttpSession::HttpSession(asio::ip::tcp::socket socket, std::shared_ptr<const HttpShared> shared,
                         std::function<void()> on_destroy)
    : socket_(std::move(socket)),
      shared_(std::move(shared)),
      on_destroy_(std::move(on_destroy)),
      reader_(shared_->config.max_header_bytes, shared_->config.max_body_bytes),
      read_timer_(socket_.get_executor()),
      write_timer_(socket_.get_executor()) {}

HttpSession::~HttpSession() {
  if (on_destroy_) on_destroy_();
}

void HttpSession::Start() {
  asio::post(socket_.get_executor(), [self = shared_from_this()] { self->ReadRequest(); });
}

void HttpSession::Reject(int status, const std::string& message) {
  asio::post(socket_.get_executor(), [self = shared_from_this(), status, message] {
    self->no_more_requests_ = true;
    self->out_ = Whole({status, "application/json", ErrorJson(status, message)}, false, false);
    self->close_after_write_ = true;
    self->Flush();
  });
}

void HttpSession::Drain() {
  asio::post(socket_.get_executor(), [self = shared_from_this()] {
    self->draining_ = true;
    self->no_more_requests_ = true;
    if (self->exchanges_.empty() && !self->writing_now_) return self->Close();
    self->Discard();
  });
}

void HttpSession::Abort() {
  asio::post(socket_.get_executor(), [self = shared_from_this()] { self->Close(); });
}

void HttpSession::ArmRead(std::chrono::steady_clock::duration after) {
  const uint64_t deadline = ++read_deadline_;
  read_timer_.expires_after(after);
  read_timer_.async_wait([self = shared_from_this(), deadline](boost::system::error_code ec) {
    if (ec || deadline != self->read_deadline_ || self->closed_) return;
    if (self->lingering_) return self->Close();
    // Ends the pending read, leaving the connection open for the 408 that says why. Asio can
    // cancel only every operation of a socket, so while an earlier reply is being written the
    // read side is shut instead (which ends the read with EOF).
    self->read_timed_out_ = true;
    boost::system::error_code ignored;
    if (self->writing_now_) {
      self->socket_.shutdown(asio::ip::tcp::socket::shutdown_receive, ignored);
    } else {
      self->socket_.cancel(ignored);
    }
  });
}

void HttpSession::ReadRequest() {
  if (closed_ || reading_) return;
  while (!no_more_requests_ && exchanges_.size() < kMaxPipelined) {
    std::optional<ParsedRequest> parsed = reader_.Next();
    if (!parsed) break;
    OnRequest(std::move(*parsed));
  }
  if (reader_.error() && !no_more_requests_) return Fail(reader_.error()->status, reader_.error()->message);
  if (no_more_requests_) return Discard();
  if (exchanges_.size() >= kMaxPipelined) return;
  // curl asks before sending a large body. The interim answer may only go out when every reply
  // before this request is already queued, or it would land inside one of them.
  if (exchanges_.empty() && reader_.TakeContinue()) {
    out_ += "HTTP/1.1 100 Continue\r\n\r\n";
    Flush();
  }
  // A request's header has header_timeout from its first byte, its body body_timeout from the end
  // of its header. Between requests a connection with nothing in flight has idle_timeout; one
  // with requests in flight has no deadline: this read is how a client that leaves is noticed.
  const Phase phase = reader_.phase();
  if (phase != phase_ || phase == Phase::kIdle) {
    phase_ = phase;
    if (phase == Phase::kHeader) ArmRead(shared_->config.header_timeout);
    if (phase == Phase::kBody) ArmRead(shared_->config.body_timeout);
    if (phase == Phase::kIdle && exchanges_.empty()) ArmRead(shared_->config.idle_timeout);
    if (phase == Phase::kIdle && !exchanges_.empty()) {
      ++read_deadline_;
      read_timer_.cancel();
    }
  }
  reading_ = true;
  socket_.async_read_some(asio::buffer(read_buf_), [self = shared_from_this()](boost::system::error_code ec, size_t n) {
    self->reading_ = false;
    if (ec) return self->OnReadError(ec);
    if (self->lingering_) return self->Discard();
    self->reader_.Append(self->read_buf_.data(), n);
    self->ReadRequest();
  });
}

void HttpSession::OnRequest(ParsedRequest parsed) {
  auto ex = std::make_shared<Exchange>();
  ex->http10 = parsed.request.http10;
  ex->keep_alive = parsed.keep_alive && !draining_;
  if (!ex->keep_alive) no_more_requests_ = true;
  phase_ = Phase::kIdle;  // bytes after it belong to the next request, with deadlines of its own
  exchanges_.push_back(ex);
  asio::post(*shared_->workers, [self = shared_from_this(), ex, r = std::move(parsed.request)] {
    Reply reply = self->shared_->handler(r);
    asio::post(self->socket_.get_executor(),
               [self, ex, reply = std::move(reply)]() mutable { self->OnReply(ex, std::move(reply)); });
  });
}

void HttpSession::OnReadError(boost::system::error_code) {
  if (closed_) return;
  if (lingering_) return Close();
  if (read_timed_out_ && phase_ != Phase::kIdle) {
    const bool header = phase_ == Phase::kHeader;
    const auto limit = header ? shared_->config.header_timeout : shared_->config.body_timeout;
    return Fail(408, std::string("the request ") + (header ? "header" : "body") + " did not arrive within " +
                         std::to_string(limit.count()) + " s");
  }
  // An idle connection's deadline passed, or the client closed or reset the connection: whatever
  // it had in flight is cancelled.
  Close();
}

void HttpSession::Fail(int status, const std::string& message) {
  no_more_requests_ = true;
  auto ex = std::make_shared<Exchange>();
  ex->keep_alive = false;
  ex->ready = true;
  ex->reply.response = {status, "application/json", ErrorJson(status, message)};
  exchanges_.push_back(ex);
  Pump();
}

void HttpSession::OnReply(const std::shared_ptr<Exchange>& ex, Reply reply) {
  if (closed_) {
    if (reply.pending) reply.pending->Cancel();
    return;
  }
  ex->reply = std::move(reply);
  ex->ready = true;
  if (ex->reply.pending) {
    // Weak on both: the engine's stream holds this function, and the exchange holds the stream.
    std::weak_ptr<HttpSession> weak_self = shared_from_this();
    std::weak_ptr<Exchange> weak_ex = ex;
    ex->reply.pending->Start([weak_self, weak_ex] {
      std::shared_ptr<HttpSession> self = weak_self.lock();
      std::shared_ptr<Exchange> e = weak_ex.lock();
      if (!self || !e || e->woken.exchange(true)) return;
      asio::post(self->socket_.get_executor(), [self, e] {
        e->woken.store(false);
        self->Pump();
      });
    });
  }
  Pump();
}

void HttpSession::Pump() {
  while (!closed_ && !exchanges_.empty() && exchanges_.front()->ready) {
    Exchange& ex = *exchanges_.front();
    Reply& r = ex.reply;
    if (!r.pending) {
      out_ += Whole(r.response, ex.http10, ex.keep_alive);
      FinishFront(!ex.keep_alive);
      continue;
    }
    ReplyPart part = r.pending->Poll();
    if (!r.streamed) {
      if (!part.done) break;
      out_ += Whole(part.response, ex.http10, ex.keep_alive);
      FinishFront(!ex.keep_alive);
      continue;
    }
    if (!ex.head_sent) {
      out_ += StreamHead(r.response, ex.http10, ex.keep_alive);
      ex.head_sent = true;
    }
    if (!part.response.body.empty()) out_ += ex.http10 ? part.response.body : Chunk(part.response.body);
    if (!part.done) break;
    if (!ex.http10) out_ += "0\r\n\r\n";
    FinishFront(ex.http10 || !ex.keep_alive);
  }
  Flush();
}

void HttpSession::FinishFront(bool close) {
  exchanges_.pop_front();
  if (close || (draining_ && exchanges_.empty())) {
    close_after_write_ = true;
    exchanges_.clear();
    return;
  }
  ReadRequest();  // reading may have paused at kMaxPipelined
}

void HttpSession::Flush() {
  if (closed_ || writing_now_) return;
  if (out_.empty()) {
    if (close_after_write_) return Linger();
    // The last reply is out: an idle connection gets its deadline back.
    if (exchanges_.empty() && reading_ && phase_ == Phase::kIdle) ArmRead(shared_->config.idle_timeout);
    return;
  }
  writing_now_ = true;
  writing_.swap(out_);
  out_.clear();
  write_timer_.expires_after(shared_->config.write_timeout);
  write_timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
    if (!ec) self->Close();  // the client stopped reading
  });
  asio::async_write(socket_, asio::buffer(writing_), [self = shared_from_this()](boost::system::error_code ec, size_t) {
    self->writing_now_ = false;
    self->write_timer_.cancel();
    self->writing_.clear();
    if (ec) return self->Close();
    self->Flush();
  });
}

void HttpSession::Discard() {
  if (closed_ || reading_) return;
  reading_ = true;
  socket_.async_read_some(asio::buffer(read_buf_), [self = shared_from_this()](boost::system::error_code ec, size_t) {
    self->reading_ = false;
    if (ec) return self->Close();
    self->Discard();
  });
}

void HttpSession::Linger() {
  if (closed_ || lingering_) return;
  lingering_ = true;
  boost::system::error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
  ArmRead(kLinger);
  // A request read in progress ends with the client's FIN too.
  if (!reading_) Discard();
}

void HttpSession::Close() {
  if (closed_) return;
  closed_ = true;
  for (const std::shared_ptr<Exchange>& ex : exchanges_) {
    if (ex->ready && ex->reply.pending) ex->reply.pending->Cancel();
  }
  exchanges_.clear();
  ++read_deadline_;
  read_timer_.cancel();
  write_timer_.cancel();
  boost::system::error_code ignored;
  socket_.close(ignored);
}

}  // namespace vt::server
