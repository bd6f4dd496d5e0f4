// The server's event loop (Linux epoll): accepts connections, reads each request's head
// without a thread per connection, and hands a connection to `dispatch` only once its
// head (request line and headers, up to the blank line) is complete. A connection that
// does not finish its head in time, idles past the keep-alive limit, or sends a head
// over the size limit is answered (408/431) or closed here, never by a worker. When an
// address holds its share of connections, its oldest waiting one makes room for the
// newest, so a flood of idle connections from one address cannot lock out a request.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "report/dashboard/server_limits.h"

namespace kh::report::dashboard {

// One client connection, owned by the loop while it waits and by a worker while it is
// served. `buffer` holds what was read and not yet consumed (the head, maybe more).
struct Connection {
  int fd = -1;
  std::string address;  // the peer's IP, the key of the per-address limit
  std::string buffer;
  std::size_t served = 0;  // requests answered on it
  Connection() = default;
  Connection(const Connection&) = delete;  // one owner closes the socket, once
  Connection& operator=(const Connection&) = delete;
  ~Connection();
};

class ConnectionLoop {
 public:
  explicit ConnectionLoop(const ServerLimits& limits);
  ~ConnectionLoop();
  ConnectionLoop(const ConnectionLoop&) = delete;
  ConnectionLoop& operator=(const ConnectionLoop&) = delete;

  // Binds and listens; port 0 picks one. Returns the port; throws kh::Error.
  int bind(const std::string& host, int port);
  // Runs until stop(). `dispatch` takes a connection whose head is complete and returns
  // false when it cannot (the pool is full): the loop answers 503 and closes it.
  void run(const std::function<bool(std::unique_ptr<Connection>&)>& dispatch);
  // A served connection goes back to waiting for its next request (any thread).
  void resume(std::unique_ptr<Connection> c);
  // Any thread; run() returns soon after.
  void stop();
  [[nodiscard]] bool running() const { return running_; }
  // Closes a connection that was dispatched, releasing its address's share (any thread).
  void release(std::unique_ptr<Connection> c);

 private:
  using Clock = std::chrono::steady_clock;
  using Dispatch = std::function<bool(std::unique_ptr<Connection>&)>;
  struct Waiting {
    std::unique_ptr<Connection> connection;
    Clock::time_point deadline;
    Clock::time_point since;  // for the per-address eviction: oldest first
  };

  void accept_all();
  void read_ready(int fd, const Dispatch& dispatch);
  void expire();
  void wake();
  void watch(std::unique_ptr<Connection> c, std::chrono::milliseconds timeout);
  void close_waiting(int fd, std::string_view reply);
  void take_resumed(const Dispatch& dispatch);
  // Dispatches the connection when its buffer holds a whole head; true when it left the loop.
  bool dispatch_if_ready(int fd, const Dispatch& dispatch);
  // True when the address may open one more connection (closing its oldest waiting one if needed).
  bool make_room(const std::string& address);
  void forget(const std::string& address);

  ServerLimits limits_;
  int listen_fd_ = -1;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  std::atomic<bool> running_{false};
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;  // guards resumed_ and open_ (workers resume and release)
  std::vector<std::unique_ptr<Connection>> resumed_;
  std::map<std::string, std::size_t> open_;  // open connections per address, dispatched ones too
  std::size_t open_total_ = 0;
  std::map<int, Waiting> waiting_;  // loop thread only
};

}  // namespace kh::report::dashboard
