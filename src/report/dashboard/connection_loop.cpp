#include "report/dashboard/connection_loop.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "error/error.h"

namespace kh::report::dashboard {
namespace {

constexpr std::string_view kHeadEnd = "\r\n\r\n";

std::string peer_address(const sockaddr_storage& a) {
  char text[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in&>(a).sin_addr, text, sizeof text);
  } else if (a.ss_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6&>(a).sin6_addr, text, sizeof text);
  }
  return text;
}

std::string reply_text(int status, std::string_view reason, std::string_view body) {
  return "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason) +
         "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + std::string(body);
}

void send_quietly(int fd, std::string_view bytes) {
  // Best effort on a connection being closed: a peer that reads nothing loses the reply.
  (void)::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

}  // namespace

Connection::~Connection() {
  if (fd >= 0) ::close(fd);
}

ConnectionLoop::ConnectionLoop(const ServerLimits& limits) : limits_(limits) {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (epoll_fd_ < 0 || wake_fd_ < 0)
    throw Error(std::string("serve: cannot set up the event loop: ") + std::strerror(errno));
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = wake_fd_;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev);
}

ConnectionLoop::~ConnectionLoop() {
  waiting_.clear();
  resumed_.clear();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
}

int ConnectionLoop::bind(const std::string& host, int port) {
  const auto fail = [&](const std::string& why) {
    return Error(Location{"", 0, "--port"},
                 "cannot listen on " + host + ":" + std::to_string(port) + " (" + why + ")");
  };
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0 || found == nullptr)
    throw fail("not an address of this host");
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> owner(found, ::freeaddrinfo);
  const int fd = ::socket(found->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) throw fail(std::strerror(errno));
  const int yes = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  if (::bind(fd, found->ai_addr, found->ai_addrlen) != 0 || ::listen(fd, limits_.backlog) != 0) {
    const std::string why = errno == EADDRINUSE ? "in use" : std::strerror(errno);
    ::close(fd);
    throw fail(why);
  }
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
  listen_fd_ = fd;
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = listen_fd_;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &ev);
  return ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6&>(bound).sin6_port
                                           : reinterpret_cast<sockaddr_in&>(bound).sin_port);
}

void ConnectionLoop::wake() {
  const std::uint64_t one = 1;
  (void)!::write(wake_fd_, &one, sizeof one);
}

void ConnectionLoop::stop() {
  stopping_ = true;
  wake();
}

void ConnectionLoop::forget(const std::string& address) {
  std::lock_guard lock(mutex_);
  if (--open_[address] == 0) open_.erase(address);
  --open_total_;
}

void ConnectionLoop::release(std::unique_ptr<Connection> c) {
  const std::string address = c->address;
  c.reset();
  forget(address);
}

void ConnectionLoop::resume(std::unique_ptr<Connection> c) {
  {
    std::lock_guard lock(mutex_);
    resumed_.push_back(std::move(c));
  }
  wake();
}

void ConnectionLoop::watch(std::unique_ptr<Connection> c, std::chrono::milliseconds timeout) {
  const int fd = c->fd;
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP;
  ev.data.fd = fd;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
  const auto now = Clock::now();
  waiting_[fd] = Waiting{std::move(c), now + timeout, now};
}

void ConnectionLoop::close_waiting(int fd, std::string_view reply) {
  const auto it = waiting_.find(fd);
  if (it == waiting_.end()) return;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  if (!reply.empty()) send_quietly(fd, reply);
  const std::string address = it->second.connection->address;
  waiting_.erase(it);
  forget(address);
}

bool ConnectionLoop::make_room(const std::string& address) {
  std::size_t here = 0, total = 0;
  {
    std::lock_guard lock(mutex_);
    const auto it = open_.find(address);
    here = it == open_.end() ? 0 : it->second;
    total = open_total_;
  }
  if (here < limits_.connections_per_address && total < limits_.connections) return true;
  // The oldest waiting connection (of this address, else of any when the total is at
  // its limit) makes room: a request in a worker is never cut off.
  const bool any = here < limits_.connections_per_address;
  auto oldest = waiting_.end();
  for (auto it = waiting_.begin(); it != waiting_.end(); ++it) {
    if (!any && it->second.connection->address != address) continue;
    if (oldest == waiting_.end() || it->second.since < oldest->second.since) oldest = it;
  }
  if (oldest == waiting_.end()) return false;
  close_waiting(oldest->first, "");
  return true;
}

