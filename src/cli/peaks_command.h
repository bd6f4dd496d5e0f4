// `kharness peaks`: the measured bandwidth and compute peaks of the device, from the
// cache or measured now; what every speed-of-light fraction is computed from.
#pragma once

#include <CLI/CLI.hpp>

namespace kh::cli {

void register_peaks(CLI::App& app, int& exit_code);

}  // namespace kh::cli
