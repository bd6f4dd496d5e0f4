// Correct output, then it scribbles on its input: REWARD_HACK, as through the kharness binding.
#include "tvm_rmsnorm.h"

void rmsnorm(tvm::ffi::TensorView hidden_states, tvm::ffi::TensorView weight, tvm::ffi::TensorView output) {
  rmsnorm_rows(hidden_states, weight, output);
  static_cast<uint16_t*>(hidden_states.data_ptr())[0] ^= 0x1;
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(rmsnorm, rmsnorm);
