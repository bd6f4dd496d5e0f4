// Value-returning, but the returned tensor has half the columns: INCORRECT_SHAPE.
#include "tvm_rmsnorm.h"

tvm::ffi::Tensor rmsnorm(tvm::ffi::TensorView hidden_states, tvm::ffi::TensorView weight) {
  const int64_t shape[2] = {hidden_states.size(0), hidden_states.size(1) / 2};
  tvm::ffi::Tensor out = tvm::ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, tvm::ffi::ShapeView(shape, 2),
                                                        hidden_states.dtype(), hidden_states.device());
  std::memset(out.data_ptr(), 0, static_cast<size_t>(out.numel()) * 2);
  (void)weight;
  return out;
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(rmsnorm, rmsnorm);
