#include "engine/server/http_listener.h"

#include <sys/socket.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

namespace vt::server {

HttpListener::HttpListener() {
  set_tcp_nodelay(true);
  set_keep_alive_max_count(std::numeric_limits<int32_t>::max());
}

Status HttpListener::WidenBacklog(int backlog) {
  const socket_t sock = svr_sock_;
  if (sock == INVALID_SOCKET) return Internal("the listener is not bound");
  if (::listen(sock, backlog) != 0) {
    return Internal("listen(backlog " + std::to_string(backlog) + "): " + std::strerror(errno));
  }
  return Status::Ok();
}

}  // namespace vt::server
