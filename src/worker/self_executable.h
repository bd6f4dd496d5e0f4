// The running kharness binary: workers are started as `kharness __worker`, and the
// headers and operators that travel with it are found beside it.
#pragma once

#include <filesystem>

namespace kh {

// /proc/self/exe resolved. Throws kh::Error when it cannot be read.
[[nodiscard]] std::filesystem::path self_executable();

}  // namespace kh
