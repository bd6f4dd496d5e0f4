// The diagnosis rule table: from one regime's evidence to a bottleneck label and the
// two or three most promising directions. The table is documented, row by row, in
// docs/diagnosis.md; each row is one function in diagnosis_rules.cpp.
//
// Labels:
//   launch  - the kernel runs for a few microseconds: fixed costs dominate
//   memory  - a memory unit (DRAM, L2, L1/shared) is the limiter (measured throughput, or the model's bound)
//   compute - the math pipes are the limiter
//   latency - neither is busy: the kernel waits (too little parallelism, stalls)
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "profile/regime_evidence.h"

namespace kh::profile {

struct Direction {
  std::string family;  // technique family: "memory_access", "parallelism", ...
  std::string title;   // what to try
  std::string why;     // the evidence that points there
  double score = 0;    // higher first
};

struct Diagnosis {
  std::string bottleneck;             // launch | memory | compute | latency
  std::string reason;                 // the evidence for the label, one sentence
  std::vector<Direction> directions;  // at most 3, best first
};

[[nodiscard]] Diagnosis diagnose(const RegimeEvidence& evidence);

// The memory units ncu measured for a launch, busiest first: "L2 80%, L1 57%, DRAM 45%"; empty when
// none was (a profile made before kharness asked for them).
[[nodiscard]] std::string memory_units_text(const KernelMetrics& k);

// The directions as a profile report's JSON holds them: [{family, title, why}, ...].
[[nodiscard]] nlohmann::ordered_json directions_json(const std::vector<Direction>& directions);

// The launch-bound threshold: below this latency fixed launch costs dominate.
inline constexpr double kLaunchBoundMs = 0.005;

}  // namespace kh::profile
