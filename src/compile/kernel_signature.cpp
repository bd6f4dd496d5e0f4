#include "compile/kernel_signature.h"

#include <set>

#include "error/error.h"
#include "error/location.h"
#include "naming/identifier.h"

namespace kh {

std::string_view role_name(KernelParam::Role role) noexcept {
  switch (role) {
    case KernelParam::Role::input:
      return "input";
    case KernelParam::Role::output:
      return "output";
    case KernelParam::Role::scalar:
      return "scalar";
  }
  return "unknown";
}

namespace {
// Scalars travel as plain C values; kernel.h fixes which C type each dtype uses.
// Low-precision floats have no C type, so they are passed as float like float16.
std::string scalar_c_type(DType t) {
  switch (t) {
    case DType::int64:
      return "int64_t";
    case DType::int32:
      return "int32_t";
    case DType::int16:
      return "int16_t";
    case DType::int8:
      return "int8_t";
    case DType::uint8:
      return "uint8_t";
    case DType::boolean:
      return "bool";
    default:
      return "float";
  }
}
}  // namespace

std::string c_type(const KernelParam& p) {
  switch (p.role) {
    case KernelParam::Role::input:
      return "const DLTensor*";
    case KernelParam::Role::output:
      return "DLTensor*";
    case KernelParam::Role::scalar:
      return scalar_c_type(p.dtype);
  }
  return "?";
}

std::string describe(const KernelParam& p) {
  std::string out{role_name(p.role)};
  out += ' ';
  out += dtype_name(p.dtype);
  if (p.role != KernelParam::Role::scalar) out += " tensor";
  return out;
}

std::string signature_text(const KernelSignature& sig) {
  std::string out = sig.function + "(";
  for (const KernelParam& p : sig.params) out += c_type(p) + " " + p.name + ", ";
  out += "kh_stream_t stream)";
  return out;
}

void validate(const KernelSignature& sig) {
  if (!is_qualified_identifier(sig.function)) {
    throw Error(detail::at_field("signature.function"),
                "entry function '" + sig.function + "' is not a C++ identifier");
  }
  std::set<std::string, std::less<>> seen;
  bool saw_output = false;
  for (std::size_t i = 0; i < sig.params.size(); ++i) {
    const KernelParam& p = sig.params[i];
    const Location where = detail::at_field("signature.params[" + std::to_string(i) + "]");
    if (p.name.empty()) throw Error(where, "parameter has no name");
    if (!seen.insert(p.name).second) throw Error(where, "parameter '" + p.name + "' is repeated");
    if (p.role == KernelParam::Role::output) {
      saw_output = true;
    } else if (saw_output) {
      throw Error(where, "parameter '" + p.name + "' is an " + std::string(role_name(p.role)) +
                             " after an output; the ABI puts all inputs first");
    }
  }
}

}  // namespace kh
