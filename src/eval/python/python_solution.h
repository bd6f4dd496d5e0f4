// Python and Triton solutions (and definitions' PyTorch references) on the orchestrator's
// side. The orchestrator never runs Python: it checks a solution's entry point and
// stages its sources as a package in the build cache's folder, content-addressed like a
// build, so that the worker can import it (python_kernel.h). A syntax or import error is
// found by the worker when it loads the solution, before anything is timed.
#pragma once

#include <filesystem>
#include <string_view>

#include "compile/build_request.h"
#include "eval/python/python_load.h"
#include "trace/definition.h"
#include "trace/solution.h"

namespace kh {

// "python" and "triton": the languages the worker's embedded interpreter runs.
[[nodiscard]] bool is_python_language(std::string_view language) noexcept;

// Stages `solution` under <cache_dir>/python/<key[0:2]>/<key>/ (atomically: a temporary
// folder renamed into place) and returns a BuildResult whose `library` is that folder.
// Throws kh::Error naming the field for an entry point that cannot be imported or
// called, and for a source path that leaves the solution's folder.
[[nodiscard]] BuildResult stage_python_solution(const Solution& solution, const Definition& definition,
                                                const std::filesystem::path& cache_dir);

// The definition's own PyTorch `reference` as a value-returning Python solution, as
// upstream runs it (entry "main.py::run"). Throws kh::Error when the field is empty.
[[nodiscard]] Solution definition_reference(const Definition& definition);

// What the worker's "load" request carries for a staged solution.
[[nodiscard]] PythonLoad python_load(const Solution& solution, const Definition& definition,
                                     const BuildResult& staged);

}  // namespace kh
