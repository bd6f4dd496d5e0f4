// What the dashboard's server gives any one client, so that none can starve the rest:
// idle and half-sent connections wait in one event loop and hold no worker; a request
// reaches the bounded worker pool only once its whole head has arrived; every wait has
// a deadline; and one address holds a bounded number of connections.
#pragma once

#include <chrono>
#include <cstddef>

namespace kh::report::dashboard {

struct ServerLimits {
  std::size_t workers = 8;                         // threads that answer requests (bounded pool)
  std::size_t queue = 256;                         // requests waiting for a worker; beyond it, 503 at once
  int backlog = 1024;                              // listen(2) backlog (the kernel caps it at somaxconn)
  std::size_t connections = 4096;                  // open connections in all
  std::size_t connections_per_address = 256;       // open connections of one client address
  std::size_t head_bytes = 64 * 1024;              // a request's line and headers (431 beyond)
  std::chrono::milliseconds head_timeout{10'000};  // for the whole head to arrive
  std::chrono::milliseconds idle_timeout{5'000};   // a kept-alive connection's wait for its next request
  std::chrono::milliseconds io_timeout{5'000};     // a worker's wait on one read or write
  std::size_t requests_per_connection = 100;
};

}  // namespace kh::report::dashboard
