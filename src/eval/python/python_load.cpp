#include "eval/python/python_load.h"

#include <fmt/format.h>

#include "error/error.h"
#include "tensor/dtype.h"

namespace kh {

namespace {

KernelParam::Role parse_role(const std::string& role) {
  if (role == "input") return KernelParam::Role::input;
  if (role == "output") return KernelParam::Role::output;
  if (role == "scalar") return KernelParam::Role::scalar;
  throw Error(Location{"", 0, "params.role"}, fmt::format("unknown parameter role '{}'", role));
}

}  // namespace

nlohmann::ordered_json python_load_to_json(const PythonLoad& load) {
  nlohmann::ordered_json params = nlohmann::ordered_json::array();
  for (const KernelParam& p : load.signature.params) {
    params.push_back({{"name", p.name}, {"role", role_name(p.role)}, {"dtype", dtype_name(p.dtype)}});
  }
  return {{"runtime", "python"},       {"library", load.root.string()},
          {"package", load.package},   {"module", load.module},
          {"function", load.function}, {"destination_passing", load.destination_passing},
          {"params", params}};
}

PythonLoad python_load_from_json(const nlohmann::ordered_json& request) {
  try {
    PythonLoad load;
    load.root = request.at("library").get<std::string>();
    load.package = request.at("package").get<std::string>();
    load.module = request.at("module").get<std::string>();
    load.function = request.at("function").get<std::string>();
    load.destination_passing = request.at("destination_passing").get<bool>();
    load.signature.function = load.function;
    for (const auto& p : request.at("params")) {
      const auto dtype = parse_dtype(p.at("dtype").get<std::string>());
      if (!dtype) throw Error(Location{"", 0, "params.dtype"}, "unknown dtype " + p.at("dtype").dump());
      load.signature.params.push_back(
          {p.at("name").get<std::string>(), parse_role(p.at("role").get<std::string>()), *dtype});
    }
    return load;
  } catch (const nlohmann::json::exception& e) {
    throw Error(Location{"", 0, "load"}, fmt::format("malformed Python load request: {}", e.what()));
  }
}

}  // namespace kh
