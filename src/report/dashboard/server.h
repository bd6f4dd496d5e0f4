// Serves a Dashboard over HTTP: GET (and HEAD) only, every other method is 405. Binds to
// 127.0.0.1 unless told otherwise. cpp-httplib parses requests, routes and writes
// responses; the sockets are kharness's own (connection_loop.h), because a thread per
// connection (cpp-httplib's model) lets a hundred idle connections or one slow client
// hold every worker. Limits in server_limits.h.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "report/dashboard/dashboard.h"
#include "report/dashboard/server_limits.h"

namespace kh::report::dashboard {

class Server {
 public:
  explicit Server(Dashboard& dashboard, const ServerLimits& limits = {});
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds; port 0 picks a free one. Returns the bound port; throws kh::Error when
  // the address cannot be bound.
  int bind(const std::string& host, int port);
  // Serves until stop() (from another thread or a signal handler's thread).
  void listen();
  void stop();
  [[nodiscard]] bool running() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kh::report::dashboard
