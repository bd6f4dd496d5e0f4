// `kharness eval` as another process starts it (the profiler runs it under ncu): the
// command's flags, spelled in one place. cli/eval_command.cpp declares its options by
// these names, so a flag renamed there is renamed here too, and a test runs
// arguments() through the real command.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace kh {

namespace eval_flag {
inline constexpr const char* kCommand = "eval";
inline constexpr const char* kDefinition = "--definition";
inline constexpr const char* kSolution = "--solution";
inline constexpr const char* kBackend = "--backend";
inline constexpr const char* kTrials = "--trials";
inline constexpr const char* kNoTiming = "--no-timing";
inline constexpr const char* kSandbox = "--sandbox";
inline constexpr const char* kWorkload = "--workload";
inline constexpr const char* kTraceSet = "--trace-set";
inline constexpr const char* kGpus = "--gpus";
}  // namespace eval_flag

struct EvalInvocation {
  std::string definition;
  std::filesystem::path solution;      // solution JSON
  std::string backend = "cuda";        // cuda, cpu or auto
  int correctness_trials = 3;          // each with a fresh seed
  bool timing = true;                  // false: correctness only
  std::string sandbox;                 // empty: the command's default (the strongest available)
  std::vector<std::string> workloads;  // uuids, evaluated in this order; empty: every workload
  std::filesystem::path trace_set;     // empty: kharness's own operators
  std::string gpus;                    // empty: the default device

  // "eval" and its flags, to follow the kharness executable on a command line.
  [[nodiscard]] std::vector<std::string> arguments() const;
};

}  // namespace kh
