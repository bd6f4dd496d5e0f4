// CUDA baseline for gemm_n4096_k4096: tensor cores through WMMA (16x16x16 float16
// fragments, float32 accumulators) and shared-memory tiling.
//
// Each block computes a BLOCK_M x BLOCK_N tile of C. Per step of BLOCK_K it copies the
// matching slices of A's rows and B's rows into shared memory with 16-byte loads, then
// every warp multiplies its own (BLOCK_M / 2) x (BLOCK_N / (WARPS / 2)) sub-tile out of
// shared memory. B is [N, K] row-major, which is exactly a column-major K x N operand, so
// both tiles are stored k-contiguous and B's fragments are loaded as col_major.
// Rows of A past M are clamped to row M - 1: they are read (valid memory) and computed,
// but never stored, so partial tiles need no special path.
//
// kh:param BLOCK_M in {32,64,128}  rows of C per block
// kh:param BLOCK_N in {64,128}     columns of C per block
// kh:param BLOCK_K in {32,64}      depth of one shared-memory step
// kh:param WARPS in {4,8}          warps per block, laid out 2 (along M) x WARPS/2 (along N)
#include <cuda_fp16.h>
#include <kharness/kernel.h>
#include <mma.h>

#ifndef BLOCK_M
#define BLOCK_M 64
#endif
#ifndef BLOCK_N
#define BLOCK_N 128
#endif
#ifndef BLOCK_K
#define BLOCK_K 32
#endif
#ifndef WARPS
#define WARPS 4
#endif

