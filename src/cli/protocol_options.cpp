#include "cli/protocol_options.h"

#include <algorithm>

namespace kh::cli {

void add_protocol_options(CLI::App* cmd, ProtocolArgs& a, bool with_choice) {
  if (with_choice) {
    cmd->add_option("--protocol", a.name, "official (contest) or robust (noise-controlled)")
        ->check(CLI::Validator(
            [](const std::string& s) {
              return protocol_kind_from_name(s) ? std::string()
                                                : "must be official or robust, not '" + s + "'";
            },
            "official|robust"));
  }
  cmd->add_option("--warmup", a.warmup, "Warm-up calls before timing")->check(CLI::NonNegativeNumber);
  cmd->add_option("--iterations", a.iterations, "Timed iterations per trial (official protocol)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--timing-trials", a.trials, "Timing trials (official protocol; 3)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-noise", a.max_noise, "Robust protocol: relative stdev to reach (0.005)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--min-time", a.min_time_s, "Robust protocol: seconds of measured time at least (0.5)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--robust-timeout", a.timeout_s, "Robust protocol: wall-clock seconds per workload (5)")
      ->check(CLI::PositiveNumber);
}

TimingProtocol protocol_from(const ProtocolArgs& a, const OperatorEntry* op, bool light) {
  TimingProtocol p;
  p.kind = protocol_kind_from_name(a.name).value_or(ProtocolKind::official);
  if (light) {
    p.warmup = 2;
    p.iterations = 20;
    p.stop.max_noise = 0.02;
    p.stop.min_time_s = 0.05;
    p.stop.timeout_s = 2;
  } else if (op != nullptr) {
    p.warmup = op->warmup.value_or(p.warmup);
    p.iterations = op->iterations.value_or(p.iterations);
  }
  p.warmup = a.warmup.value_or(p.warmup);
  p.iterations = a.iterations.value_or(p.iterations);
  p.trials = a.trials.value_or(p.trials);
  p.stop.max_noise = a.max_noise.value_or(p.stop.max_noise);
  p.stop.min_time_s = a.min_time_s.value_or(p.stop.min_time_s);
  p.stop.timeout_s = a.timeout_s.value_or(p.stop.timeout_s);
  return p;
}

TimingProtocol loop_protocol_from(const ProtocolArgs& a, const OperatorEntry* op, bool light) {
  TimingProtocol p = protocol_from(a, op, light);
  if (light) return p;
  const TimingProtocol defaults;
  if (!a.warmup) p.warmup = std::max(p.warmup, defaults.warmup);
  if (!a.iterations) p.iterations = std::max(p.iterations, defaults.iterations);
  return p;
}

}  // namespace kh::cli
