#include "compile/detail/compile_log.h"

#include <gtest/gtest.h>

namespace kh::detail {
namespace {

TEST(CompileLog, GxxStaticAssertMessage) {
  const std::string log =
      "In file included from kh_entry_shim.cpp:4:\n"
      "kh_entry_shim.cpp:60:28: error: static assertion failed: kharness: entry 'f' argument 2 ('w', input "
      "float32 tensor) must be 'const DLTensor*'\n"
      "   60 | static_assert(!arity_ok || arg_ok_1,\n"
      "      |                            ^~~~~~~~\n";
  EXPECT_EQ(first_error_line(log),
            "kharness: entry 'f' argument 2 ('w', input float32 tensor) must be 'const DLTensor*'");
}

TEST(CompileLog, NvccStaticAssertMessage) {
  const std::string log =
      "kh_entry_shim.cu(61): error: static assertion failed with \"kharness: entry 'f' takes 2 arguments; "
      "the "
      "definition needs 3: a, b, stream\"\n  static_assert(...)\n";
  EXPECT_EQ(first_error_line(log),
            "kharness: entry 'f' takes 2 arguments; the definition needs 3: a, b, stream");
}

TEST(CompileLog, SourceEchoIsNotTakenForTheMessage) {
  // The echoed source line holds the message too, but it is not a diagnostic.
  const std::string log =
      "  static_assert(x, \"kharness: entry 'f' must return void or int\");\n"
      "src/k.cpp:3:1: error: expected ';' before '}' token\n";
  EXPECT_EQ(first_error_line(log), "src/k.cpp:3:1: error: expected ';' before '}' token");
}

TEST(CompileLog, FallsBackToTheLastLine) {
  EXPECT_EQ(first_error_line("compiling\nsomething odd happened  \n\n"), "something odd happened");
  EXPECT_EQ(first_error_line(""), "");
}

}  // namespace
}  // namespace kh::detail
