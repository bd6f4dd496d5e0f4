#include "cli/serve_command.h"

#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "cli/guarded_run.h"
#include "error/error.h"
#include "report/dashboard/dashboard.h"
#include "report/dashboard/server.h"

namespace kh::cli {
namespace {

struct ServeArgs {
  std::string archive;
  std::string host = "127.0.0.1";
  int port = 8080;
  report::dashboard::ServerLimits limits;
};

// SIGINT and SIGTERM are blocked in every thread and taken by one waiter, which stops
// the server: the server's threads never run a signal handler.
sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

int run_serve(const ServeArgs& a) {
  report::dashboard::Dashboard dashboard(a.archive);
  const sigset_t signals = stop_signals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  report::dashboard::Server server(dashboard, a.limits);
  const int port = server.bind(a.host, a.port);
  const std::string host = a.host.find(':') != std::string::npos ? "[" + a.host + "]" : a.host;
  fmt::print("serving {} on http://{}:{}/ (read-only; Ctrl-C stops)\n", a.archive, host, port);
  std::fflush(stdout);
  std::thread waiter([&server, signals] {
    int sig = 0;
    sigwait(&signals, &sig);
    server.stop();
  });
  // Leaderboards are computed before anyone asks, so that the first visit to a big
  // definition is as fast as the next ones; requests meanwhile compute their own.
  std::atomic<bool> stopping{false};
  std::thread warm([&dashboard, &stopping] {
    try {
      (void)dashboard.warm_up(stopping);
    } catch (const Error& e) {
      fmt::print(stderr, "serve: computing leaderboards ahead failed ({}); pages compute them on demand\n",
                 e.what());
    }
  });
  server.listen();
  stopping = true;
  warm.join();
  // listen() returned (stopped by the waiter): wake the waiter if it is still waiting.
  pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
  return 0;
}

}  // namespace

void register_serve(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* cmd = app.add_subcommand("serve",
                                     "The read-only web dashboard of an archive (leaderboards, plots, "
                                     "candidates with diffs, the optimisation tree)");
  cmd->add_option("--archive", args->archive, "Archive folder")->required()->check(CLI::ExistingDirectory);
  cmd->add_option("--host", args->host, "Address to listen on (127.0.0.1: this machine only)");
  cmd->add_option("--port", args->port, "Port (8080; 0 picks a free one and prints it)")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--workers", args->limits.workers, "Threads answering requests (8)")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--connections-per-address", args->limits.connections_per_address,
                  "Open connections one client address may hold; its oldest waiting one makes room for a "
                  "new one (256)")
      ->check(CLI::Range(1, 65536));
  cmd->callback([args, &exit_code] { guarded_run(exit_code, [&] { return run_serve(*args); }); });
}

}  // namespace kh::cli
