// The toolchains by name. A new toolchain adds its factory here.
#include <array>
#include <memory>

#include "compile/toolchain.h"
#include "error/error.h"
#include "error/location.h"

namespace kh {

std::unique_ptr<Toolchain> make_nvcc_toolchain();
std::unique_ptr<Toolchain> make_gxx_toolchain();

namespace {
using Factory = std::unique_ptr<Toolchain> (*)();
constexpr std::array<Factory, 2> kFactories{&make_nvcc_toolchain, &make_gxx_toolchain};

// Toolchains are stateless apart from caches, so one shared instance of each serves all builds.
const std::vector<std::unique_ptr<Toolchain>>& all_toolchains() {
  static const std::vector<std::unique_ptr<Toolchain>> all = [] {
    std::vector<std::unique_ptr<Toolchain>> v;
    for (Factory make : kFactories) v.push_back(make());
    return v;
  }();
  return all;
}

std::string known_names() {
  std::string out;
  for (const auto& t : all_toolchains()) out += (out.empty() ? "" : ", ") + std::string(t->name());
  return out;
}
}  // namespace

const Toolchain& toolchain(std::string_view name) {
  for (const auto& t : all_toolchains()) {
    if (t->name() == name) return *t;
  }
  throw Error(detail::at_field("toolchain"),
              "unknown toolchain '" + std::string(name) + "' (known: " + known_names() + ")");
}

const Toolchain& toolchain_for_language(std::string_view language) {
  for (const auto& t : all_toolchains()) {
    if (t->language() == language) return *t;
  }
  throw Error(detail::at_field("language"),
              "no toolchain builds language '" + std::string(language) + "' (supported: cuda, cpp)");
}

}  // namespace kh
