#include "eval/check/output_checker.h"

#include <fmt/format.h>

#include <map>
#include <mutex>

#include "error/error.h"
#include "eval/check/default_checker.h"
#include "eval/operator_harness.h"

namespace kh {

namespace {

struct CheckerRegistry {
  std::mutex mutex;
  std::map<std::string, CheckerFactory, std::less<>> by_name;
};

CheckerRegistry& checkers() {
  static CheckerRegistry r;
  return r;
}

}  // namespace

void register_output_checker(std::string name, CheckerFactory make) {
  CheckerRegistry& r = checkers();
  std::lock_guard lock(r.mutex);
  r.by_name[std::move(name)] = std::move(make);
}

std::unique_ptr<OutputChecker> make_output_checker(std::string_view name) {
  if (name == "default") return std::make_unique<DefaultChecker>();
  register_operator_harnesses();
  CheckerRegistry& r = checkers();
  std::lock_guard lock(r.mutex);
  if (auto it = r.by_name.find(name); it != r.by_name.end()) return it->second();
  std::string known = "default";
  for (const auto& [n, make] : r.by_name) known += ", " + n;
  throw Error(Location{"", 0, "checker"}, fmt::format("unknown output checker '{}'; known: {}", name, known));
}

}  // namespace kh
