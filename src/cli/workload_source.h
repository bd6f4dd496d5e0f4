// Where a command's definition and workloads come from: a FlashInfer-Trace set when
// --trace-set is given, else kharness's own operator folder (its CI workloads with
// --small). Shared by eval and profile.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "eval/operator_library.h"
#include "trace/definition.h"
#include "trace/workload.h"

namespace kh::cli {

struct LoadedInputs {
  Definition definition;
  std::vector<Workload> workloads;
  std::filesystem::path root;  // for the workloads' relative blob paths
};

// Throws kh::Error naming the set or the option when the definition is unknown or has
// no workloads.
[[nodiscard]] LoadedInputs load_definition_workloads(const std::string& trace_set,
                                                     const std::string& definition,
                                                     const OperatorLibrary& ops, bool small);

// kharness's operator library: --operators DIR when given, else the default root.
[[nodiscard]] OperatorLibrary operator_library(const std::string& operators_dir);

}  // namespace kh::cli
