// The typed signature a solution's entry function must have, in kernel-ABI order.
//
// build/ does not read definitions (it must not depend on trace/): the eval layer
// turns a Definition into a KernelSignature, and build/ checks the candidate
// against it at compile time and stamps it into the library.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tensor/dtype.h"

namespace kh {

struct KernelParam {
  enum class Role { input, output, scalar };
  std::string name;
  Role role = Role::input;
  DType dtype = DType::float32;
};

struct KernelSignature {
  std::string function;  // the entry function's name, e.g. "rmsnorm"
  // ABI order: inputs in definition order (scalars, i.e. inputs whose shape is
  // null, among them), then outputs. The stream is implicit and always last.
  std::vector<KernelParam> params;
};

[[nodiscard]] std::string_view role_name(KernelParam::Role role) noexcept;

// The C type the entry function must take for this parameter:
// "const DLTensor*", "DLTensor*", or the scalar's C type ("float", "int64_t", ...).
[[nodiscard]] std::string c_type(const KernelParam& p);

// "input bfloat16 tensor", "output float32 tensor", "scalar float32".
[[nodiscard]] std::string describe(const KernelParam& p);

// The canonical one-line text of a signature, stamped into every built library
// (kh_signature()) so a worker can confirm it loaded what it expects, e.g.
// "rmsnorm(const DLTensor* hidden_states, float eps, DLTensor* output, kh_stream_t stream)"
[[nodiscard]] std::string signature_text(const KernelSignature& sig);

// Throws kh::Error (field "signature...") if the function name is not a C++
// identifier (optionally namespace-qualified), a parameter name is empty or
// repeated, or an input/scalar follows an output.
void validate(const KernelSignature& sig);

}  // namespace kh
