// comparison: how fast the orchestrator compares a candidate's outputs with the
// reference's (eval/check/value_comparison.h), the host-side step that dominated a
// gemm workload on the H200 (docs/evaluation.md, section 5).
//
// Compares two equal bf16, fp16 and float32 tensors of 32 Ki, 1 Mi, 4 Mi and 32 Mi
// elements (a gemm_n4096_k4096 output, which is fp16, at M = 8, 256, 1024 and 8192),
// --repeats times each, and reports the median milliseconds and elements per second.
// Targets (enforced without --quick): 1 Mi elements in at most 2 ms, in bf16 and in fp16.
//
//   bench_comparison [--repeats R] [--out report.json] [--quick]
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "eval/check/value_comparison.h"
#include "tensor/element_access.h"

namespace {

using json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

constexpr double kTargetMs = 2.0;  // 1 Mi bf16 or fp16 elements

struct Args {
  int repeats = 7;
  std::string out;
  std::string backend;  // accepted for check_report.cmake; comparing needs no device
  bool quick = false;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Two equal tensors of smooth values: every element is compared in full.
double median_ms(kh::DType dtype, std::size_t n, int repeats) {
  kh::HostTensor a(dtype, {static_cast<std::int64_t>(n)});
  kh::HostTensor r(dtype, {static_cast<std::int64_t>(n)});
  for (std::size_t i = 0; i < n; ++i) {
    const double v = static_cast<double>(i % 1000) / 100.0 - 5.0;
    kh::write_from_double(a, i, v);
    kh::write_from_double(r, i, v);
  }
  std::vector<double> ms;
  for (int k = 0; k < repeats; ++k) {
    const auto start = Clock::now();
    const kh::ValueComparison c = kh::compare_tensors(a, r, kh::Tolerance{});
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    if (c.matched != n) throw std::runtime_error("equal tensors did not match");
  }
  return median(ms);
}

int run(const Args& a, const std::string& command) {
  std::vector<std::size_t> sizes = {std::size_t{1} << 15, std::size_t{1} << 20, std::size_t{1} << 22};
  if (!a.quick) sizes.push_back(std::size_t{1} << 25);
  json rows = json::array();
  json targets = json::array();
  bool pass = true;
  for (const kh::DType d : {kh::DType::bfloat16, kh::DType::float16, kh::DType::float32}) {
    for (const std::size_t n : sizes) {
      const double ms = median_ms(d, n, a.repeats);
      if (d != kh::DType::float32 && n == (std::size_t{1} << 20)) {
        pass = pass && ms <= kTargetMs;
        targets.push_back({{"name", std::string(kh::dtype_name(d)) + "_1Mi_elements_ms"},
                           {"value", ms},
                           {"limit", kTargetMs},
                           {"unit", "ms"},
                           {"rule", "value <= limit"},
                           {"pass", ms <= kTargetMs},
                           {"enforced", !a.quick}});
      }
      rows.push_back({{"dtype", std::string(kh::dtype_name(d))},
                      {"elements", n},
                      {"median_ms", ms},
                      {"elements_per_second", static_cast<double>(n) / ms * 1e3}});
    }
  }
  const json report = {
      {"benchmark", "comparison"}, {"command", command},
      {"repeats", a.repeats},      {"threads_available", std::thread::hardware_concurrency()},
      {"comparisons", rows},       {"targets", targets}};
  std::cout << report.dump(2) << "\n";
  if (!a.out.empty()) std::ofstream(a.out) << report.dump(2) << "\n";
  return !a.quick && !pass ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"comparison: how fast outputs are compared with the reference's on the host"};
  Args a;
  app.add_option("--repeats", a.repeats, "Comparisons per size; the median is reported")
      ->check(CLI::PositiveNumber);
  app.add_option("--out", a.out, "Write the JSON report here");
  app.add_option("--backend", a.backend, "Ignored (comparing needs no device)");
  app.add_flag("--quick", a.quick, "CI size: up to 4 Mi elements; the number means little");
  CLI11_PARSE(app, argc, argv);
  std::string command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
  try {
    return run(a, command);
  } catch (const std::exception& e) {
    std::cerr << "bench_comparison: " << e.what() << "\n";
    return 2;
  }
}
