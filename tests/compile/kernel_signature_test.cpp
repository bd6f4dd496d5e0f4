#include "compile/kernel_signature.h"

#include <gtest/gtest.h>

#include "error/error.h"

namespace kh {
namespace {
using R = KernelParam::Role;

TEST(KernelSignature, CTypesFollowTheAbi) {
  EXPECT_EQ(c_type({"x", R::input, DType::bfloat16}), "const DLTensor*");
  EXPECT_EQ(c_type({"y", R::output, DType::float32}), "DLTensor*");
  EXPECT_EQ(c_type({"eps", R::scalar, DType::float32}), "float");
  EXPECT_EQ(c_type({"eps", R::scalar, DType::bfloat16}), "float");
  EXPECT_EQ(c_type({"n", R::scalar, DType::int64}), "int64_t");
  EXPECT_EQ(c_type({"n", R::scalar, DType::int32}), "int32_t");
  EXPECT_EQ(c_type({"n", R::scalar, DType::int8}), "int8_t");
  EXPECT_EQ(c_type({"flag", R::scalar, DType::boolean}), "bool");
}

TEST(KernelSignature, DescribeAndText) {
  EXPECT_EQ(describe({"w", R::input, DType::bfloat16}), "input bfloat16 tensor");
  EXPECT_EQ(describe({"eps", R::scalar, DType::float32}), "scalar float32");
  const KernelSignature sig{"rmsnorm",
                            {{"hidden_states", R::input, DType::bfloat16},
                             {"eps", R::scalar, DType::float32},
                             {"output", R::output, DType::bfloat16}}};
  EXPECT_EQ(signature_text(sig),
            "rmsnorm(const DLTensor* hidden_states, float eps, DLTensor* output, kh_stream_t stream)");
}

TEST(KernelSignature, ValidateRejectsBadSignatures) {
  EXPECT_NO_THROW(validate({"ns::f", {{"a", R::input, DType::int32}, {"b", R::output, DType::int32}}}));
  EXPECT_THROW(validate({"1f", {}}), Error);
  EXPECT_THROW(validate({"f;g", {}}), Error);
  EXPECT_THROW(validate({"f", {{"a", R::input, DType::int32}, {"a", R::output, DType::int32}}}), Error);
  EXPECT_THROW(validate({"f", {{"", R::input, DType::int32}}}), Error);
  try {
    validate({"f", {{"o", R::output, DType::int32}, {"i", R::input, DType::int32}}});
    FAIL() << "an input after an output was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.where().field, "signature.params[1]");
  }
}

}  // namespace
}  // namespace kh
