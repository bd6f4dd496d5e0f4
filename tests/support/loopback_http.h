// A bare HTTP/1.1 client over loopback sockets, and `kharness serve` run as a child
// process, for the dashboard's load tests and benchmark: each request is timed from
// connect to the last byte, and misbehaving clients (idle, slowloris, huge headers) are
// plain sockets the caller holds.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace kh::test {

struct HttpReply {
  int status = 0;  // 0: no reply (refused, reset, timed out)
  double ms = 0;   // connect to the reply's last byte
  std::string text;
};

// A connected loopback socket, or -1.
inline int connect_loopback(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Sends `request` on a fresh connection and reads until the server closes it.
inline HttpReply http_exchange(int port, const std::string& request,
                               std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  HttpReply r;
  const auto t0 = std::chrono::steady_clock::now();
  const int fd = connect_loopback(port);
  if (fd < 0) return r;
  for (std::size_t sent = 0; sent < request.size();) {
    const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<std::size_t>(n);
  }
  char buf[65536];
  const auto deadline = t0 + timeout;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    r.text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (r.text.rfind("HTTP/1.", 0) == 0 && r.text.size() > 12) r.status = std::atoi(r.text.c_str() + 9);
  return r;
}

inline HttpReply http_get(int port, const std::string& path) {
  return http_exchange(port, "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
}

inline double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto i = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

// `kharness serve --archive DIR --port 0` as a child; the port it printed.
class ServeProcess {
 public:
  ServeProcess(const std::string& kharness, const std::filesystem::path& archive,
               const std::vector<std::string>& extra = {}) {
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) return;
    std::vector<std::string> args = {kharness, "serve", "--archive", archive.string(), "--port", "0"};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    if (::posix_spawn(&pid_, argv[0], &fa, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&fa);
    ::close(out[1]);
    std::string line;
    char c = 0;
    while (line.find('\n') == std::string::npos && ::read(out[0], &c, 1) == 1) line += c;
    ::close(out[0]);
    // "serving DIR on http://127.0.0.1:PORT/ (...)"
    const std::size_t at = line.find("127.0.0.1:");
    if (at != std::string::npos) port_ = std::atoi(line.c_str() + at + 10);
  }
  ~ServeProcess() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

// Connections that connect and say nothing (or, with `slowloris`, a request head one
// byte every `interval`) until destroyed.
class HeldConnections {
 public:
  HeldConnections(int port, int count) {
    for (int i = 0; i < count; ++i) fds_.push_back(connect_loopback(port));
  }
  ~HeldConnections() {
    for (int fd : fds_) {
      if (fd >= 0) ::close(fd);
    }
  }
  HeldConnections(const HeldConnections&) = delete;
  HeldConnections& operator=(const HeldConnections&) = delete;
  [[nodiscard]] int opened() const {
    return static_cast<int>(std::count_if(fds_.begin(), fds_.end(), [](int fd) { return fd >= 0; }));
  }
  // Sends the next byte of an endless request head on every connection.
  void drip(std::size_t step) {
    static const std::string head = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
    const char c = step < head.size() ? head[step] : 'a';
    for (int fd : fds_) {
      if (fd >= 0) (void)::send(fd, &c, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
  }

 private:
  std::vector<int> fds_;
};

}  // namespace kh::test
