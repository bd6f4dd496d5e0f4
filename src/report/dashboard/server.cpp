#include "report/dashboard/server.h"

#include <httplib.h>

#include <chrono>

#include "error/error.h"

namespace kh::report::dashboard {

struct Server::Impl {
  explicit Impl(Dashboard& d) : dashboard(d) {}
  Dashboard& dashboard;
  httplib::Server http;
};

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

Server::Server(Dashboard& dashboard) : impl_(std::make_unique<Impl>(dashboard)) {
  // A kept-alive connection holds a worker thread until it times out, and stop() waits
  // for it: short, so that Ctrl-C ends the server promptly.
  impl_->http.set_keep_alive_timeout(1);
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

Server::~Server() { stop(); }

int Server::bind(const std::string& host, int port) {
  const int bound =
      port == 0 ? impl_->http.bind_to_any_port(host) : (impl_->http.bind_to_port(host, port) ? port : -1);
  if (bound < 0) {
    throw Error(Location{"", 0, "--port"}, "cannot listen on " + host + ":" + std::to_string(port) +
                                               " (in use, or not an address of this host)");
  }
  return bound;
}

void Server::listen() { impl_->http.listen_after_bind(); }

void Server::stop() { impl_->http.stop(); }

bool Server::running() const { return impl_->http.is_running(); }

}  // namespace kh::report::dashboard
