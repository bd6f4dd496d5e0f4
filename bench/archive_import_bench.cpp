// archive_import: how fast `kharness archive import` reads a big FlashInfer-Trace set.
//
// Generates a set of --traces trace lines (default 100 000) over 10 definitions, each
// line shaped like the ones `kharness eval` writes (upstream fields plus kharness's
// evidence: protocol, seeds, sample statistics, speed of light; about 1.3 KB), then
// imports it --repeats times into a fresh archive and reports traces per second
// (median), and the cost of importing the same set again (all duplicates) and of
// exporting it. Target: >= 10 000 traces/s.
//
//   bench_archive_import [--traces N] [--repeats R] [--out report.json] [--quick] [--keep DIR]
#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "archive/archive.h"
#include "archive/trace_set_export.h"
#include "archive/trace_set_import.h"
#include "error/error.h"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

constexpr int kDefinitions = 10;
constexpr int kWorkloadsPerDefinition = 50;
constexpr double kTargetTracesPerSecond = 10000;

struct Args {
  long traces = 100000;
  int repeats = 3;
  std::string out;
  std::string keep;
  std::string backend;  // accepted for check_report.cmake; the archive needs no device
  bool quick = false;
};

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// User + system CPU time of this process, all threads: on a shared, loaded machine
// the wall clock says more about the neighbours than about the import.
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  const auto s = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
  };
  return s(u.ru_utime) + s(u.ru_stime);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0 : (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
}

std::string definition_text(int d) {
  return fmt::format(
      "{{\n  \"name\": \"bench_def_{0}\",\n  \"op_type\": \"bench\",\n  \"axes\": {{ \"M\": {{ \"type\": "
      "\"var\" }}, "
      "\"K\": {{ \"type\": \"const\", \"value\": 4096 }} }},\n  \"inputs\": {{ \"x\": {{ \"shape\": [\"M\", "
      "\"K\"], "
      "\"dtype\": \"bfloat16\" }} }},\n  \"outputs\": {{ \"y\": {{ \"shape\": [\"M\", \"K\"], \"dtype\": "
      "\"bfloat16\" }} }},\n  \"reference\": \"def run(x):\\n    return x\"\n}}\n",
      d);
}

std::string workload_json(int w) {
  return fmt::format(R"({{"uuid":"wl-{0:06}","axes":{{"M":{1}}},"inputs":{{"x":{{"type":"random"}}}}}})", w,
                     1 + w * 7);
}

// One trace line as `kharness eval` writes it.
std::string trace_line(int d, int w, long i, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> latency(0.005, 2.0);
  const double ms = latency(rng);
  const double ref = ms * 1.3;
  return fmt::format(
      R"({{"definition":"bench_def_{0}","workload":{1},"solution":"bench_solution_{2}","evaluation":{{)"
      R"("status":"PASSED","environment":{{"hardware":"NVIDIA H200","libs":{{"driver":"570.86","cuda_runtime":"13.0",)"
      R"("compiler":"Cuda compilation tools, release 13.0","kharness":"0.1.0"}}}},"timestamp":"2026-01-01T00:00:00Z",)"
      R"("log":"","correctness":{{"max_relative_error":{3},"max_absolute_error":{4}}},"performance":{{)"
      R"("latency_ms":{5},"reference_latency_ms":{6},"speedup_factor":{7}}},"kharness":{{"protocol":{{"name":"official",)"
      R"("correctness_trials":3,"warmup":10,"recheck":4,"iterations":50,"trials":3}},"backend":"cuda","status":"PASSED",)"
      R"("correctness_seeds":[{8},{9},{10}],"latency":{{"timer":"cupti_span","latency_ms":{5},"trial_medians_ms":[{5},{5},{5}],)"
      R"("samples":{{"count":150,"median_ms":{5},"q1_ms":{5},"q3_ms":{5},"noise":0.004}},"throttled_samples":0,)"
      R"("mean_sm_clock_mhz":1980.0}},"speed_of_light":{{"floor_ms":{11},"fraction":{12},"bound":"memory"}},)"
      R"("build":{{"key":"{13:016x}","cache_hit":true}},"worker_restarts":0}}}}}})",
      d, workload_json(w), i % 97, 1e-3, 2e-4, ms, ref, ref / ms, rng(), rng(), rng(), ms * 0.4, 0.4, rng());
}

