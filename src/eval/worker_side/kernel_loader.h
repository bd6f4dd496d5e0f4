// load_kernel: the worker's "load" request turned into a callable Kernel.
//
// The request names a runtime ("runtime": "native" when absent) and what that runtime
// needs; each runtime is one entry of the table in kernel_loader.cpp:
//   native  {library, signature}: a shared library built by build/ (C++, CUDA)
//   python  {library: the staged package root, package, module, function, params,
//            destination_passing}: a Python or Triton solution run by the embedded
//            interpreter (python/python_kernel.h)
#pragma once

#include <memory>
#include <nlohmann/json.hpp>

#include "device/backend.h"
#include "eval/worker_side/kernel.h"

namespace kh {

// Throws KernelRejected when the solution itself is at fault (COMPILE_ERROR), kh::Error
// for anything else (an unknown runtime, an unloadable library).
[[nodiscard]] std::unique_ptr<Kernel> load_kernel(const nlohmann::ordered_json& request, Backend& backend);

}  // namespace kh
