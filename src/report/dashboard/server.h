// Serves a Dashboard over HTTP with cpp-httplib: GET (and HEAD) only, every other
// method is 405. Binds to 127.0.0.1 unless told otherwise.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "report/dashboard/dashboard.h"

namespace kh::report::dashboard {

class Server {
 public:
  explicit Server(Dashboard& dashboard);
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
