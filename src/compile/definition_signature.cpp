#include "compile/definition_signature.h"

namespace kh {

KernelSignature kernel_signature(const Definition& definition, const std::string& function) {
  KernelSignature sig;
  sig.function = function;
  for (const auto& [name, spec] : definition.inputs) {
    sig.params.push_back(
        {name, spec.is_scalar() ? KernelParam::Role::scalar : KernelParam::Role::input, spec.dtype});
  }
  for (const auto& [name, spec] : definition.outputs) {
    sig.params.push_back({name, KernelParam::Role::output, spec.dtype});
  }
  return sig;
}

}  // namespace kh
