// The final head-to-head of an ablation (docs/ablation.md): the start and every arm's
// best, measured side by side with the robust protocol in passes whose order alternates,
// so that drift falls on all alike. The controller measures and judges it
// (control/head_to_head_judge.h) and keeps it in the ablation's manifest; reports read it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kh::report {

struct ArmHeadToHead {
  std::string arm;
  std::string best;                           // content id of the arm's best
  std::optional<double> over_start;           // geometric mean over the passes
  std::vector<std::optional<double>> passes;  // start / best, per pass (geomean over workloads)
};

// Arm `a` against arm `b`: ratio = b's latency / a's latency (above 1: a is faster), the
// paired difference of the two arms measured in the same passes.
struct ArmPair {
  std::string a, b;
  std::optional<double> ratio;  // geometric mean over the passes
  std::vector<std::optional<double>> passes;
  double noise = 0;     // max(noise floor, the sweeps' median noise)
  double drift = 0;     // spread of the per-pass ratios, relative
  std::string verdict;  // faster | slower | same | ambiguous (a against b)
};

struct HeadToHead {
  std::string protocol;  // robust
  int passes = 0;
  std::vector<std::int64_t> runs;  // every sweep's archived run, in the order measured
  std::vector<ArmHeadToHead> arms;
  std::vector<ArmPair> pairs;
  std::string note;  // why there is nothing to compare (every arm's best is the start)

  [[nodiscard]] nlohmann::ordered_json json() const;
  // nullopt when `j` is not a head-to-head record. Never throws.
  [[nodiscard]] static std::optional<HeadToHead> from_json(const nlohmann::ordered_json& j);
};

}  // namespace kh::report
