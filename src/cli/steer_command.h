// `kharness steer`: a person's directive for a running (or future) optimisation loop,
// recorded in the archive until the loop's next round takes it (control/steering.h).
#pragma once

#include <CLI/CLI.hpp>

namespace kh::cli {

// Exit status: 0 recorded (or listed), 2 usage or archive error.
void register_steer(CLI::App& app, int& exit_code);

}  // namespace kh::cli
