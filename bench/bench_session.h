// BenchSession: what the three harness benchmarks share. Their command line
// (--out, --backend, --quick), the operators they evaluate (bench/operators plus
// operators/), evaluation options for the official protocol, and the JSON report:
// the command, the device, the raw numbers and each target with pass/fail.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "eval/operator_library.h"

namespace kh::bench {

using Clock = std::chrono::steady_clock;

[[nodiscard]] inline double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

class BenchSession {
 public:
  // Parses the command line; exits with CLI11's message on a bad one.
  BenchSession(std::string name, int argc, char** argv);
  ~BenchSession();
  BenchSession(const BenchSession&) = delete;
  BenchSession& operator=(const BenchSession&) = delete;

  [[nodiscard]] const std::string& backend() const noexcept { return backend_; }
  // --quick: CI smoke sizes (ci-workloads.jsonl, few iterations); numbers mean nothing.
  [[nodiscard]] bool quick() const noexcept { return quick_; }

  // The official protocol (10 warm-up runs, 50 iterations, 3 trials), or a few
  // iterations under --quick. `run` names the scratch directory; the build cache is
  // shared by all runs of the session.
  [[nodiscard]] EvalOptions official_options(const std::string& run) const;
  // The operator's workloads (ci-workloads.jsonl under --quick), its reference for the
  // backend, and `candidate`.
  [[nodiscard]] EvaluationTarget target(const std::string& definition, Solution candidate) const;
  // bench/solutions/<definition>/<stem>.cu or .cpp, by backend, entry function `stem`.
  [[nodiscard]] Solution bench_solution(const std::string& definition, const std::string& stem) const;

  // Adds a target to the report. Targets are judged only on the CUDA backend without
  // --quick; elsewhere they are reported with "enforced": false.
  void add_target(const std::string& name, double value, double limit, const std::string& unit,
                  bool at_most = true);
  // Records the device the workers reported.
  void set_device(const nlohmann::ordered_json& device) { report_["device"] = device; }
  nlohmann::ordered_json& report() noexcept { return report_; }

  // Writes the report to --out and stdout. Returns the exit code: 0, or 1 when an
  // enforced target was missed.
  [[nodiscard]] int finish();

 private:
  std::string name_;
  std::string backend_ = "cuda";
  bool quick_ = false;
  std::filesystem::path out_;
  std::filesystem::path kharness_;
  std::filesystem::path scratch_;
  // bench/operators, then kharness's own operators/.
  std::vector<OperatorLibrary> libraries_;
  [[nodiscard]] const OperatorLibrary& library_of(const std::string& definition) const;
  nlohmann::ordered_json report_;
  bool missed_ = false;
};

// Runs `body` and turns a kh::Error into a message on stderr and exit code 2.
int run_guarded(const std::string& name, const std::function<int()>& body);

}  // namespace kh::bench
