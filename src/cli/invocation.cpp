#include "cli/invocation.h"

namespace kh::cli {
namespace {

std::vector<std::string>& stored() {
  static std::vector<std::string> args;
  return args;
}

}  // namespace

void remember_invocation(int argc, char** argv) { stored().assign(argv, argv + argc); }

const std::vector<std::string>& invocation() { return stored(); }

}  // namespace kh::cli
