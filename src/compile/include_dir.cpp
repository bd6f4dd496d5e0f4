#include "compile/include_dir.h"

#include <cstdlib>
#include <system_error>
#include <vector>

#include "error/error.h"
#include "error/location.h"

namespace kh {

bool is_include_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  return std::filesystem::is_regular_file(dir / "kharness" / "kernel.h", ec) &&
         std::filesystem::is_regular_file(dir / "kharness" / "entry.h", ec) &&
         std::filesystem::is_regular_file(dir / "dlpack" / "dlpack.h", ec);
}

std::filesystem::path default_include_dir() {
  if (const char* forced = std::getenv("KHARNESS_INCLUDE_DIR"); forced != nullptr && *forced != '\0') {
    if (!is_include_dir(forced)) {
      throw Error(detail::at_field("KHARNESS_INCLUDE_DIR"),
                  std::string("'") + forced +
                      "' does not hold kharness/kernel.h, kharness/entry.h and dlpack/dlpack.h");
    }
    return forced;
  }
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("cannot find the running executable (/proc/self/exe): " + ec.message());
  const std::vector<std::filesystem::path> candidates{exe.parent_path() / "include",
                                                      exe.parent_path().parent_path() / "include"};
  for (const auto& dir : candidates) {
    if (is_include_dir(dir)) return dir;
  }
  throw Error("kharness headers not found in '" + candidates[0].string() + "' or '" + candidates[1].string() +
              "'; set KHARNESS_INCLUDE_DIR to the build folder's include directory");
}

}  // namespace kh
