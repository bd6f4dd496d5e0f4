// `kharness serve`: the read-only dashboard of an archive over HTTP, on 127.0.0.1 by
// default, every asset built in.
#pragma once

#include <CLI/CLI.hpp>

namespace kh::cli {

void register_serve(CLI::App& app, int& exit_code);

}  // namespace kh::cli
