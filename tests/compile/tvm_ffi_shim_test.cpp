// The generated tvm-ffi shim and adapter as text: what they check and export. Building
// and calling them is tested end to end (tests/eval/tvm_ffi_end_to_end_test.cpp,
// tests/archive/upstream_solution_test.cpp).
#include "compile/tvm_ffi_shim.h"

#include <gtest/gtest.h>

#include "compile/abi_header_text.h"
#include "compile/tvm_ffi_adapter.h"
#include "error/error.h"

namespace kh {
namespace {
using R = KernelParam::Role;

KernelSignature fused() {
  return {"fused_add_rmsnorm",
          {{"hidden_states", R::input, DType::bfloat16},
           {"residual", R::input, DType::bfloat16},
           {"eps", R::scalar, DType::float32},
           {"output", R::output, DType::bfloat16}}};
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(TvmFfiShim, ChecksEveryArgumentOfTheNamedExport) {
  const EntryShim shim = generate_tvm_ffi_shim(fused(), "src/kernel.cu", ".cu", true);
  EXPECT_EQ(shim.file_name, "kh_tvm_ffi_shim.cu");
  EXPECT_TRUE(has(shim.content, "#define KH_TVM_FFI_ENTRY_NAME \"fused_add_rmsnorm\""));
  EXPECT_TRUE(has(shim.content, "#undef TVM_FFI_DLL_EXPORT_TYPED_FUNC"));
  EXPECT_TRUE(has(shim.content, "#include \"src/kernel.cu\""));
  EXPECT_TRUE(
      has(shim.content,
          "kharness: entry 'fused_add_rmsnorm' must take 4 arguments (destination-passing style: inputs, "
          "then outputs): hidden_states, residual, eps, output"));
  EXPECT_TRUE(
      has(shim.content,
          "kharness: entry 'fused_add_rmsnorm' argument 3 ('eps', scalar float32) must be double or float"));
  EXPECT_TRUE(has(shim.content, "arg_ok<F, 3, KH_ARG_TENSOR>()"));
  EXPECT_FALSE(has(shim.content, "returns_ok")) << "a destination-passing entry may return anything";
  // An export named nowhere fails the link, before anything runs.
  EXPECT_TRUE(has(shim.content, "extern \"C\" int __tvm_ffi_fused_add_rmsnorm("));
  EXPECT_TRUE(has(shim.content, "kh_entry_v1"));
  EXPECT_TRUE(has(shim.content, "3, 1, true}"));
}

TEST(TvmFfiShim, ValueReturningTakesTheInputsAndReturnsTheOutputs) {
  const EntryShim shim = generate_tvm_ffi_shim(fused(), "src/k.cpp", ".cpp", false);
  EXPECT_EQ(shim.file_name, "kh_tvm_ffi_shim.cpp");
  EXPECT_TRUE(has(shim.content, "must take 3 arguments (the inputs): hidden_states, residual, eps"));
  EXPECT_TRUE(has(shim.content, "returns_ok<F>(1)"));
  EXPECT_TRUE(has(shim.content, "is value-returning and must return its 1 output tensor(s)"));
  EXPECT_TRUE(has(shim.content, "3, 1, false}"));
}

TEST(TvmFfiShim, RefusesWhatCannotBeExported) {
  KernelSignature qualified = fused();
  qualified.function = "ns::fused";
  EXPECT_THROW((void)generate_tvm_ffi_shim(qualified, "src/k.cu", ".cu", true), Error);
  EXPECT_THROW((void)generate_tvm_ffi_shim(fused(), "src/a\"b.cu", ".cu", true), Error);
}

TEST(TvmFfiShim, MissingExportHintNamesTheMacro) {
  const auto [pattern, message] = tvm_ffi_missing_export_hint(fused());
  EXPECT_EQ(pattern, "undefined reference to `__tvm_ffi_fused_add_rmsnorm'");
  EXPECT_TRUE(has(message, "TVM_FFI_DLL_EXPORT_TYPED_FUNC(fused_add_rmsnorm, <function>)"));
}

TEST(TvmFfiAdapter, ExportsTheKharnessEntryUnderItsName) {
  const TvmFfiAdapter a = generate_tvm_ffi_adapter(fused(), "kernel.cu.inc", "cuda");
  EXPECT_EQ(a.file_name, "kh_tvm_ffi_entry.cu");
  EXPECT_EQ(adapted_entry_path("src/kernel.cu"), "src/kernel.cu.inc");
  EXPECT_TRUE(has(a.content, "#include \"kernel.cu.inc\""));
  EXPECT_TRUE(
      has(a.content,
          "void kh_tvm_ffi_fused_add_rmsnorm(tvm::ffi::TensorView hidden_states, tvm::ffi::TensorView "
          "residual, double eps, tvm::ffi::TensorView output)"));
  EXPECT_TRUE(has(a.content, "static_cast<float>(eps)"));
  EXPECT_TRUE(has(a.content, "TVMFFIEnvGetStream(device.device_type, device.device_id)"));
  EXPECT_TRUE(
      has(a.content, "TVM_FFI_DLL_EXPORT_TYPED_FUNC(fused_add_rmsnorm, kh_tvm_ffi_fused_add_rmsnorm);"));
  EXPECT_EQ(generate_tvm_ffi_adapter(fused(), "k.cpp.inc", "cpp").file_name, "kh_tvm_ffi_entry.cpp");
}

TEST(TvmFfiAdapter, KharnessHeadersTravelWithAConvertedSolution) {
  ASSERT_TRUE(abi_header_text("kharness/kernel.h"));
  EXPECT_TRUE(has(std::string(*abi_header_text("kharness/kernel.h")), "#define KH_ABI_VERSION"));
  ASSERT_TRUE(abi_header_text("kharness/host_float.h"));
  EXPECT_FALSE(abi_header_text("kharness/entry.h")) << "a solution never includes the worker's header";
}

}  // namespace
}  // namespace kh