namespace {

using namespace nvcuda;

constexpr int kN = 4096;  // both fixed by the definition
constexpr int kK = 4096;
constexpr int kFrag = 16;  // WMMA fragment edge
constexpr int kThreads = WARPS * 32;
constexpr int kWarpsM = 2;
constexpr int kWarpsN = WARPS / kWarpsM;
constexpr int kWarpM = BLOCK_M / kWarpsM;  // rows of C per warp
constexpr int kWarpN = BLOCK_N / kWarpsN;  // columns of C per warp
constexpr int kFragsM = kWarpM / kFrag;
constexpr int kFragsN = kWarpN / kFrag;
// 8 halves (16 bytes) of padding per shared row: rows no longer start in the same bank,
// and the leading dimension stays a multiple of 8 as WMMA requires.
constexpr int kLd = BLOCK_K + 8;
constexpr int kVec = 8;  // halves per 16-byte load

static_assert(kN % BLOCK_N == 0 && kK % BLOCK_K == 0, "tiles must divide N and K");
static_assert(kWarpM % kFrag == 0 && kWarpN % kFrag == 0, "each warp needs whole 16x16 fragments");
static_assert(BLOCK_K % kFrag == 0, "BLOCK_K must be a multiple of the fragment depth");

// Copies rows [row0, row0 + ROWS) x columns [k0, k0 + BLOCK_K) of a [*, kK] matrix into
// tile[ROWS][kLd], reading row min(r, last_row) for row r.
template <int ROWS>
__device__ void load_tile(__half (*tile)[kLd], const __half* __restrict__ src, int64_t row0, int64_t last_row,
                          int k0) {
  constexpr int kChunksPerRow = BLOCK_K / kVec;
  for (int chunk = threadIdx.x; chunk < ROWS * kChunksPerRow; chunk += kThreads) {
    const int r = chunk / kChunksPerRow;
    const int col = (chunk % kChunksPerRow) * kVec;
    const int64_t row = min(row0 + r, last_row);
    *reinterpret_cast<uint4*>(&tile[r][col]) = *reinterpret_cast<const uint4*>(src + row * kK + k0 + col);
  }
}

using FragA = wmma::fragment<wmma::matrix_a, kFrag, kFrag, kFrag, __half, wmma::row_major>;
using FragB = wmma::fragment<wmma::matrix_b, kFrag, kFrag, kFrag, __half, wmma::col_major>;
using FragC = wmma::fragment<wmma::accumulator, kFrag, kFrag, kFrag, float>;

// Two floats rounded to float16 and packed into 32 bits, first in the low half.
__device__ unsigned pack_half2(float lo, float hi) {
  const __half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<const unsigned*>(&h);
}

// Writes one 16x16 float accumulator as float16 through the warp's staging buffer; each
// lane stores 8 consecutive columns of one row (16 bytes), rows at or past M skipped.
__device__ void store_fragment(const FragC& acc, float* staging, __half* __restrict__ c, int64_t row0,
                               int64_t col0, int64_t m_rows) {
  wmma::store_matrix_sync(staging, acc, kFrag, wmma::mem_row_major);
  __syncwarp();
  const int lane = threadIdx.x % 32;
  const int r = lane / 2;
  const int col = (lane % 2) * kVec;
  if (row0 + r < m_rows) {
    const float4 lo = *reinterpret_cast<const float4*>(&staging[r * kFrag + col]);
    const float4 hi = *reinterpret_cast<const float4*>(&staging[r * kFrag + col + 4]);
    const uint4 out{pack_half2(lo.x, lo.y), pack_half2(lo.z, lo.w), pack_half2(hi.x, hi.y),
                    pack_half2(hi.z, hi.w)};
    __stcs(reinterpret_cast<uint4*>(c + (row0 + r) * kN + col0 + col), out);  // streaming: C is written once
  }
  __syncwarp();  // the next fragment reuses the staging buffer
}

__global__ void __launch_bounds__(kThreads)
    gemm_baseline_kernel(const __half* __restrict__ a, const __half* __restrict__ b, __half* __restrict__ c,
                         int64_t m_rows) {
  // WMMA loads and stores need 32-byte aligned pointers: fragment rows start at multiples
  // of 16 rows (16 * kLd halves, a multiple of 32 bytes), so aligning the bases suffices.
  __shared__ alignas(32) __half a_tile[BLOCK_M][kLd];
  __shared__ alignas(32) __half b_tile[BLOCK_N][kLd];
  __shared__ alignas(32) float staging[WARPS][kFrag * kFrag];

  const int64_t m0 = static_cast<int64_t>(blockIdx.x) * BLOCK_M;  // grid.x: M (no 65535 limit)
  const int64_t n0 = static_cast<int64_t>(blockIdx.y) * BLOCK_N;
  const int warp = threadIdx.x / 32;
  const int warp_m = (warp / kWarpsN) * kWarpM;  // this warp's sub-tile inside the block tile
  const int warp_n = (warp % kWarpsN) * kWarpN;

  FragC acc[kFragsM][kFragsN];
  for (int i = 0; i < kFragsM; ++i)
    for (int j = 0; j < kFragsN; ++j) wmma::fill_fragment(acc[i][j], 0.f);

  for (int k0 = 0; k0 < kK; k0 += BLOCK_K) {
    load_tile<BLOCK_M>(a_tile, a, m0, m_rows - 1, k0);
    load_tile<BLOCK_N>(b_tile, b, n0, kN - 1, k0);
    __syncthreads();
    for (int kk = 0; kk < BLOCK_K; kk += kFrag) {
      FragB b_frag[kFragsN];
      for (int j = 0; j < kFragsN; ++j)
        wmma::load_matrix_sync(b_frag[j], &b_tile[warp_n + j * kFrag][kk], kLd);
      for (int i = 0; i < kFragsM; ++i) {
        FragA a_frag;
        wmma::load_matrix_sync(a_frag, &a_tile[warp_m + i * kFrag][kk], kLd);
        for (int j = 0; j < kFragsN; ++j) wmma::mma_sync(acc[i][j], a_frag, b_frag[j], acc[i][j]);
      }
    }
    __syncthreads();  // the next step overwrites the tiles
  }

  for (int i = 0; i < kFragsM; ++i) {
    for (int j = 0; j < kFragsN; ++j) {
      store_fragment(acc[i][j], staging[warp], c, m0 + warp_m + i * kFrag, n0 + warp_n + j * kFrag, m_rows);
    }
  }
}

}  // namespace

void gemm_n4096_k4096_baseline(const DLTensor* A, const DLTensor* B, DLTensor* C, kh_stream_t stream) {
  const int64_t m_rows = A->shape[0];
  if (m_rows == 0) return;
  const dim3 grid(static_cast<unsigned>((m_rows + BLOCK_M - 1) / BLOCK_M), kN / BLOCK_N);
  gemm_baseline_kernel<<<grid, kThreads, 0, stream>>>(static_cast<const __half*>(A->data),
                                                      static_cast<const __half*>(B->data),
                                                      static_cast<__half*>(C->data), m_rows);
}
