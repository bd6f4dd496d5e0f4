#include "worker/self_executable.h"

#include "error/error.h"

namespace kh {

std::filesystem::path self_executable() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("cannot locate the kharness executable (/proc/self/exe): " + ec.message());
  return p;
}

}  // namespace kh
