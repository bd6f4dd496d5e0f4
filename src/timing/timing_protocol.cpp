#include "timing/timing_protocol.h"

#include <numeric>

#include "base/json_field.h"
#include "error/error.h"

namespace kh {

using json = nlohmann::ordered_json;

std::string_view protocol_name(ProtocolKind k) noexcept {
  return k == ProtocolKind::official ? "official" : "robust";
}

std::string_view TimingProtocol::name() const noexcept { return protocol_name(kind); }

TimingProtocol TimingProtocol::as(ProtocolKind k) const {
  TimingProtocol p = *this;
  p.kind = k;
  return p;
}

int TimingProtocol::trial_count() const noexcept { return fixed_count() ? trials : 1; }

std::size_t TimingProtocol::planned_iterations() const noexcept {
  return fixed_count() ? static_cast<std::size_t>(iterations) : 64;
}

double TimingProtocol::latency_ms(std::span<const double> trial_medians, double pooled_median) const {
  if (!fixed_count() || trial_medians.empty()) return pooled_median;
  return std::accumulate(trial_medians.begin(), trial_medians.end(), 0.0) /
         static_cast<double>(trial_medians.size());
}

json TimingProtocol::description() const {
  if (fixed_count())
    return {{"iterations", iterations}, {"trials", trials}, {"statistic", "mean of per-trial medians"}};
  return {{"stop",
           {{"criterion", "stdrel"},
            {"max_noise", stop.max_noise},
            {"min_samples", stop.min_samples},
            {"min_time_s", stop.min_time_s},
            {"timeout_s", stop.timeout_s}}},
          {"statistic", "median"}};
}

std::optional<ProtocolKind> protocol_kind_from_name(std::string_view name) {
  if (name == "official") return ProtocolKind::official;
  if (name == "robust") return ProtocolKind::robust;
  return std::nullopt;
}

void write_protocol(json& into, const TimingProtocol& p) {
  into["protocol"] = std::string(p.name());
  into["warmup"] = p.warmup;
  into["iterations"] = p.iterations;
  into["timing_trials"] = p.trials;
  into["robust"] = stop_parameters_to_json(p.stop);
}

TimingProtocol read_protocol(const json& from, std::string_view where) {
  if (!from.is_object()) throw Error(Location{"", 0, std::string(where)}, "not a JSON object");
  TimingProtocol p;
  std::string name(p.name());
  read_optional_field(from, where, "protocol", name);
  const std::optional<ProtocolKind> kind = protocol_kind_from_name(name);
  if (!kind) {
    throw Error(Location{"", 0, std::string(where) + ".protocol"},
                "unknown protocol '" + name + "' (official or robust)");
  }
  p.kind = *kind;
  read_optional_field(from, where, "warmup", p.warmup);
  read_optional_field(from, where, "iterations", p.iterations);
  read_optional_field(from, where, "timing_trials", p.trials);
  if (const auto r = from.find("robust"); r != from.end() && r->is_object())
    p.stop = stop_parameters_from_json(*r, std::string(where) + ".robust");
  return p;
}

json stop_parameters_to_json(const StopParameters& p) {
  return {{"max_noise", p.max_noise},
          {"min_samples", p.min_samples},
          {"min_time_s", p.min_time_s},
          {"timeout_s", p.timeout_s},
          {"max_samples", p.max_samples}};
}

StopParameters stop_parameters_from_json(const json& j, std::string_view where) {
  StopParameters p;
  read_optional_field(j, where, "max_noise", p.max_noise);
  read_optional_field(j, where, "min_samples", p.min_samples);
  read_optional_field(j, where, "min_time_s", p.min_time_s);
  read_optional_field(j, where, "timeout_s", p.timeout_s);
  read_optional_field(j, where, "max_samples", p.max_samples);
  return p;
}

}  // namespace kh
