// `kharness profile`: the diagnosis report of one candidate (profile/profile_session.h),
// as Markdown and JSON.
#pragma once

#include <CLI/CLI.hpp>

namespace kh::cli {

void register_profile(CLI::App& app, int& exit_code);

}  // namespace kh::cli
