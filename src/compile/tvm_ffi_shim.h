// The generated translation unit that binds a tvm-ffi solution (`"binding": "tvm-ffi"`)
// to the kharness entry ABI (include/kharness/entry.h).
//
// The solution is compiled unmodified: its entry file exports the entry with
// TVM_FFI_DLL_EXPORT_TYPED_FUNC(<name>, <function>), as flashinfer-bench expects. The shim
//   - includes include/kharness/tvm_ffi_bridge.h, then redefines that macro so that each
//     use still exports the function as tvm-ffi does and, for the export named by the
//     entry point, adds one static_assert per rule: a function or lambda, the arity the
//     definition needs (inputs and outputs in destination-passing style, inputs alone
//     otherwise), each argument's kind (tensor, integer, float, bool) and, for a
//     value-returning entry, a return type that carries one tensor per output. Every
//     message starts with "kharness: entry '<name>'", so a mismatch is a COMPILE_ERROR
//     whose first line says what to fix;
//   - #includes the entry file;
//   - declares `__tvm_ffi_<name>`, so that an entry exported nowhere fails the link
//     (--no-undefined) before anything runs;
//   - exports kh_entry_v1 and the other entry-ABI symbols, which call the export through
//     the bridge (tvm::ffi::Tensor arguments over the harness's memory, the harness's
//     stream as tvm-ffi's environment stream, returned tensors copied out).
// The checks rely on tvm-ffi's TVM_FFI_DLL_EXPORT_TYPED_FUNC_IMPL_; with a tvm-ffi
// without it, the solution still builds and runs, and a wrong signature is an error of
// the call instead.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compile/entry_shim.h"
#include "compile/kernel_signature.h"

namespace kh {

// Bumped whenever the generated code changes, so cached builds are redone.
inline constexpr int kTvmFfiShimFormat = 1;

// `destination_passing` false: the entry takes only the inputs and returns the outputs.
// Throws kh::Error if the signature is invalid or the path cannot be #included.
[[nodiscard]] EntryShim generate_tvm_ffi_shim(const KernelSignature& sig, std::string_view entry_include,
                                              std::string_view extension, bool destination_passing);

// A link error that means the entry is not exported, and the one line that says so.
[[nodiscard]] std::pair<std::string, std::string> tvm_ffi_missing_export_hint(const KernelSignature& sig);

}  // namespace kh
