// The Server of a build without cpp-httplib: every use says how to get one.
#include "error/error.h"
#include "report/dashboard/server.h"

namespace kh::report::dashboard {

struct Server::Impl {};

namespace {

[[noreturn]] void unavailable() {
  throw Error(
      "this kharness was built without cpp-httplib, so it cannot serve the dashboard: install "
      "libcpp-httplib-dev (scripts/setup.sh does) and rebuild");
}

}  // namespace

Server::Server(Dashboard&, const ServerLimits&) { unavailable(); }
Server::~Server() = default;
int Server::bind(const std::string&, int) { unavailable(); }
void Server::listen() { unavailable(); }
void Server::stop() {}
bool Server::running() const { return false; }

}  // namespace kh::report::dashboard
