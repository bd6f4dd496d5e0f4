// Shared by the CPU and CUDA end-to-end suites: solutions made from the files of a test
// gallery, a scratch folder and the operator library per suite, and the status checks.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>

#include "eval/evaluator.h"
#include "eval/operator_library.h"

namespace kh::test {

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A solution of rmsnorm_h128 whose entry is `file`::rmsnorm, with the gallery's shared
// headers as further sources.
inline Solution gallery_solution(const std::filesystem::path& dir, const std::string& file,
                                 const std::string& language, std::initializer_list<const char*> headers) {
  Solution s;
  s.name = std::filesystem::path(file).stem().string();
  s.definition = "rmsnorm_h128";
  s.spec.language = language;
  s.spec.entry_point = file + "::rmsnorm";
  s.spec.binding = "kharness";
  s.sources.push_back({file, read_file(dir / file), {}});
  for (const char* header : headers) s.sources.push_back({header, read_file(dir / header), {}});
  return s;
}

// Every workload has `status` and a log that mentions `log_part`.
inline void expect_all(const SolutionEvaluation& e, EvalStatus status, const std::string& log_part) {
  ASSERT_FALSE(e.workloads.empty());
  for (const WorkloadResult& w : e.workloads) {
    EXPECT_EQ(status_name(w.status), status_name(status)) << w.workload.uuid << ": " << w.log;
    EXPECT_NE(w.log.find(log_part), std::string::npos) << "log: " << w.log;
  }
}

// Some workload's log says its tampering was caught by the hashes of a timed input set
// (taken before and after the timed loop), not only by those of a correctness call.
inline void expect_caught_while_timed(const SolutionEvaluation& e) {
  bool caught_while_timed = false;
  for (const WorkloadResult& w : e.workloads)
    caught_while_timed |= w.log.find("timed input set") != std::string::npos;
  EXPECT_TRUE(caught_while_timed) << "no workload was caught by the timed run's hashes";
}

// The operator library and a scratch folder, made once per suite.
class EndToEndSuite : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ops_ =
        new OperatorLibrary(OperatorLibrary::load(std::filesystem::path(KHARNESS_SOURCE_DIR) / "operators"));
    scratch_ = new std::filesystem::path(std::filesystem::temp_directory_path() /
                                         ("kharness-e2e-" + std::to_string(::getpid())));
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*scratch_);
    delete ops_;
    delete scratch_;
  }

  // Evaluates `candidate` on the first `workloads` workloads of rmsnorm_h128 (all when 0).
  static SolutionEvaluation evaluate(const Solution& candidate, const EvalOptions& o,
                                     std::size_t workloads = 0) {
    const OperatorEntry* op = ops_->find("rmsnorm_h128");
    std::vector<Workload> all = ops_->workloads("rmsnorm_h128", false);
    if (workloads > 0 && workloads < all.size()) all.resize(workloads);
    EvaluationTarget t{op->definition,
                       all,
                       op->dir,
                       candidate,
                       ops_->reference("rmsnorm_h128", o.backend),
                       "default",
                       *op->tolerance,
                       op->speed_of_light};
    return evaluate_solution(t, o);
  }

  // Options for a short protocol run by the built kharness worker, with `name`'s own
  // scratch folder and the suite's build cache. The CUDA suites share one cache across
  // test processes instead (cuda_options).
  struct ShortProtocol {
    int correctness_trials;
    int warmup;
    int iterations;
    int timing_trials;
    std::chrono::seconds timeout;
  };
  static EvalOptions short_options(const std::string& backend, const ShortProtocol& p,
                                   const std::string& name) {
    EvalOptions o;
    o.backend = backend;
    o.correctness_trials = p.correctness_trials;
    o.protocol.warmup = p.warmup;
    o.protocol.iterations = p.iterations;
    o.protocol.trials = p.timing_trials;
    o.timeout = p.timeout;
    o.worker_executable = KHARNESS_EXECUTABLE;
    o.work_dir = *scratch_ / name;
    o.cache_dir = *scratch_ / "cache";
    return o;
  }
  // On CUDA: 2 correctness trials, 5 warm-up, 30 iterations, 2 timing trials. The build
  // cache is shared by every test process (ctest runs each test alone), so the reference
  // and the common solutions compile once; the key covers sources, flags and toolchain.
  static EvalOptions cuda_options(const std::string& name, std::chrono::seconds timeout) {
    EvalOptions o = short_options("cuda", {2, 5, 30, 2, timeout}, name);
    o.cache_dir = std::filesystem::temp_directory_path() / "kharness-cuda-e2e-cache";
    return o;
  }

  static inline OperatorLibrary* ops_ = nullptr;
  static inline std::filesystem::path* scratch_ = nullptr;
};

}  // namespace kh::test
