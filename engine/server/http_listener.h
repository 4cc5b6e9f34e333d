// cpp-httplib's server with the socket settings an API under load needs. Debian ships httplib as
// a compiled library, so its compile-time knobs (CPPHTTPLIB_LISTEN_BACKLOG = 5,
// CPPHTTPLIB_TCP_NODELAY = false) are fixed in the .so and defining them here would change nothing
// (and break the one-definition rule); these settings go through the socket itself instead.
#pragma once

#include <httplib.h>

#include "base/status.h"

namespace vt::server {

class HttpListener : public httplib::Server {
 public:
  // TCP_NODELAY on the listening socket, which Linux copies to every accepted one: without it a
  // small SSE event written right after the response headers waits for the client's delayed ACK
  // (~40 ms) on every keep-alive request after the first. Also keeps a connection alive for any
  // number of requests (httplib closes it after 5 by default, and clients reconnect).
  HttpListener();

  // A listen backlog of `backlog` connections on the bound socket (httplib listens with 5, so a
  // burst of connects was refused and retried for seconds). Linux lets listen() on a listening
  // socket change its backlog; the kernel caps it at net.core.somaxconn.
  Status WidenBacklog(int backlog);
};

}  // namespace vt::server
