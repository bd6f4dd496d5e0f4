// CUDA reference for gemm_n4096_k4096: C = A @ B^T, float16 in, float32 accumulation,
// float16 out. The classic shared-memory tiled GEMM on the CUDA cores: each block stages
// a TILE x TILE slice of A's rows and of B's rows, each thread owns one C element.
// Correctness first; at M = 8192 (275 GFLOP) it still takes tens of milliseconds.
#include <cuda_fp16.h>
#include <kharness/kernel.h>

namespace {

constexpr int kTile = 16;

__global__ void gemm_reference_kernel(const __half* a, const __half* b, __half* c, int64_t m_rows,
                                      int64_t n_rows, int64_t k_len) {
  // +1 column: threads of a warp read b_tile[tx][k] down a column; the padding puts
  // those reads in different banks.
  __shared__ float a_tile[kTile][kTile + 1];
  __shared__ float b_tile[kTile][kTile + 1];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  // M runs along grid.x (no 65535 limit), N along grid.y (N / 16 = 256 blocks).
  const int64_t m0 = static_cast<int64_t>(blockIdx.x) * kTile;
  const int64_t n0 = static_cast<int64_t>(blockIdx.y) * kTile;
  const int64_t m = m0 + ty;
  const int64_t n = n0 + tx;
  float sum = 0.f;
  for (int64_t k0 = 0; k0 < k_len; k0 += kTile) {
    // Thread (ty, tx) loads column k0 + tx of row m0 + ty of A and of row n0 + ty of B:
    // consecutive threads read consecutive k, so the loads coalesce.
    const int64_t k = k0 + tx;
    const bool k_ok = k < k_len;
    a_tile[ty][tx] = (m0 + ty < m_rows && k_ok) ? __half2float(a[(m0 + ty) * k_len + k]) : 0.f;
    b_tile[ty][tx] = (n0 + ty < n_rows && k_ok) ? __half2float(b[(n0 + ty) * k_len + k]) : 0.f;
    __syncthreads();
    for (int kk = 0; kk < kTile; ++kk) sum += a_tile[ty][kk] * b_tile[tx][kk];
    __syncthreads();
  }
  if (m < m_rows && n < n_rows) c[m * n_rows + n] = __float2half_rn(sum);
}

}  // namespace

void gemm_n4096_k4096_reference(const DLTensor* A, const DLTensor* B, DLTensor* C, kh_stream_t stream) {
  const int64_t m_rows = A->shape[0];
  const int64_t k_len = A->shape[1];
  const int64_t n_rows = B->shape[0];
  if (m_rows == 0) return;
  const dim3 block(kTile, kTile);
  const dim3 grid(static_cast<unsigned>((m_rows + kTile - 1) / kTile),
                  static_cast<unsigned>((n_rows + kTile - 1) / kTile));
  gemm_reference_kernel<<<grid, block, 0, stream>>>(static_cast<const __half*>(A->data),
                                                    static_cast<const __half*>(B->data),
                                                    static_cast<__half*>(C->data), m_rows, n_rows, k_len);
}