long generate_set(const fs::path& root, long traces) {
  std::mt19937_64 rng(42);
  long bytes = 0;
  const long per_definition = (traces + kDefinitions - 1) / kDefinitions;
  long written = 0;
  for (int d = 0; d < kDefinitions; ++d) {
    const fs::path def = root / "definitions/bench" / fmt::format("bench_def_{}.json", d);
    fs::create_directories(def.parent_path());
    std::ofstream(def) << definition_text(d);
    fs::create_directories(root / "workloads/bench");
    std::ofstream wl(root / "workloads/bench" / fmt::format("bench_def_{}.jsonl", d));
    for (int w = 0; w < kWorkloadsPerDefinition; ++w)
      wl << fmt::format(R"({{"definition":"bench_def_{}","solution":null,"workload":{},"evaluation":null}})",
                        d, workload_json(w))
         << "\n";
    fs::create_directories(root / "traces/bench");
    std::ofstream tr(root / "traces/bench" / fmt::format("bench_def_{}.jsonl", d));
    for (long i = 0; i < per_definition && written < traces; ++i, ++written) {
      const std::string line = trace_line(d, static_cast<int>(i % kWorkloadsPerDefinition), i, rng);
      bytes += static_cast<long>(line.size()) + 1;
      tr << line << "\n";
    }
  }
  return bytes;
}

std::uintmax_t folder_bytes(const fs::path& dir) {
  std::uintmax_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) n += e.file_size();
  return n;
}

int run(const Args& a, const std::string& command) {
  const fs::path scratch = a.keep.empty()
                               ? fs::temp_directory_path() / fmt::format("kh_import_bench_{}", getpid())
                               : fs::path(a.keep);
  fs::remove_all(scratch);
  const long trace_bytes = generate_set(scratch / "set", a.traces);
  std::vector<double> rates, seconds, cpu_rates;
  double reimport_s = 0, export_s = 0;
  std::uintmax_t archive_bytes = 0;
  for (int r = 0; r < a.repeats; ++r) {
    const fs::path dir = scratch / fmt::format("archive{}", r);
    kh::archive::Archive archive = kh::archive::Archive::open_or_create(dir);
    const auto start = Clock::now();
    const double cpu_start = cpu_seconds();
    const kh::archive::ImportReport report = kh::archive::import_trace_set(archive, scratch / "set");
    seconds.push_back(seconds_since(start));
    cpu_rates.push_back(static_cast<double>(a.traces) / (cpu_seconds() - cpu_start));
    if (report.traces.added != a.traces)
      throw kh::Error("import added " + std::to_string(report.traces.added));
    rates.push_back(static_cast<double>(a.traces) / seconds.back());
    fmt::print(stderr, "import {}: {:.2f} s, {:.0f} traces/s, {:.0f} traces per CPU second\n", r + 1,
               seconds.back(), rates.back(), cpu_rates.back());
    if (r + 1 == a.repeats) {
      const auto again = Clock::now();
      (void)kh::archive::import_trace_set(archive, scratch / "set");
      reimport_s = seconds_since(again);
      const auto out = Clock::now();
      (void)kh::archive::export_trace_set(archive, scratch / "exported");
      export_s = seconds_since(out);
      archive_bytes = folder_bytes(dir);
    }
  }
  const double med = median(rates);
  const json report = {{"benchmark", "archive_import"},
                       {"command", command},
                       {"traces", a.traces},
                       {"set_bytes", trace_bytes},
                       {"mean_line_bytes", static_cast<double>(trace_bytes) / static_cast<double>(a.traces)},
                       {"repeats", a.repeats},
                       {"import_seconds", seconds},
                       {"traces_per_second", rates},
                       {"median_traces_per_second", med},
                       {"traces_per_cpu_second", cpu_rates},
                       {"median_traces_per_cpu_second", median(cpu_rates)},
                       {"threads_available", std::thread::hardware_concurrency()},
                       {"reimport_seconds", reimport_s},
                       {"reimport_traces_per_second", static_cast<double>(a.traces) / reimport_s},
                       {"export_seconds", export_s},
                       {"export_traces_per_second", static_cast<double>(a.traces) / export_s},
                       {"archive_bytes", archive_bytes},
                       {"targets",
                        {{{"name", "median_traces_per_second"},
                          {"value", med},
                          {"limit", kTargetTracesPerSecond},
                          {"unit", "traces/s"},
                          {"rule", ">="},
                          {"pass", med >= kTargetTracesPerSecond},
                          {"enforced", !a.quick}}}}};
  std::cout << report.dump(2) << "\n";
  if (!a.out.empty()) std::ofstream(a.out) << report.dump(2) << "\n";
  if (a.keep.empty()) fs::remove_all(scratch);
  return !a.quick && med < kTargetTracesPerSecond ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"archive_import: traces per second of `kharness archive import`"};
  Args a;
  app.add_option("--traces", a.traces, "Trace lines in the generated set")->check(CLI::PositiveNumber);
  app.add_option("--repeats", a.repeats, "Imports, each into a fresh archive")->check(CLI::PositiveNumber);
  app.add_option("--out", a.out, "Write the JSON report here");
  app.add_option("--keep", a.keep, "Generate into this folder and keep it");
  app.add_option("--backend", a.backend, "Ignored (the archive needs no device)");
  app.add_flag("--quick", a.quick, "CI size: 5000 traces, one import; the number means little");
  CLI11_PARSE(app, argc, argv);
  if (a.quick) {
    a.traces = 5000;
    a.repeats = 1;
  }
  std::string command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
  try {
    return run(a, command);
  } catch (const kh::Error& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 2;
  }
}
