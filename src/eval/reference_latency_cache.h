// ReferenceLatencyCache: the reference's latency, measured once per (reference build,
// workload, device, protocol, clock state) and reused, so an evaluation times only the
// candidate. Its correctness outputs are still computed on the device for every seed;
// only the timing trials are skipped.
//
// An entry is a JSON file <dir>/reference-latency/<key>.json, written atomically. The key
// is the SHA-256 of the canonical JSON of the reference build's key, the workload (its
// uuid, axes and inputs), the device (name, driver, runtime, compute capability, SMs,
// nominal SM clock), the protocol (warm-up, iterations, trials or stop rule, input sets,
// re-checks) and the backend. An entry is stale, and measured again, when it is older
// than the maximum age, or when the candidate just ran at a mean SM clock more than 10%
// away from the one the entry was measured at (clocks locked, unlocked or throttled
// since). Traces say when a reference latency came from here (latency source "cache").
#pragma once

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "eval/workload_result.h"

namespace kh {

class ReferenceLatencyCache {
 public:
  // `dir` is the build cache's folder; entries older than `max_age` are stale.
  ReferenceLatencyCache(const std::filesystem::path& dir, std::chrono::seconds max_age);

  // The key of one measurement from its parts (see above), as hex.
  [[nodiscard]] static std::string key(const nlohmann::ordered_json& parts);

  // The cached measurement, or nullopt when there is none, it cannot be read, or it is
  // stale for a candidate that ran at `candidate_clock_mhz` (0: unknown, not compared).
  [[nodiscard]] std::optional<LatencyMeasurement> find(const std::string& key,
                                                       double candidate_clock_mhz) const;
  // Stores `m` under `key` with the parts it was keyed by; a failure to write is reported
  // on stderr and otherwise ignored (the next evaluation measures again).
  void store(const std::string& key, const nlohmann::ordered_json& parts, const LatencyMeasurement& m) const;

 private:
  [[nodiscard]] std::filesystem::path path_of(const std::string& key) const;

  std::filesystem::path dir_;
  std::chrono::seconds max_age_;
};

}  // namespace kh
