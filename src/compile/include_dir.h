// Where the headers a candidate compiles against live: kharness/kernel.h,
// kharness/entry.h and dlpack/dlpack.h.
//
// The build copies them into <build>/include at configure time, so a build folder
// (or an install: bin/ next to include/) carries everything a GPU host needs to
// compile candidates, without the source tree or a dlpack package.
#pragma once

#include <filesystem>

namespace kh {

// $KHARNESS_INCLUDE_DIR if set; else "include" next to the running executable
// (/proc/self/exe), then one directory up. Throws kh::Error when none of them holds
// kharness/kernel.h.
[[nodiscard]] std::filesystem::path default_include_dir();

// Whether `dir` holds the headers candidates need.
[[nodiscard]] bool is_include_dir(const std::filesystem::path& dir);

}  // namespace kh
