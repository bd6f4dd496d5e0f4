// Everything that decides how a solution is evaluated: backend, protocol, trials,
// tolerances, limits. Every value that shapes a measurement is written into the trace.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "device/device_lane.h"
#include "eval/check/value_comparison.h"
#include "timing/timing_protocol.h"

namespace kh {

// How trial and input-set seeds derive from the base seed. per_workload: each workload
// draws from a stream of its own, seeded by the base and its uuid, so a workload sees
// the same inputs whether it ran alone, in a subset, on any lane of `--gpus` or in any
// task of a Slurm array. sequential: one stream through the workloads in order, as
// runs recorded before lanes existed drew them (kept so that rerun repeats those exactly).
enum class SeedScheme { per_workload, sequential };

struct SolutionEvaluation;
struct WorkloadResult;

struct EvalProgress {
  std::size_t done = 0;
  std::size_t total = 0;
  std::string workload;  // uuid of the workload just finished
  std::string status;
};

struct EvalOptions {
  std::string backend = "cpu";         // "cpu" or "cuda"
  std::string arch;                    // nvcc arch override; empty: from the device
  TimingProtocol protocol;             // warm-up, counts or stop rule, and the statistic
  int correctness_trials = 3;          // each with a fresh seed, before any timing
  std::optional<Tolerance> tolerance;  // overrides the operator's
  int recheck = 4;                     // timed outputs re-checked per timing trial, drawn at random after it
  // Whether a trial's re-checks are compared on the host while the next trial's loop
  // runs; unset: on the CUDA backend (where the loop is device work), not on the CPU.
  std::optional<bool> recheck_beside_loop;
  double throttle_ratio = 0.75;            // samples below this share of the nominal SM clock are dropped
  std::chrono::seconds timeout{300};       // per worker request: wall-clock limit of one call
  std::size_t input_set_budget_bytes = 0;  // 0: 2 GiB on CUDA, 256 MiB on the CPU
  bool time_candidate = true;              // false: correctness only, no latency (the profiler's ncu session)
  bool time_reference = true;
  bool speed_of_light = true;  // measure (once per device) and apply the device's peaks
  // After this many consecutive TIMEOUT or crash results, the remaining workloads are
  // reported with the same status, marked not run; 0 runs every workload. With several
  // lanes the streak is counted per lane (a lane stops running the candidate; the others
  // go on until their own streak reaches the limit).
  int max_consecutive_failures = 3;
  // The reference's latency is reused from the cache (reference_latency_cache.h) when
  // present and fresh; remeasure_reference measures it again and refreshes the entry.
  bool cache_reference_latency = true;
  bool remeasure_reference = false;
  std::chrono::seconds reference_cache_max_age{std::chrono::hours(24 * 7)};
  std::optional<std::uint64_t> seed;  // base of the seed stream; fresh from the OS when unset
  SeedScheme seed_scheme = SeedScheme::per_workload;
  // The devices the workloads are dealt over, one worker pair each; empty: one lane on
  // `backend`'s default device, as the worker picks it.
  std::vector<DeviceLane> lanes;
  std::filesystem::path worker_executable;  // the kharness binary; empty: this process's
  std::filesystem::path work_dir;           // scratch; empty: a fresh temp dir
  std::filesystem::path cache_dir;          // build cache; empty: BuildCache::default_dir()
  std::function<void(const EvalProgress&)> on_progress;
  // Called as each workload finishes, with the evaluation so far (device, builds), so
  // that a caller can write its trace at once and an interrupted run keeps what it did.
  std::function<void(const SolutionEvaluation&, const WorkloadResult&)> on_workload;
};

}  // namespace kh
