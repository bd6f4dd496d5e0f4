// CPU baseline for gemm_n4096_k4096: C = A @ B^T, blocked for the caches and registers.
//
// A is converted to float once. B is converted one panel of BLOCK_N rows at a time (a
// panel stays in L2 while every row of A passes over it), and each row of A meets
// ROWS_OF_B rows of the panel at once: one load of A feeds ROWS_OF_B dot products, each
// kept as four SIMD-friendly partial sums.
//
// kh:param BLOCK_N in {16,64,256}  rows of B per panel (BLOCK_N * K floats kept hot)
// kh:param ROWS_OF_B in {2,4,8}    dot products computed together (register tile)
#include <kharness/host_float.h>
#include <kharness/kernel.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#ifndef BLOCK_N
#define BLOCK_N 64
#endif
#ifndef ROWS_OF_B
#define ROWS_OF_B 8
#endif

namespace {

constexpr int kLanes = 4;  // partial sums per dot product

void convert_rows(const uint16_t* src, int64_t rows, int64_t k_len, float* dst) {
  for (int64_t i = 0; i < rows * k_len; ++i) dst[i] = kh_f16_to_float(src[i]);
}

// out[j] = dot(a, b + j * k_len) for j < ROWS.
template <int ROWS>
void dot_rows(const float* a, const float* b, int64_t k_len, float* out) {
  float acc[ROWS][kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= k_len; i += kLanes) {
    for (int j = 0; j < ROWS; ++j) {
      for (int l = 0; l < kLanes; ++l) acc[j][l] += a[i + l] * b[j * k_len + i + l];
    }
  }
  for (; i < k_len; ++i) {
    for (int j = 0; j < ROWS; ++j) acc[j][0] += a[i] * b[j * k_len + i];
  }
  for (int j = 0; j < ROWS; ++j) {
    float sum = 0;
    for (int l = 0; l < kLanes; ++l) sum += acc[j][l];
    out[j] = sum;
  }
}

// One row of C against a converted panel: c_row[n] for n < n_count.
void multiply_row(const float* a_row, const float* panel, int64_t n_count, int64_t k_len, uint16_t* c_row) {
  float out[ROWS_OF_B];
  int64_t n = 0;
  for (; n + ROWS_OF_B <= n_count; n += ROWS_OF_B) {
    dot_rows<ROWS_OF_B>(a_row, panel + n * k_len, k_len, out);
    for (int j = 0; j < ROWS_OF_B; ++j) c_row[n + j] = kh_float_to_f16(out[j]);
  }
  for (; n < n_count; ++n) {
    dot_rows<1>(a_row, panel + n * k_len, k_len, out);
    c_row[n] = kh_float_to_f16(out[0]);
  }
}

}  // namespace

void gemm_n4096_k4096_baseline(const DLTensor* A, const DLTensor* B, DLTensor* C, kh_stream_t /*stream*/) {
  const int64_t m_rows = A->shape[0];
  const int64_t k_len = A->shape[1];
  const int64_t n_rows = B->shape[0];
  auto* c = static_cast<uint16_t*>(C->data);
  std::vector<float> a(static_cast<size_t>(m_rows * k_len));
  convert_rows(static_cast<const uint16_t*>(A->data), m_rows, k_len, a.data());
  std::vector<float> panel(static_cast<size_t>(BLOCK_N * k_len));
  for (int64_t n0 = 0; n0 < n_rows; n0 += BLOCK_N) {
    const int64_t n_count = std::min<int64_t>(BLOCK_N, n_rows - n0);
    convert_rows(static_cast<const uint16_t*>(B->data) + n0 * k_len, n_count, k_len, panel.data());
    for (int64_t m = 0; m < m_rows; ++m) {
      multiply_row(&a[m * k_len], panel.data(), n_count, k_len, c + m * n_rows + n0);
    }
  }
}
