#include "eval/worker_side/kernel_loader.h"

#include <fmt/format.h>

#include <array>
#include <string>
#include <string_view>

#include "error/error.h"
#include "eval/python/python_kernel.h"
#include "eval/worker_side/kernel_library.h"

namespace kh {

namespace {

std::unique_ptr<Kernel> load_native(const nlohmann::ordered_json& request, Backend& /*backend*/) {
  return std::make_unique<KernelLibrary>(KernelLibrary::open(request.at("library").get<std::string>(),
                                                             request.at("signature").get<std::string>()));
}

std::unique_ptr<Kernel> load_python(const nlohmann::ordered_json& request, Backend& backend) {
  return PythonKernel::open(python_load_from_json(request), backend);
}

struct Runtime {
  std::string_view name;
  std::unique_ptr<Kernel> (*load)(const nlohmann::ordered_json&, Backend&);
};

constexpr std::array<Runtime, 2> kRuntimes{{{"native", &load_native}, {"python", &load_python}}};

}  // namespace

std::unique_ptr<Kernel> load_kernel(const nlohmann::ordered_json& request, Backend& backend) {
  const std::string runtime = request.value("runtime", std::string("native"));
  for (const Runtime& r : kRuntimes) {
    if (r.name == runtime) return r.load(request, backend);
  }
  throw Error(Location{"", 0, "runtime"},
              fmt::format("unknown solution runtime '{}' (known: native, python)", runtime));
}

}  // namespace kh
