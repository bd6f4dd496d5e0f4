// What `kharness optimize` and `kharness ablate` share: the definition and its workloads,
// the start, the budgets, the seed, the promotion rule and the timing of every sweep.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "archive/archive.h"
#include "cli/executor_options.h"
#include "cli/protocol_options.h"
#include "control/loop_config.h"

namespace kh::cli {

struct LoopOptions {
  std::string definition, trace_set, from, archive, operators;
  std::vector<std::string> replay, agent_configs;
  std::int64_t agent_timeout_s = 600;
  std::string backend = "auto";
  std::int64_t rounds = 3;
  std::int64_t max_candidates = 40;
  std::optional<double> time_s;
  std::optional<std::int64_t> max_tokens;
  std::optional<std::uint64_t> seed;
  std::optional<int> trials;  // correctness trials
  ProtocolArgs protocol;      // both statistics are used: the gates official, the confirmation robust
  int repeats = 2;
  double min_noise = 0.02;
  std::string objective = "geomean";
  double rebaseline_after_s = control::PromotionRule{}.rebaseline_after_s;
  bool small = false, no_reference_timing = false;
  std::string sandbox = "best";  // the jail of candidates' workers (docs/worker.md)
  ExecutorArgs scale;            // --gpus, --executor and the Slurm options (docs/scale-out.md)
};

void add_loop_options(CLI::App* cmd, LoopOptions& o);

// A loop's configuration without its agents and id: the start (--from, else the
// operator's baseline for the backend), the workloads and timing, the budgets, the
// promotion rule, the seed, the workspaces under the archive, where evaluations run (the
// executor), and progress on stderr.
// Throws kh::Error naming the option at fault.
[[nodiscard]] control::LoopConfig loop_config(const LoopOptions& o, archive::Archive& store);

}  // namespace kh::cli
