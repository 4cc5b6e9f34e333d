#include "engine/server/http_listener.h"

#include <thread>
#include <utility>
#include <vector>

#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>

namespace vt::server {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

HttpListener::HttpListener(ListenerOptions options, HttpHandler handler)
    : options_(std::move(options)),
      acceptor_(asio::make_strand(io_)),
      retry_(acceptor_.get_executor()),
      workers_(static_cast<size_t>(options_.handler_threads)),
      shared_(std::make_shared<HttpShared>()) {
  shared_->config = options_.http;
  shared_->handler = std::move(handler);
  shared_->workers = &workers_;
}

HttpListener::~HttpListener() {
  Close();
  workers_.join();
}

Status HttpListener::Bind() {
  boost::system::error_code ec;
  tcp::resolver resolver(io_);
  const auto endpoints = resolver.resolve(options_.host, std::to_string(options_.port), ec);
  const std::string where = options_.host + ":" + std::to_string(options_.port);
  if (ec || endpoints.empty()) return Unavailable("cannot listen on " + where + ": " + ec.message());
  const tcp::endpoint endpoint = *endpoints.begin();
  if (acceptor_.open(endpoint.protocol(), ec); !ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
  // Linux copies TCP_NODELAY from the listening socket to every accepted one; Accept sets it on
  // each too, where that is not so. Without it a small SSE event written right after the headers
  // waits for the client's delayed ACK (~40 ms) on every keep-alive request after the first.
  if (!ec) acceptor_.set_option(tcp::no_delay(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(options_.listen_backlog, ec);
  if (ec) {
    return Unavailable("cannot listen on " + where + " (in use, or not an address of this machine): " + ec.message());
  }
  port_ = acceptor_.local_endpoint().port();
  Accept();
  return Status::Ok();
}

void HttpListener::Accept() {
  acceptor_.async_accept(asio::make_strand(io_), [this](boost::system::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;
    if (ec) {
      // Out of descriptors (or a connection reset before it was accepted): try again shortly
      // rather than spin on the error.
      retry_.expires_after(std::chrono::milliseconds(50));
      retry_.async_wait([this](boost::system::error_code e) {
        if (!e) Accept();
      });
      return;
    }
    boost::system::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    std::unique_lock<std::mutex> lock(registry_->mu);
    if (registry_->sessions.size() >= static_cast<size_t>(options_.max_connections)) {
      lock.unlock();
      std::make_shared<HttpSession>(std::move(socket), shared_, nullptr)
          ->Reject(503, "the server has " + std::to_string(options_.max_connections) +
                            " open connections, its limit; retry later or reuse a connection");
    } else {
      const uint64_t id = registry_->next++;
      std::weak_ptr<Registry> registry = registry_;
      auto session = std::make_shared<HttpSession>(std::move(socket), shared_, [registry, id] {
        if (std::shared_ptr<Registry> r = registry.lock()) {
          std::lock_guard<std::mutex> guard(r->mu);
          r->sessions.erase(id);
        }
      });
      registry_->sessions[id] = session;
      lock.unlock();
      session->Start();
    }
    Accept();
  });
}

void HttpListener::Serve() {
  std::vector<std::thread> threads;
  for (int i = 1; i < options_.io_threads; ++i) threads.emplace_back([this] { io_.run(); });
  io_.run();
  for (std::thread& t : threads) t.join();
}

template <typename F>
void HttpListener::ForEachSession(F f) {
  std::vector<std::shared_ptr<HttpSession>> live;
  {
    std::lock_guard<std::mutex> lock(registry_->mu);
    for (auto& [id, weak] : registry_->sessions) {
      if (std::shared_ptr<HttpSession> s = weak.lock()) live.push_back(std::move(s));
    }
  }
  for (const std::shared_ptr<HttpSession>& s : live) f(*s);
}

void HttpListener::StopAccepting() {
  asio::post(acceptor_.get_executor(), [this] {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    retry_.cancel();
  });
  ForEachSession([](HttpSession& s) { s.Drain(); });
}

void HttpListener::Close() {
  StopAccepting();
  ForEachSession([](HttpSession& s) { s.Abort(); });
}

void HttpListener::Post(std::function<void()> f) { boost::asio::post(io_, std::move(f)); }

}  // namespace vt::server
