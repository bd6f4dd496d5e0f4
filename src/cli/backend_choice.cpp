#include "cli/backend_choice.h"

#include <fmt/format.h>

#include <cstdio>

#include "device/backend.h"
#include "error/error.h"

namespace kh::cli {

std::string pick_backend(const std::string& requested) {
  if (requested != "auto") return requested;
  for (const std::string& b : compiled_backends()) {
    if (b != "cuda") continue;
    try {
      (void)make_backend("cuda");
      return "cuda";
    } catch (const Error& e) {
      fmt::print(stderr, "note: using the CPU backend: {}\n", e.what());
    }
  }
  return "cpu";
}

}  // namespace kh::cli
