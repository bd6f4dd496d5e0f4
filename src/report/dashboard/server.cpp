#include "report/dashboard/server.h"

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "error/error.h"
#include "report/dashboard/connection_loop.h"
#include "report/dashboard/connection_stream.h"

namespace kh::report::dashboard {
namespace {

// cpp-httplib's request parsing, routing and response writing, for one request on a
// stream of ours (its own accept loop and thread per connection are not used).
class HttpCore : public httplib::Server {
 public:
  using httplib::Server::process_request;
};

}  // namespace

struct Server::Impl {
  Impl(Dashboard& d, const ServerLimits& l) : dashboard(d), limits(l), loop(l) {}
  Dashboard& dashboard;
  ServerLimits limits;
  HttpCore http;
  ConnectionLoop loop;
  std::mutex mutex;
  std::condition_variable ready;
  std::deque<std::unique_ptr<Connection>> queue;
  bool stopping = false;
  std::vector<std::thread> workers;

  bool enqueue(std::unique_ptr<Connection>& c);
  void work();
  void serve(std::unique_ptr<Connection> c);
};

bool Server::Impl::enqueue(std::unique_ptr<Connection>& c) {
  {
    std::lock_guard lock(mutex);
    if (queue.size() >= limits.queue) return false;
    queue.push_back(std::move(c));
  }
  ready.notify_one();
  return true;
}

void Server::Impl::work() {
  for (;;) {
    std::unique_ptr<Connection> c;
    {
      std::unique_lock lock(mutex);
      ready.wait(lock, [&] { return stopping || !queue.empty(); });
      if (queue.empty()) return;  // stopping, and nothing left to answer
      c = std::move(queue.front());
      queue.pop_front();
    }
    serve(std::move(c));
  }
}

// One request, then the connection goes back to the loop to wait for the next one
// (keep-alive), unless it is closed, served its share, or the server stops.
void Server::Impl::serve(std::unique_ptr<Connection> c) {
  ConnectionStream stream(*c, limits.io_timeout);
  ++c->served;
  const bool last = c->served >= limits.requests_per_connection || loop.running() == false;
  bool closed_by_client = false;
  const bool ok = http.process_request(stream, last, closed_by_client, [](httplib::Request&) {});
  if (!ok || last || closed_by_client) {
    loop.release(std::move(c));
  } else {
    loop.resume(std::move(c));
  }
}

namespace {

void reply(const HttpResponse& r, httplib::Response& res) {
  res.status = r.status;
  res.set_content(r.body, r.content_type.c_str());
  // A local, read-only view: no caching surprises after the archive grows, no framing.
  res.set_header("Cache-Control", "no-store");
  res.set_header("X-Content-Type-Options", "nosniff");
}

void refuse(const httplib::Request& req, httplib::Response& res) {
  res.status = 405;
  res.set_header("Allow", "GET, HEAD");
  res.set_content(
      "405 method not allowed: the kharness dashboard is read-only (" + req.method + " " + req.path + ")\n",
      "text/plain; charset=utf-8");
}

}  // namespace

Server::Server(Dashboard& dashboard, const ServerLimits& limits)
    : impl_(std::make_unique<Impl>(dashboard, limits)) {
  impl_->http.set_keep_alive_max_count(limits.requests_per_connection);
  impl_->http.set_keep_alive_timeout(
      std::max<time_t>(1, std::chrono::duration_cast<std::chrono::seconds>(limits.idle_timeout).count()));
  impl_->http.set_read_timeout(std::chrono::duration_cast<std::chrono::seconds>(limits.io_timeout).count());
  // The dashboard takes no request bodies; a large one is refused, not read.
  impl_->http.set_payload_max_length(64 * 1024);
  impl_->http.Get(".*", [this](const httplib::Request& req, httplib::Response& res) {
    QueryParams query;
    for (const auto& [k, v] : req.params) query.emplace(k, v);
    try {
      reply(impl_->dashboard.get(req.path, query), res);
    } catch (const Error& e) {
      // A failing query (a damaged archive) is the page's answer, not the server's end.
      reply(HttpResponse{500, "text/plain; charset=utf-8", std::string("500: ") + e.what() + "\n"}, res);
    }
  });
  const httplib::Server::Handler refused = [](const httplib::Request& req, httplib::Response& res) {
    refuse(req, res);
  };
  impl_->http.Post(".*", refused).Put(".*", refused).Delete(".*", refused).Patch(".*", refused);
  impl_->http.Options(".*", refused);
}

Server::~Server() {
  stop();
  for (std::thread& t : impl_->workers) {
    if (t.joinable()) t.join();
  }
}

int Server::bind(const std::string& host, int port) { return impl_->loop.bind(host, port); }

void Server::listen() {
  for (std::size_t i = 0; i < std::max<std::size_t>(1, impl_->limits.workers); ++i)
    impl_->workers.emplace_back([this] { impl_->work(); });
  impl_->loop.run([this](std::unique_ptr<Connection>& c) { return impl_->enqueue(c); });
  {
    std::lock_guard lock(impl_->mutex);
    impl_->stopping = true;
  }
  impl_->ready.notify_all();
  for (std::thread& t : impl_->workers) t.join();
  impl_->workers.clear();
}

void Server::stop() { impl_->loop.stop(); }

bool Server::running() const { return impl_->loop.running(); }

}  // namespace kh::report::dashboard
