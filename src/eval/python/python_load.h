// PythonLoad: what the worker needs to load a Python or Triton solution, as the
// orchestrator sends it in the "load" request (runtime "python").
//
// The orchestrator stages the sources as a package (python_solution.h) and never runs
// them; the worker imports `package.module` from `root` and calls `function` with the
// definition's parameters in ABI order.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "compile/kernel_signature.h"

namespace kh {

struct PythonLoad {
  std::filesystem::path root;  // the folder that holds the package
  std::string package;         // the sources' package name
  std::string module;          // the entry file's module within it ("kernel", "impl.main")
  std::string function;
  bool destination_passing = true;  // false: the function returns its outputs
  KernelSignature signature;        // parameter names, roles and dtypes in ABI order
};

[[nodiscard]] nlohmann::ordered_json python_load_to_json(const PythonLoad& load);
// Throws kh::Error naming the field that is missing or malformed.
[[nodiscard]] PythonLoad python_load_from_json(const nlohmann::ordered_json& request);

}  // namespace kh
