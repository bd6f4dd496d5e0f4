// `kharness ablate`: arms of the optimisation loop on one definition at equal budgets,
// interleaved, resumable (control/ablation.h, docs/ablation.md).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "control/ablation.h"

namespace kh::cli {

void register_ablate(CLI::App& app, int& exit_code);

// What an --arm names, parsed: NAME or NAME:key=value,key=value with keys agent
// (names joined by '+'), model, config (an agent config file), skills and evidence
// (on|off). Throws kh::Error naming the arm and key. Agents are not made here.
struct ArmSpec {
  control::AblationArm arm;
  std::string config;  // "" unless the arm names its own agent config
};
[[nodiscard]] ArmSpec parse_arm(const std::string& text);

}  // namespace kh::cli
