// CPU reference for gemm_n4096_k4096: C = A @ B^T, float16 in, float32 accumulation,
// float16 out. B is [N, K], so C[m, n] is the dot product of two contiguous rows: row m
// of A and row n of B.
#include <kharness/host_float.h>
#include <kharness/kernel.h>

#include <cstdint>
#include <vector>

namespace {

std::vector<float> to_float(const DLTensor* t) {
  const auto* h = static_cast<const uint16_t*>(t->data);
  std::vector<float> f(static_cast<size_t>(kh_numel(t)));
  for (size_t i = 0; i < f.size(); ++i) f[i] = kh_f16_to_float(h[i]);
  return f;
}

// Eight interleaved float32 partial sums, added together at the end. The order is fixed,
// so the result is deterministic; the independent sums let the compiler use SIMD, which
// keeps the largest workload (M = 8192: 275 GFLOP) within a worker's time limit.
float dot(const float* a, const float* b, int64_t k) {
  constexpr int kLanes = 8;
  float partial[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= k; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) partial[l] += a[i + l] * b[i + l];
  }
  for (; i < k; ++i) partial[0] += a[i] * b[i];
  float sum = 0;
  for (float p : partial) sum += p;
  return sum;
}

}  // namespace

void gemm_n4096_k4096_reference(const DLTensor* A, const DLTensor* B, DLTensor* C, kh_stream_t /*stream*/) {
  const int64_t m_rows = A->shape[0];
  const int64_t k_len = A->shape[1];
  const int64_t n_rows = B->shape[0];
  const std::vector<float> a = to_float(A);
  const std::vector<float> b = to_float(B);
  auto* c = static_cast<uint16_t*>(C->data);
  for (int64_t m = 0; m < m_rows; ++m) {
    for (int64_t n = 0; n < n_rows; ++n) {
      c[m * n_rows + n] = kh_float_to_f16(dot(&a[m * k_len], &b[n * k_len], k_len));
    }
  }
}
