// The kernel ABI signature a FlashInfer-Trace definition asks of an entry function:
// its inputs in order (scalars among them), then its outputs.
#pragma once

#include <string>

#include "compile/kernel_signature.h"
#include "trace/definition.h"

namespace kh {

[[nodiscard]] KernelSignature kernel_signature(const Definition& definition, const std::string& function);

}  // namespace kh
