// What the report tests share: a temp folder, and a small synthetic FlashInfer-Trace set
// (definition toy_scale: var axis n; 4 workloads; a baseline, a fast candidate and a
// broken one; traces with kharness speed-of-light blocks) imported into an archive.
#pragma once

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "archive/archive.h"
#include "archive/trace_set_import.h"
#include "support/temp_dir.h"

namespace kh::report::test {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

// Each suite's folders carry its own prefix, to tell leftovers apart.
class TempDir : public kh::test::TempDir {
 public:
  TempDir() : kh::test::TempDir("kh_report_") {}
};

inline constexpr const char* kToy = "toy_scale";
inline constexpr int kToyWorkloads = 4;

inline json toy_definition() {
  return {{"name", kToy},
          {"op_type", "toy"},
          {"description", "y = 2 x, for report tests"},
          {"axes", {{"n", {{"type", "var"}}}}},
          {"inputs", {{"x", {{"shape", {"n"}}, {"dtype", "float32"}}}}},
          {"outputs", {{"y", {{"shape", {"n"}}, {"dtype", "float32"}}}}},
          {"reference", "def run(x):\n    return 2 * x"}};
}

inline json toy_workload(int i) {
  return {{"uuid", "toy-w" + std::to_string(i)},
          {"axes", {{"n", 16 << (4 * i)}}},
          {"inputs", {{"x", {{"type", "random"}}}}}};
}

inline json toy_solution(const std::string& name, const std::string& body) {
  return {{"name", name},
          {"definition", kToy},
          {"author", "test"},
          {"spec",
           {{"language", "cuda"},
            {"target_hardware", {"H200"}},
            {"entry_point", "k.cu::run"},
            {"dependencies", json::array()}}},
          {"sources", {{{"path", "k.cu"}, {"content", body}}}}};
}

// One trace; latency in ms; `ok` false makes it INCORRECT_NUMERICAL (no performance).
inline std::string toy_trace(const std::string& solution, int i, bool ok, double latency_ms, int day) {
  const double n = 16 << (4 * i);
  const double bytes = 8 * n, flops = n;
  json ev = {
      {"status", ok ? "PASSED" : "INCORRECT_NUMERICAL"},
      {"environment", {{"hardware", "NVIDIA H200"}, {"libs", {{"kharness", "test"}}}}},
      {"timestamp", "2026-01-0" + std::to_string(day) + "T00:00:0" + std::to_string(i) + "Z"},
      {"log", ok ? "" : "mismatch"},
      {"correctness", {{"max_relative_error", ok ? 0.0 : 1.0}, {"max_absolute_error", ok ? 0.0 : 1.0}}}};
  if (ok) {
    ev["performance"] = {
        {"latency_ms", latency_ms}, {"reference_latency_ms", 10 * latency_ms}, {"speedup_factor", 10.0}};
    const double floor_ms = bytes / 4e12 * 1e3;
    ev["kharness"] = {{"speed_of_light",
                       {{"flops", flops},
                        {"bytes", bytes},
                        {"compute", "fp32"},
                        {"floor_ms", floor_ms},
                        {"fraction", floor_ms / latency_ms},
                        {"arithmetic_intensity", flops / bytes},
                        {"device_peaks",
                         {{"bandwidth_bytes_per_s", 4e12},
                          {"fp32_flops", 6e13},
                          {"bf16_tensor_flops", 9e14},
                          {"fp8_tensor_flops", 1.8e15},
                          {"method", "test"}}}}}};
  }
  const json t = {
      {"definition", kToy}, {"workload", toy_workload(i)}, {"solution", solution}, {"evaluation", ev}};
  return t.dump();
}

// Baseline toy_scale_baseline_cuda (latency 1, 2, 4, 8 us), toy_fast (twice as fast),
// toy_broken (four times as fast but wrong on workload 2).
inline void write_toy_set(const TempDir& set) {
  set.write("definitions/toy_scale.json", toy_definition().dump(2) + "\n");
  std::string workloads, traces;
  for (int i = 0; i < kToyWorkloads; ++i) {
    workloads += json{{"definition", kToy},
                      {"solution", nullptr},
                      {"workload", toy_workload(i)},
                      {"evaluation", nullptr}}
                     .dump() +
                 "\n";
    const double base = 0.001 * (1 << i);
    traces += toy_trace("toy_scale_baseline_cuda", i, true, base, 1) + "\n";
    traces += toy_trace("toy_fast", i, true, base / 2, 2) + "\n";
    traces += toy_trace("toy_broken", i, i != 2, base / 4, 3) + "\n";
  }
  set.write("workloads/toy_scale.jsonl", workloads);
  set.write("traces/toy_scale.jsonl", traces);
  set.write("solutions/toy_scale_baseline_cuda.json",
            toy_solution("toy_scale_baseline_cuda", "__global__ void run() {\n  // baseline\n}\n").dump(2));
  set.write("solutions/toy_fast.json",
            toy_solution("toy_fast", "__global__ void run() {\n  // vectorised\n  float4 v;\n}\n").dump(2));
  set.write("solutions/toy_broken.json", toy_solution("toy_broken", "__global__ void run() {}\n").dump(2));
}

// Imports the toy set into a fresh archive at `archive_dir`; returns the problems' count.
inline std::size_t import_toy_set(const fs::path& archive_dir) {
  TempDir set;
  write_toy_set(set);
  archive::Archive a = archive::Archive::open_or_create(archive_dir);
  return archive::import_trace_set(a, set.path()).problems.size();
}

}  // namespace kh::report::test
