// The honest kernel on the environment's stream, as flashinfer-bench's solutions launch.
#include "tvm_rmsnorm.cuh"

void rmsnorm(tvm::ffi::TensorView hidden_states, tvm::ffi::TensorView weight, tvm::ffi::TensorView output) {
  launch_rmsnorm(hidden_states, weight, output, env_stream(hidden_states));
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(rmsnorm, rmsnorm);
