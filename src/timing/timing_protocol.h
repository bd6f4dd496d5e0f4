// The timing protocol as one value: which statistic a latency is, how many calls make it,
// and when sampling stops. Every question that depends on the protocol is a method here,
// so callers never branch on its kind; its JSON codec and its name parser are the only
// ones in kharness (the stored options, the worker's request and the reference-latency
// cache key all use them).
//
//   official  `warmup` calls, then `trials` trials of `iterations` timed calls each; the
//             latency is the mean of the per-trial medians (the contest's protocol).
//   robust    `warmup` calls, then one trial sampled until the stdrel stop rule is met
//             (timing/stop_criterion.h); the latency is its median.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "timing/stop_criterion.h"

namespace kh {

enum class ProtocolKind { official, robust };

[[nodiscard]] std::string_view protocol_name(ProtocolKind k) noexcept;

struct TimingProtocol {
  ProtocolKind kind = ProtocolKind::official;
  int warmup = 10;
  int iterations = 50;  // timed calls per trial (official)
  int trials = 3;       // timing trials (official)
  StopParameters stop;  // when sampling ends (robust)

  [[nodiscard]] std::string_view name() const noexcept;
  [[nodiscard]] bool fixed_count() const noexcept { return kind == ProtocolKind::official; }
  // The same settings under the other statistic.
  [[nodiscard]] TimingProtocol as(ProtocolKind k) const;
  // Timing trials the orchestrator runs for one latency.
  [[nodiscard]] int trial_count() const noexcept;
  // Timed calls one trial is planned for: input sets and output slots are sized to it.
  // The robust protocol's length is open; 64 stands in for it.
  [[nodiscard]] std::size_t planned_iterations() const noexcept;
  // The latency from the per-trial medians and the median of all samples pooled.
  [[nodiscard]] double latency_ms(std::span<const double> trial_medians, double pooled_median) const;
  // How the trace describes the protocol's own part: counts or stop rule, and statistic.
  [[nodiscard]] nlohmann::ordered_json description() const;
};

// "official" or "robust"; nothing else.
[[nodiscard]] std::optional<ProtocolKind> protocol_kind_from_name(std::string_view name);

// The codec. Writes the keys protocol, warmup, iterations, timing_trials and robust (the
// stop rule) into `into`; reads them back from `from`, where an absent key keeps its
// default and a wrong type or an unknown name throws kh::Error naming `where`.key.
void write_protocol(nlohmann::ordered_json& into, const TimingProtocol& p);
[[nodiscard]] TimingProtocol read_protocol(const nlohmann::ordered_json& from, std::string_view where);

[[nodiscard]] nlohmann::ordered_json stop_parameters_to_json(const StopParameters& p);
[[nodiscard]] StopParameters stop_parameters_from_json(const nlohmann::ordered_json& j,
                                                       std::string_view where);

}  // namespace kh
