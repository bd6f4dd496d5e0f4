// Destination-passing, as flashinfer-bench calls tvm-ffi solutions: inputs then outputs.
#include "tvm_rmsnorm.h"

void rmsnorm(tvm::ffi::TensorView hidden_states, tvm::ffi::TensorView weight, tvm::ffi::TensorView output) {
  rmsnorm_rows(hidden_states, weight, output);
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(rmsnorm, rmsnorm);
