// Value-returning (destination_passing_style false): owning Tensor arguments, the output
// allocated through tvm-ffi's environment allocator and returned.
#include "tvm_rmsnorm.h"

tvm::ffi::Tensor rmsnorm(tvm::ffi::Tensor hidden_states, tvm::ffi::Tensor weight) {
  tvm::ffi::Tensor out = tvm::ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, hidden_states.shape(),
                                                        hidden_states.dtype(), hidden_states.device());
  rmsnorm_rows(hidden_states, weight, out);
  return out;
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(rmsnorm, rmsnorm);
