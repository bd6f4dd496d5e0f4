// The timing protocol's flags (--protocol, --warmup, --iterations, --timing-trials and
// the robust stop rule), declared once for eval, optimize and ablate, and the protocol
// they ask for. Names are parsed by timing/timing_protocol.h's one parser.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "eval/operator_library.h"
#include "timing/timing_protocol.h"

namespace kh::cli {

struct ProtocolArgs {
  std::string name = "official";
  std::optional<int> warmup, iterations, trials;
  std::optional<double> max_noise, min_time_s, timeout_s;
};

// with_choice: the command offers --protocol (the loop times under both and does not).
void add_protocol_options(CLI::App* cmd, ProtocolArgs& a, bool with_choice);

// Each setting from its flag, else (counts only) the operator's contest setting, else
// TimingProtocol's default. light: the loop's --small timing (2 warm-up calls, 20
// iterations, a 2% noise target within 2 s) where no flag says otherwise.
[[nodiscard]] TimingProtocol protocol_from(const ProtocolArgs& a, const OperatorEntry* op, bool light);

// The loop's timing: protocol_from, except that an operator's contest setting lighter than
// TimingProtocol's default (GDN prefill: 1 warm-up, 5 iterations) does not lower the count
// where no flag set it. The loop decides on gains of a few percent, and five calls of 15 us
// do not resolve them: on an H100 the trial medians of such a gate spread by 11%, and real
// 5% gains were rejected as noise. The contest's figures come from eval, which keeps them.
[[nodiscard]] TimingProtocol loop_protocol_from(const ProtocolArgs& a, const OperatorEntry* op, bool light);

}  // namespace kh::cli
