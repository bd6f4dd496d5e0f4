#include "report/dashboard/connection_stream.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace kh::report::dashboard {
namespace {

void ip_and_port(const sockaddr_storage& a, std::string& ip, int& port) {
  char text[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(a);
    inet_ntop(AF_INET, &v4.sin_addr, text, sizeof text);
    port = ntohs(v4.sin_port);
  } else if (a.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(a);
    inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof text);
    port = ntohs(v6.sin6_port);
  }
  ip = text;
}

}  // namespace

bool ConnectionStream::wait(short events) const {
  pollfd p{c_.fd, events, 0};
  for (;;) {
    const int n = ::poll(&p, 1, static_cast<int>(timeout_.count()));
    if (n < 0 && errno == EINTR) continue;
    return n > 0 && (p.revents & (events | POLLHUP)) != 0;
  }
}

bool ConnectionStream::is_readable() const { return !c_.buffer.empty() || wait(POLLIN); }

bool ConnectionStream::is_writable() const { return wait(POLLOUT); }

ssize_t ConnectionStream::read(char* ptr, size_t size) {
  if (!c_.buffer.empty()) {
    const std::size_t n = std::min(size, c_.buffer.size());
    std::memcpy(ptr, c_.buffer.data(), n);
    c_.buffer.erase(0, n);
    return static_cast<ssize_t>(n);
  }
  if (!wait(POLLIN)) return -1;
  for (;;) {
    const ssize_t n = ::recv(c_.fd, ptr, size, 0);
    if (n < 0 && errno == EINTR) continue;
    return n;
  }
}

ssize_t ConnectionStream::write(const char* ptr, size_t size) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::send(c_.fd, ptr + done, size - done, MSG_NOSIGNAL);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!wait(POLLOUT)) return done > 0 ? static_cast<ssize_t>(done) : -1;  // a reader that stopped reading
    } else {
      return done > 0 ? static_cast<ssize_t>(done) : -1;
    }
  }
  return static_cast<ssize_t>(done);
}

void ConnectionStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (::getpeername(c_.fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) ip_and_port(a, ip, port);
}

void ConnectionStream::get_local_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (::getsockname(c_.fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) ip_and_port(a, ip, port);
}

}  // namespace kh::report::dashboard
