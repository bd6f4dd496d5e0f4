// Tensor-core throughput through the vendor libraries: what a tuned GEMM reaches on
// this device, hence the ceiling a candidate's matrix math is judged against.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <fmt/format.h>

#include <memory>

#include "base/cuda_call.h"
#include "device/cuda_event_median.h"
#include "device/cuda_peaks.h"

namespace kh::detail {

namespace {

constexpr int kDim = 8192;
constexpr double kFlops = 2.0 * kDim * kDim * static_cast<double>(kDim);

struct DeviceBuffer {
  explicit DeviceBuffer(std::size_t bytes) { KH_CUDA_CALL(cudaMalloc(&ptr, bytes)); }
  ~DeviceBuffer() { KH_CUDA_CALL_NOEXCEPT(cudaFree(ptr)); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* ptr = nullptr;
};

// Operands A, B (kDim x kDim of `element` bytes) with hashed contents, and C in bf16.
struct GemmOperands {
  GemmOperands(std::size_t element, cudaStream_t stream)
      : a(element * kDim * kDim), b(element * kDim * kDim), c(2ull * kDim * kDim) {
    fill_gemm_operand(a.ptr, element * kDim * kDim, stream);
    fill_gemm_operand(b.ptr, element * kDim * kDim, stream);
  }
  DeviceBuffer a, b, c;
};

}  // namespace

double cublas_bf16_rate(cudaStream_t stream, std::string& why) {
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
    why = "cublasCreate failed";
    return 0;
  }
  std::unique_ptr<cublasContext, decltype(&cublasDestroy)> owner(handle, cublasDestroy);
  cublasSetStream(handle, stream);
  GemmOperands m(2, stream);
  const float alpha = 1.0f;
  const float beta = 0.0f;
  cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
  const double s = median_event_seconds(stream, 5, [&] {
    status = cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, kDim, kDim, kDim, &alpha, m.a.ptr, CUDA_R_16BF,
                          kDim, m.b.ptr, CUDA_R_16BF, kDim, &beta, m.c.ptr, CUDA_R_16BF, kDim,
                          CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  });
  if (status != CUBLAS_STATUS_SUCCESS) {
    why = fmt::format("cublasGemmEx: status {}", static_cast<int>(status));
    return 0;
  }
  return kFlops / s;
}

double cublaslt_fp8_rate(cudaStream_t stream, std::string& why) {
  cublasLtHandle_t handle = nullptr;
  if (cublasLtCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
    why = "cublasLtCreate failed";
    return 0;
  }
  std::unique_ptr<cublasLtContext, decltype(&cublasLtDestroy)> owner(handle, cublasLtDestroy);
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  std::unique_ptr<cublasLtMatmulDescOpaque_t, decltype(&cublasLtMatmulDescDestroy)> op_owner(
      op, cublasLtMatmulDescDestroy);
  // fp8 GEMMs on Hopper want "TN": A transposed, B not, both K-major.
  const cublasOperation_t transpose = CUBLAS_OP_T;
  const cublasOperation_t keep = CUBLAS_OP_N;
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose);
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &keep, sizeof keep);
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatrixLayoutCreate(&a, CUDA_R_8F_E4M3, kDim, kDim, kDim);
  cublasLtMatrixLayoutCreate(&b, CUDA_R_8F_E4M3, kDim, kDim, kDim);
  cublasLtMatrixLayoutCreate(&c, CUDA_R_16BF, kDim, kDim, kDim);
  auto destroy_layouts = [&] {
    cublasLtMatrixLayoutDestroy(a);
    cublasLtMatrixLayoutDestroy(b);
    cublasLtMatrixLayoutDestroy(c);
  };
  constexpr std::size_t kWorkspace = std::size_t{64} << 20;
  DeviceBuffer workspace(kWorkspace);
  cublasLtMatmulPreference_t preference = nullptr;
  cublasLtMatmulPreferenceCreate(&preference);
  cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &kWorkspace,
                                       sizeof kWorkspace);
  cublasLtMatmulHeuristicResult_t heuristic{};
  int found = 0;
  cublasLtMatmulAlgoGetHeuristic(handle, op, a, b, c, c, preference, 1, &heuristic, &found);
  cublasLtMatmulPreferenceDestroy(preference);
  if (found == 0) {
    destroy_layouts();
    why = "cuBLASLt has no e4m3 algorithm for this device";
    return 0;
  }
  GemmOperands m(1, stream);
  const float alpha = 1.0f;
  const float beta = 0.0f;
  cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
  const double s = median_event_seconds(stream, 5, [&] {
    status = cublasLtMatmul(handle, op, &alpha, m.a.ptr, a, m.b.ptr, b, &beta, m.c.ptr, c, m.c.ptr, c,
                            &heuristic.algo, workspace.ptr, kWorkspace, stream);
  });
  destroy_layouts();
  if (status != CUBLAS_STATUS_SUCCESS) {
    why = fmt::format("cublasLtMatmul: status {}", static_cast<int>(status));
    return 0;
  }
  return kFlops / s;
}

}  // namespace kh::detail
