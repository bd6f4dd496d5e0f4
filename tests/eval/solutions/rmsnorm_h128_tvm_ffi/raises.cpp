// Raises a tvm-ffi error on every call: RUNTIME_ERROR carrying its kind and message.
#include "tvm_rmsnorm.h"

void rmsnorm(tvm::ffi::TensorView, tvm::ffi::TensorView, tvm::ffi::TensorView) {
  TVM_FFI_THROW(ValueError) << "this kernel refuses every input";
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(rmsnorm, rmsnorm);
