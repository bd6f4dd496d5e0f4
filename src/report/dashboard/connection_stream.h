// cpp-httplib's Stream over a Connection that the event loop dispatched: reads come from
// the bytes the loop already buffered, then from the socket, each wait bounded by the
// I/O timeout; bytes read past the request stay buffered for the next one (pipelining).
#pragma once

#include <httplib.h>

#include <chrono>

#include "report/dashboard/connection_loop.h"

namespace kh::report::dashboard {

class ConnectionStream final : public httplib::Stream {
 public:
  ConnectionStream(Connection& c, std::chrono::milliseconds io_timeout) : c_(c), timeout_(io_timeout) {}

  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override { return c_.fd; }

 private:
  bool wait(short events) const;

  Connection& c_;
  std::chrono::milliseconds timeout_;
};

}  // namespace kh::report::dashboard
