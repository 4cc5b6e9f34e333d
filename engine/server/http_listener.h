// The server's listening socket and its I/O threads: a few threads multiplex every connection
// (Boost.Asio), so a slow or idle client costs a socket and a little memory, never a thread.
// Accepted sockets get TCP_NODELAY; past `max_connections` a connection is answered 503 and
// closed; the listen backlog is set on the socket itself.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>

#include "base/status.h"
#include "engine/server/http_exchange.h"
#include "engine/server/http_session.h"

namespace vt::server {

struct ListenerOptions {
  std::string host = "127.0.0.1";
  int port = 8000;              // 0: any free port (see port())
  int listen_backlog = 1024;    // connections the kernel queues before they are accepted
  int max_connections = 4096;   // open connections; more are answered 503
  int io_threads = 2;           // threads that read and write sockets
  int handler_threads = 4;      // threads that run the request handlers
  HttpConfig http;
};

class HttpListener {
 public:
  HttpListener(ListenerOptions options, HttpHandler handler);
  ~HttpListener();

  // Binds and listens; fails with the reason when it cannot.
  Status Bind();
  int port() const { return port_; }
  // Serves until the listener is closed and every connection has ended.
  void Serve();
  // Thread-safe. Closes the listening socket; connections answer what they have in flight and
  // then close, so Serve returns once those have finished.
  void StopAccepting();
  // Thread-safe. StopAccepting, and closes every connection now (cancelling its requests).
  void Close();
  // Thread-safe. Runs `f` on one of the I/O threads (never, once they have stopped).
  void Post(std::function<void()> f);

 private:
  void Accept();
  // Calls `f` with every live connection.
  template <typename F>
  void ForEachSession(F f);

  ListenerOptions options_;
  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;  // on a strand: accepted on one thread, closed from another
  boost::asio::steady_timer retry_;  // accept again after running out of descriptors
  boost::asio::thread_pool workers_;
  std::shared_ptr<HttpShared> shared_;
  int port_ = 0;

  // Live connections, for the cap and for StopAccepting / Close; shared with the sessions'
  // destructors, which may run after the listener is gone.
  struct Registry {
    std::mutex mu;
    uint64_t next = 0;
    std::map<uint64_t, std::weak_ptr<HttpSession>> sessions;
  };
  std::shared_ptr<Registry> registry_ = std::make_shared<Registry>();
};

}  // namespace vt::server
