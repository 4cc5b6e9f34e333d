// Whether the client of a request is still connected, asked while the request runs. Debian's
// cpp-httplib (0.11) gives a handler no socket and no is_connection_closed(), and a non-streaming
// handler writes nothing until the end, so a client that gave up would go unnoticed and its
// request would run to full length. The socket is found by the connection's addresses, which
// httplib does give the handler, and polled for the peer's FIN or a reset.
#pragma once

#include <httplib.h>

#include "base/status.h"

namespace vt::server {

class ClientConnection {
 public:
  // The socket of the connection `req` arrived on; NotFound when no open socket of this process
  // has its addresses.
  static Result<ClientConnection> Of(const httplib::Request& req);

  // True once the peer has closed or reset the connection. Data the client sent ahead (a
  // pipelined request) is not a close.
  bool Closed() const;

 private:
  explicit ClientConnection(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace vt::server
