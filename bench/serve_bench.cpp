// serve: how fast `kharness serve` answers under load, and how much a misbehaving crowd
// can slow it. `kharness serve` runs as a child process on loopback, over a synthetic
// archive (bench/report_bench_archive.h: 2 definitions x 200 candidates x 20 workloads).
//
//   1. alone: one client, sequential requests;
//   2. concurrent: 50 clients at once, each sequential requests;
//   3. idle hold: the same 50 clients while 100 other connections are held open, idle;
//   4. slowloris: one client while 20 connections send a request head a byte at a time.
// Each reports p50 and p99 latency (connect to last byte) over the index page and a
// definition page. Targets: the idle hold and the slowloris add less than 50 ms to the
// p99 they are compared with.
//
//   bench_serve [--quick] [--requests N] [--out serve.json] [--kharness PATH]
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "report_bench_archive.h"
#include "support/loopback_http.h"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;
using kh::test::percentile;

struct Args {
  int requests = 40;  // per client
  std::string out, kharness = KHARNESS_EXECUTABLE, backend;
  bool quick = false;
};

json summary(const std::vector<double>& ms, std::size_t expected) {
  return {{"requests", ms.size()},
          {"failed", expected - ms.size()},
          {"p50_ms", percentile(ms, 0.5)},
          {"p99_ms", percentile(ms, 0.99)},
          {"max_ms", percentile(ms, 1.0)}};
}

// `clients` threads, each `n` sequential requests; the latencies of the 200 answers.
std::vector<double> load(int port, int clients, int n) {
  std::vector<std::vector<double>> ms(static_cast<std::size_t>(clients));
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      for (int i = 0; i < n; ++i) {
        const auto r = kh::test::http_get(port, (i + c) % 2 == 0 ? "/" : "/definition/bench_def_0");
        if (r.status == 200) ms[static_cast<std::size_t>(c)].push_back(r.ms);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::vector<double> all;
  for (const auto& m : ms) all.insert(all.end(), m.begin(), m.end());
  return all;
}

json target(const std::string& name, double value, double limit, bool enforced) {
  return {{"name", name},        {"value", value},          {"limit", limit},
          {"unit", "ms"},        {"rule", "value < limit"}, {"pass", value < limit},
          {"enforced", enforced}};
}

int run(const Args& a, const std::string& command) {
  const fs::path archive = fs::temp_directory_path() / fmt::format("kh_serve_bench_{}", getpid());
  fs::remove_all(archive);
  kh::bench::generate_report_archive(archive, kh::bench::ArchiveShape{2, a.quick ? 20 : 200, 20});
  json report = {{"benchmark", "serve"}, {"command", command}, {"quick", a.quick}};
  {
    kh::test::ServeProcess serve(a.kharness, archive);
    if (serve.port() <= 0) throw std::runtime_error("kharness serve did not start");
    const int port = serve.port();
    (void)load(port, 1, 4);  // the leaderboards are computed at start; wait for them here
    const int n = a.quick ? 4 : a.requests;
    const std::vector<double> alone = load(port, 1, n * 4);
    report["alone"] = summary(alone, static_cast<std::size_t>(n) * 4);
    const std::vector<double> concurrent = load(port, 50, n);
    report["concurrent_50"] = summary(concurrent, 50 * static_cast<std::size_t>(n));
    std::vector<double> held;
    {
      kh::test::HeldConnections idle(port, 100);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      held = load(port, 50, n);
      report["concurrent_50_idle_100"] = summary(held, 50 * static_cast<std::size_t>(n));
      report["concurrent_50_idle_100"]["idle_connections"] = idle.opened();
    }
    std::vector<double> beside_slow;
    {
      kh::test::HeldConnections slow(port, 20);
      std::atomic<bool> stop{false};
      std::thread dripper([&] {
        for (std::size_t step = 0; !stop; ++step) {
          slow.drip(step);
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
      });
      beside_slow = load(port, 1, n * 4);
      stop = true;
      dripper.join();
      report["alone_slowloris_20"] = summary(beside_slow, static_cast<std::size_t>(n) * 4);
    }
    report["targets"] = {
        target("idle_hold_added_p99_ms", percentile(held, 0.99) - percentile(concurrent, 0.99), 50, !a.quick),
        target("slowloris_added_p99_ms", percentile(beside_slow, 0.99) - percentile(alone, 0.99), 50,
               !a.quick)};
  }
  fs::remove_all(archive);
  for (const char* part : {"alone", "concurrent_50", "concurrent_50_idle_100", "alone_slowloris_20"}) {
    fmt::print("{:24} p50 {:7.2f} ms  p99 {:7.2f} ms  ({} requests, {} failed)\n", part,
               report[part]["p50_ms"].get<double>(), report[part]["p99_ms"].get<double>(),
               report[part]["requests"].get<std::size_t>(), report[part]["failed"].get<std::size_t>());
  }
  if (!a.out.empty()) std::ofstream(a.out) << report.dump(2) << "\n";
  bool ok = true;
  for (const json& t : report["targets"]) ok = ok && (!t["enforced"].get<bool>() || t["pass"].get<bool>());
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  CLI::App app("kharness serve under load");
  app.add_flag("--quick", a.quick, "Few requests (CI smoke test; numbers mean little)");
  app.add_option("--requests", a.requests, "Requests per client (40)")->check(CLI::PositiveNumber);
  app.add_option("--out", a.out, "Write the JSON report here");
  app.add_option("--kharness", a.kharness, "The kharness binary to serve with");
  app.add_option("--backend", a.backend, "Ignored (no device needed); accepted for the smoke test");
  CLI11_PARSE(app, argc, argv);
  std::string command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
  try {
    return run(a, command);
  } catch (const std::exception& e) {
    fmt::print(stderr, "bench_serve: {}\n", e.what());
    return 2;
  }
}