void ConnectionLoop::accept_all() {
  for (;;) {
    sockaddr_storage peer{};
    socklen_t len = sizeof peer;
    const int fd =
        ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&peer), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN: all taken; EMFILE and the like: the backlog waits
    auto c = std::make_unique<Connection>();
    c->fd = fd;
    c->address = peer_address(peer);
    if (!make_room(c->address)) continue;  // every connection of the address is being served
    {
      std::lock_guard lock(mutex_);
      ++open_[c->address];
      ++open_total_;
    }
    watch(std::move(c), limits_.head_timeout);
  }
}

bool ConnectionLoop::dispatch_if_ready(int fd, const Dispatch& dispatch) {
  auto it = waiting_.find(fd);
  Connection& c = *it->second.connection;
  if (c.buffer.find(kHeadEnd) == std::string::npos) {
    if (c.buffer.size() > limits_.head_bytes) {
      close_waiting(fd, reply_text(431, "Request Header Fields Too Large",
                                   "431: the request's line and headers are over " +
                                       std::to_string(limits_.head_bytes) + " bytes\n"));
      return true;
    }
    return false;
  }
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  std::unique_ptr<Connection> ready = std::move(it->second.connection);
  waiting_.erase(it);
  if (!dispatch(ready)) {
    send_quietly(ready->fd,
                 reply_text(503, "Service Unavailable", "503: the dashboard is busy; try again\n"));
    release(std::move(ready));
  }
  return true;
}

void ConnectionLoop::read_ready(int fd, const Dispatch& dispatch) {
  auto it = waiting_.find(fd);
  if (it == waiting_.end()) return;
  Connection& c = *it->second.connection;
  const bool was_idle = c.buffer.empty() && c.served > 0;
  char chunk[16384];
  bool closed = false;
  for (;;) {
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n > 0) {
      c.buffer.append(chunk, static_cast<std::size_t>(n));
      if (c.buffer.size() > limits_.head_bytes + sizeof chunk) break;  // enough to judge
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    closed = n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
    break;
  }
  // A peer that sent its request and shut its side is still answered.
  if (closed && c.buffer.find(kHeadEnd) == std::string::npos) {
    close_waiting(fd, "");
    return;
  }
  // A kept-alive connection that starts a request gets the head's time from now.
  if (was_idle && !c.buffer.empty()) it->second.deadline = Clock::now() + limits_.head_timeout;
  dispatch_if_ready(fd, dispatch);
}

void ConnectionLoop::expire() {
  const auto now = Clock::now();
  std::vector<int> late;
  for (const auto& [fd, w] : waiting_) {
    if (w.deadline <= now) late.push_back(fd);
  }
  for (const int fd : late) {
    const Connection& c = *waiting_.at(fd).connection;
    const bool mid_request = !c.buffer.empty();
    close_waiting(fd, mid_request
                          ? reply_text(408, "Request Timeout", "408: the request's head took too long\n")
                          : std::string());
  }
}

void ConnectionLoop::take_resumed(const Dispatch& dispatch) {
  std::vector<std::unique_ptr<Connection>> back;
  {
    std::lock_guard lock(mutex_);
    back.swap(resumed_);
  }
  for (auto& c : back) {
    const int fd = c->fd;
    const bool pipelined = !c->buffer.empty();
    watch(std::move(c), pipelined ? limits_.head_timeout : limits_.idle_timeout);
    if (pipelined) dispatch_if_ready(fd, dispatch);
  }
}

void ConnectionLoop::run(const Dispatch& dispatch) {
  running_ = true;
  std::vector<epoll_event> events(256);
  while (!stopping_) {
    const int n = ::epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), 100);
    for (int i = 0; i < n; ++i) {
      const int fd = events[static_cast<std::size_t>(i)].data.fd;
      if (fd == listen_fd_) {
        accept_all();
      } else if (fd == wake_fd_) {
        std::uint64_t count = 0;
        (void)!::read(wake_fd_, &count, sizeof count);
      } else {
        read_ready(fd, dispatch);
      }
    }
    take_resumed(dispatch);
    expire();
  }
  running_ = false;
}

}  // namespace kh::report::dashboard
