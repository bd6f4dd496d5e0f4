// Calls built candidates through kh_entry_v1, as the worker will.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "build_fixtures.h"
#include "loaded_library.h"

namespace kh {
namespace {
using test::LoadedLibrary;
using test::scale_add_request;

// A float32 vector as a compact CPU DLTensor.
struct Vec {
  explicit Vec(std::vector<float> v) : values(std::move(v)), shape{static_cast<int64_t>(values.size())} {
    tensor.data = values.data();
    tensor.device = {kDLCPU, 0};
    tensor.ndim = 1;
    tensor.dtype = {kDLFloat, 32, 1};
    tensor.shape = shape.data();
    tensor.strides = nullptr;
    tensor.byte_offset = 0;
  }
  Vec(const Vec&) = delete;  // the tensor points into this object
  Vec& operator=(const Vec&) = delete;
  std::vector<float> values;
  std::array<int64_t, 1> shape;
  DLTensor tensor{};
};

kh_arg tensor_arg(int index, Vec& v) {
  kh_arg a{};
  a.kind = KH_ARG_TENSOR;
  a.index = index;
  a.value.tensor = &v.tensor;
  return a;
}

kh_arg float_arg(int index, double f) {
  kh_arg a{};
  a.kind = KH_ARG_FLOAT64;
  a.index = index;
  a.value.f64 = f;
  return a;
}

std::filesystem::path built(const test::ScratchCache& scratch, const BuildRequest& request) {
  const BuildResult r = scratch.cache().build(request);
  if (r.status != BuildResult::Status::ok) ADD_FAILURE() << r.message << "\n" << r.log;
  return r.library;
}

TEST(EntryCall, CallsTheKernelWithRealTensors) {
  test::ScratchCache scratch;
  const BuildRequest request = scale_add_request();
  LoadedLibrary lib(built(scratch, request));
  EXPECT_EQ(lib.abi_version(), KH_ABI_VERSION);
  EXPECT_EQ(lib.signature(), signature_text(request.signature));

  Vec x({1, 2, 3, 4}), y({10, 20, 30, 40}), out({-1, -1, -1, -1});
  const std::array<kh_arg, 4> args{tensor_arg(0, x), tensor_arg(1, y), float_arg(2, 0.5), tensor_arg(3, out)};
  ASSERT_EQ(lib.entry()(args.data(), 4, nullptr), 0) << lib.last_error();
  EXPECT_EQ(out.values, (std::vector<float>{6, 12, 18, 24}));
  EXPECT_EQ(lib.last_error(), "");
}

TEST(EntryCall, RejectsMalformedArguments) {
  test::ScratchCache scratch;
  LoadedLibrary lib(built(scratch, scale_add_request()));
  Vec x({1}), y({2}), out({0});
  std::array<kh_arg, 4> args{tensor_arg(0, x), tensor_arg(1, y), float_arg(2, 1.0), tensor_arg(3, out)};
  EXPECT_EQ(lib.entry()(args.data(), 3, nullptr), KH_ENTRY_BAD_ARGS);
  EXPECT_NE(lib.last_error().find("takes 4 arguments"), std::string::npos) << lib.last_error();

  args[2] = tensor_arg(2, y);  // a tensor where the scalar alpha belongs
  EXPECT_EQ(lib.entry()(args.data(), 4, nullptr), KH_ENTRY_BAD_ARGS);
  EXPECT_NE(lib.last_error().find("'alpha'"), std::string::npos) << lib.last_error();

  args[2] = float_arg(2, 1.0);
  args[3].value.tensor = nullptr;
  EXPECT_EQ(lib.entry()(args.data(), 4, nullptr), KH_ENTRY_BAD_ARGS);
  EXPECT_NE(lib.last_error().find("null tensor"), std::string::npos) << lib.last_error();
  EXPECT_EQ(out.values[0], 0.0f) << "the kernel must not run on bad arguments";
}

TEST(EntryCall, ExceptionBecomesAnErrorCodeAndMessage) {
  test::ScratchCache scratch;
  LoadedLibrary lib(built(scratch, scale_add_request(R"(#include <kharness/kernel.h>
#include <stdexcept>
void scale_add(const DLTensor*, const DLTensor*, float alpha, DLTensor*, kh_stream_t) {
  if (alpha < 0) throw std::runtime_error("negative alpha is not supported");
}
)")));
  Vec x({1}), y({2}), out({0});
  std::array<kh_arg, 4> args{tensor_arg(0, x), tensor_arg(1, y), float_arg(2, -1.0), tensor_arg(3, out)};
  EXPECT_EQ(lib.entry()(args.data(), 4, nullptr), KH_ENTRY_EXCEPTION);
  EXPECT_EQ(lib.last_error(), "'scale_add' threw: negative alpha is not supported");
  args[2] = float_arg(2, 1.0);
  EXPECT_EQ(lib.entry()(args.data(), 4, nullptr), 0);
  EXPECT_EQ(lib.last_error(), "") << "a successful call clears the last error";
}

TEST(EntryCall, IntResultIsReturned) {
  test::ScratchCache scratch;
  LoadedLibrary lib(built(scratch, scale_add_request(R"(#include <kharness/kernel.h>
int scale_add(const DLTensor*, const DLTensor*, float alpha, DLTensor*, void*) { return static_cast<int>(alpha); }
)")));
  Vec x({1}), y({2}), out({0});
  const std::array<kh_arg, 4> args{tensor_arg(0, x), tensor_arg(1, y), float_arg(2, 7.0), tensor_arg(3, out)};
  EXPECT_EQ(lib.entry()(args.data(), 4, nullptr), 7);
}

}  // namespace
}  // namespace kh

#include "doc_examples.h"

namespace kh {
namespace {

std::uint16_t to_bf16(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return static_cast<std::uint16_t>(bits >> 16);  // exact for the values used below
}

float from_bf16(std::uint16_t b) {
  const std::uint32_t bits = std::uint32_t{b} << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

TEST(EntryCall, DocumentedCppRmsnormBuildsAndComputes) {
  const std::string code = test::doc_code_block("### C++", "```cpp");
  ASSERT_FALSE(code.empty()) << "docs/kernel-abi.md lost its C++ example";
  BuildRequest r;
  r.language = "cpp";
  r.sources = {{"rmsnorm.cpp", code}};
  r.entry_file = "rmsnorm.cpp";
  r.entry_function = "rmsnorm";
  r.signature = test::doc_rmsnorm_signature();
  r.include_dir = test::test_include_dir();
  test::ScratchCache scratch;
  LoadedLibrary lib(built(scratch, r));

  // One row [3, 4] with weight [1, 2]: rms = sqrt(12.5), out = [3, 8] / rms.
  std::array<std::uint16_t, 2> x{to_bf16(3), to_bf16(4)}, w{to_bf16(1), to_bf16(2)}, y{};
  std::array<int64_t, 2> shape2{1, 2};
  std::array<int64_t, 1> shape1{2};
  auto tensor = [](void* data, int64_t* shape, int ndim) {
    DLTensor t{};
    t.data = data;
    t.device = {kDLCPU, 0};
    t.ndim = ndim;
    t.dtype = {KH_DL_BFLOAT, 16, 1};
    t.shape = shape;
    return t;
  };
  DLTensor tx = tensor(x.data(), shape2.data(), 2), tw = tensor(w.data(), shape1.data(), 1),
           ty = tensor(y.data(), shape2.data(), 2);
  std::array<kh_arg, 3> args{};
  for (int i = 0; i < 3; ++i) {
    args[i].kind = KH_ARG_TENSOR;
    args[i].index = i;
  }
  args[0].value.tensor = &tx;
  args[1].value.tensor = &tw;
  args[2].value.tensor = &ty;
  ASSERT_EQ(lib.entry()(args.data(), 3, nullptr), 0) << lib.last_error();
  EXPECT_NEAR(from_bf16(y[0]), 3 / std::sqrt(12.5f), 0.01);
  EXPECT_NEAR(from_bf16(y[1]), 8 / std::sqrt(12.5f), 0.02);
}

}  // namespace
}  // namespace kh
