// `kharness skills show`: the skills an agent would receive for a definition, regime,
// stage and token budget, exactly as they are composed into its workspace and prompt.
#pragma once

#include <CLI/CLI.hpp>

namespace kh::cli {

void register_skills(CLI::App& app, int& exit_code);

}  // namespace kh::cli
