// Runs a subcommand's body: its return value is the exit status, and a kh::Error (a
// bad file, a broken archive, a harness failure) is one "error: ..." line and status 2.
#pragma once

#include <fmt/format.h>

#include <cstdio>

#include "error/error.h"

namespace kh::cli {

template <class Body>
void guarded_run(int& exit_code, Body body) {
  try {
    exit_code = body();
  } catch (const Error& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    exit_code = 2;
  }
}

}  // namespace kh::cli
