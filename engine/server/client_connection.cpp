#include "engine/server/client_connection.h"

#include <dirent.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cstdlib>
#include <string>

namespace vt::server {
namespace {

// A socket address as httplib writes Request::remote_addr and local_addr: numeric host, port.
bool AddressIs(const sockaddr_storage& addr, socklen_t len, const std::string& host, int port) {
  char name[NI_MAXHOST];
  char service[NI_MAXSERV];
  if (::getnameinfo(reinterpret_cast<const sockaddr*>(&addr), len, name, sizeof name, service, sizeof service,
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
    return false;
  }
  return host == name && port == std::atoi(service);
}

bool IsConnection(int fd, const httplib::Request& req) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) return false;
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0 ||
      !AddressIs(addr, len, req.remote_addr, req.remote_port)) {
    return false;
  }
  len = sizeof addr;
  return ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0 &&
         AddressIs(addr, len, req.local_addr, req.local_port);
}

}  // namespace

Result<ClientConnection> ClientConnection::Of(const httplib::Request& req) {
  // The handler's own connection is open for as long as the handler runs, so the descriptor
  // found here stays this connection's until the handler returns.
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return Unavailable("cannot list /proc/self/fd");
  int found = -1;
  while (const dirent* e = ::readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(e->d_name, &end, 10);
    if (*end != '\0' || end == e->d_name || fd == ::dirfd(dir)) continue;
    if (IsConnection(static_cast<int>(fd), req)) {
      found = static_cast<int>(fd);
      break;
    }
  }
  ::closedir(dir);
  if (found < 0) {
    return NotFound("no socket of this process connects " + req.local_addr + ":" + std::to_string(req.local_port) +
                    " to " + req.remote_addr + ":" + std::to_string(req.remote_port));
  }
  return ClientConnection(found);
}

bool ClientConnection::Closed() const {
  pollfd p{fd_, POLLRDHUP, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

}  // namespace vt::server
