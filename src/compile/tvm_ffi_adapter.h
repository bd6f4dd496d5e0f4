// The source file that makes a kharness-binding solution a tvm-ffi one, so that
// flashinfer-bench (which builds cpp and cuda solutions with tvm-ffi) runs it as it is.
//
// The adapter #includes the solution's entry file (renamed so that no build compiles it
// on its own as well), wraps the entry in a function over tvm::ffi::TensorView arguments
// and exports it under the entry's own name with TVM_FFI_DLL_EXPORT_TYPED_FUNC. Per call
// it passes compact DLTensor views (byte_offset folded into data, strides NULL, as the
// kharness ABI promises; a non-contiguous tensor is an error), narrows scalars to the
// kharness C types, takes the stream from TVMFFIEnvGetStream, and turns a non-zero int
// result into a tvm-ffi error.
#pragma once

#include <string>
#include <string_view>

#include "compile/kernel_signature.h"

namespace kh {

// Bumped whenever the generated code changes.
inline constexpr int kTvmFfiAdapterFormat = 1;

struct TvmFfiAdapter {
  std::string file_name;  // "kh_tvm_ffi_entry.cu" or "kh_tvm_ffi_entry.cpp"
  std::string content;
};

// `entry_include`: the renamed entry file, relative to the adapter's folder. `language`:
// "cuda" or "cpp". Throws kh::Error for an invalid signature or an unincludable path.
[[nodiscard]] TvmFfiAdapter generate_tvm_ffi_adapter(const KernelSignature& sig,
                                                     std::string_view entry_include,
                                                     std::string_view language);

// What the entry file is renamed to inside the converted solution: no builder compiles
// "<file>.inc" on its own.
[[nodiscard]] std::string adapted_entry_path(std::string_view entry_file);

}  // namespace kh
