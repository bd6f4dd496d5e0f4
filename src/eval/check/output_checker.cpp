#include "eval/check/output_checker.h"

#include <fmt/format.h>

#include "error/error.h"
#include "eval/check/default_checker.h"

namespace kh {

std::unique_ptr<OutputChecker> make_output_checker(std::string_view name) {
  if (name == "default") return std::make_unique<DefaultChecker>();
  throw Error(Location{"", 0, "checker"}, fmt::format("unknown output checker '{}'; known: default", name));
}

}  // namespace kh
