// CUDA solutions through nvcc. Compiles and dlopen()s only: no GPU is needed, and
// the tests skip where the CUDA toolkit is absent.
#include <gtest/gtest.h>

#include "build_fixtures.h"
#include "compile/toolchain.h"
#include "loaded_library.h"

namespace kh {
namespace {
using R = KernelParam::Role;

// A host entry file (.cpp) launching a kernel defined in a separately compiled .cu.
const char* const kEntry = R"(#include <kharness/kernel.h>
#include "rmsnorm_kernel.cuh"

void rmsnorm(const DLTensor* hidden_states, const DLTensor* weight, float eps, DLTensor* output,
             kh_stream_t stream) {
  const int rows = static_cast<int>(hidden_states->shape[0]);
  const int cols = static_cast<int>(hidden_states->shape[1]);
  launch_rmsnorm(static_cast<const float*>(hidden_states->data), static_cast<const float*>(weight->data), eps,
                 static_cast<float*>(output->data), rows, cols, stream);
}
)";
const char* const kHeader = R"(#pragma once
#include <cuda_runtime.h>
void launch_rmsnorm(const float* x, const float* w, float eps, float* y, int rows, int cols, cudaStream_t s);
)";
const char* const kKernel = R"(#include "rmsnorm_kernel.cuh"
__global__ void rmsnorm_kernel(const float* x, const float* w, float eps, float* y, int cols) {
  const float* row = x + blockIdx.x * cols;
  float ss = 0;
  for (int i = 0; i < cols; ++i) ss += row[i] * row[i];
  const float r = rsqrtf(ss / cols + eps);
  for (int i = threadIdx.x; i < cols; i += blockDim.x) y[blockIdx.x * cols + i] = row[i] * r * w[i];
}
void launch_rmsnorm(const float* x, const float* w, float eps, float* y, int rows, int cols, cudaStream_t s) {
  rmsnorm_kernel<<<rows, 128, 0, s>>>(x, w, eps, y, cols);
}
)";

BuildRequest cuda_request(std::string entry_file, std::string entry) {
  BuildRequest r;
  r.language = "cuda";
  r.arch = "sm_90a";
  r.sources = {
      {entry_file, std::move(entry)}, {"rmsnorm_kernel.cuh", kHeader}, {"rmsnorm_kernel.cu", kKernel}};
  r.entry_file = entry_file;
  r.entry_function = "rmsnorm";
  r.signature = {"rmsnorm",
                 {{"hidden_states", R::input, DType::float32},
                  {"weight", R::input, DType::float32},
                  {"eps", R::scalar, DType::float32},
                  {"output", R::output, DType::float32}}};
  r.include_dir = test::test_include_dir();
  r.timeout = std::chrono::seconds(240);
  return r;
}

class NvccBuild : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!toolchain("nvcc").available())
      GTEST_SKIP() << "nvcc not found (set KHARNESS_NVCC or PATH); CUDA builds not tested";
  }
};

TEST_F(NvccBuild, BuildsAndLoadsACudaSolution) {
  test::ScratchCache scratch;
  const BuildRequest request = cuda_request("main.cpp", kEntry);
  const BuildResult r = scratch.cache().build(request);
  ASSERT_EQ(r.status, BuildResult::Status::ok) << r.message << "\n" << r.log;
  EXPECT_NE(r.log.find("-gencode=arch=compute_90a,code=sm_90a"), std::string::npos);
  ASSERT_TRUE(std::filesystem::is_regular_file(r.library));
  test::LoadedLibrary lib(r.library);  // static cudart: loads without a GPU or libcudart
  EXPECT_NE(lib.entry(), nullptr);
  EXPECT_EQ(lib.abi_version(), KH_ABI_VERSION);
  EXPECT_EQ(lib.signature(), signature_text(request.signature));
}

TEST_F(NvccBuild, SignatureMismatchIsNamedByNvcc) {
  test::ScratchCache scratch;
  const BuildResult r = scratch.cache().build(cuda_request("rmsnorm.cu", R"(#include <kharness/kernel.h>
void rmsnorm(const DLTensor*, DLTensor*, float, DLTensor*, cudaStream_t) {}
)"));
  EXPECT_EQ(r.status, BuildResult::Status::compile_error);
  EXPECT_EQ(r.message,
            "kharness: entry 'rmsnorm' argument 2 ('weight', input float32 tensor) must be 'const DLTensor*'")
      << r.log;
}

}  // namespace
}  // namespace kh

#include "doc_examples.h"

namespace kh {
namespace {

TEST_F(NvccBuild, DocumentedCudaRmsnormBuilds) {
  const std::string code = test::doc_code_block("### CUDA", "```cuda");
  ASSERT_FALSE(code.empty()) << "docs/kernel-abi.md lost its CUDA example";
  BuildRequest r;
  r.language = "cuda";
  r.arch = arch_for_compute_capability(90);
  r.sources = {{"rmsnorm.cu", code}};
  r.entry_file = "rmsnorm.cu";
  r.entry_function = "rmsnorm";
  r.signature = test::doc_rmsnorm_signature();
  r.include_dir = test::test_include_dir();
  test::ScratchCache scratch;
  const BuildResult result = scratch.cache().build(r);
  EXPECT_EQ(result.status, BuildResult::Status::ok) << result.message << "\n" << result.log;
}

}  // namespace
}  // namespace kh
