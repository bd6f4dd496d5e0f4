#include "compile/entry_shim.h"

#include <gtest/gtest.h>

#include "error/error.h"

namespace kh {
namespace {
using R = KernelParam::Role;

KernelSignature rmsnorm() {
  return {"rmsnorm",
          {{"hidden_states", R::input, DType::bfloat16},
           {"weight", R::input, DType::bfloat16},
           {"output", R::output, DType::bfloat16}}};
}

TEST(EntryShim, IncludesTheEntryFileAndNamesEveryArgument) {
  const EntryShim shim = generate_entry_shim(rmsnorm(), "src/kernel.cu", ".cu");
  EXPECT_EQ(shim.file_name, "kh_entry_shim.cu");
  EXPECT_NE(shim.content.find("#include \"src/kernel.cu\""), std::string::npos);
  EXPECT_NE(
      shim.content.find("kharness: entry 'rmsnorm' argument 2 ('weight', input bfloat16 tensor) must be "
                        "'const DLTensor*'"),
      std::string::npos);
  EXPECT_NE(
      shim.content.find("kharness: entry 'rmsnorm' argument 3 ('output', output bfloat16 tensor) must be "
                        "'DLTensor*'"),
      std::string::npos);
  EXPECT_NE(shim.content.find("kharness: entry 'rmsnorm' takes 3 arguments; the definition needs 4: "
                              "hidden_states, weight, output, stream"),
            std::string::npos);
  EXPECT_EQ(shim.content.find("takes 4 arguments"), std::string::npos)
      << "the right arity must not be an error";
  EXPECT_NE(shim.content.find("kh_entry_v1"), std::string::npos);
  EXPECT_NE(shim.content.find("kh_signature"), std::string::npos);
}

TEST(EntryShim, CppShimExtension) {
  EXPECT_EQ(generate_entry_shim(rmsnorm(), "src/k.cpp", ".cpp").file_name, "kh_entry_shim.cpp");
}

TEST(EntryShim, RejectsUnincludablePaths) {
  EXPECT_THROW((void)generate_entry_shim(rmsnorm(), "src/a\"b.cu", ".cu"), Error);
  EXPECT_THROW((void)generate_entry_shim(rmsnorm(), "src/a\nb.cu", ".cu"), Error);
  EXPECT_THROW((void)generate_entry_shim(rmsnorm(), "", ".cu"), Error);
}

TEST(EntryShim, EscapesNamesInLiterals) {
  EXPECT_EQ(c_string_literal("a\"b\\c"), "a\\\"b\\\\c");
  EXPECT_EQ(c_string_literal("x\n1"), "x\\0121");
  EXPECT_EQ(c_string_literal("?\?="), "\\077\\077=");
  KernelSignature sig = rmsnorm();
  sig.params[1].name = "we\"ight";
  const EntryShim shim = generate_entry_shim(sig, "src/k.cpp", ".cpp");
  EXPECT_NE(shim.content.find("we\\\"ight"), std::string::npos);
}

}  // namespace
}  // namespace kh
