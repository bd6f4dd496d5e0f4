// CUDA baseline for rmsnorm_h128: one warp per row, each lane holding 4 elements
// (8-byte loads), the sum of squares reduced with shuffles; several rows per block.
//
// kh:param ROWS_PER_BLOCK in {1,2,4,8}  warps (rows) per block
#include <cuda_bf16.h>
#include <kharness/kernel.h>

#ifndef ROWS_PER_BLOCK
#define ROWS_PER_BLOCK 4
#endif

namespace {

constexpr int kCols = 128;

__global__ void rmsnorm_baseline_kernel(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w,
                                        __nv_bfloat16* __restrict__ y, int64_t rows) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * ROWS_PER_BLOCK + threadIdx.y;
  if (row >= rows) return;
  const int lane = threadIdx.x;
  const uint2 packed = reinterpret_cast<const uint2*>(x + row * kCols)[lane];
  const __nv_bfloat162 a = *reinterpret_cast<const __nv_bfloat162*>(&packed.x);
  const __nv_bfloat162 b = *reinterpret_cast<const __nv_bfloat162*>(&packed.y);
  const float2 fa = __bfloat1622float2(a);
  const float2 fb = __bfloat1622float2(b);
  float sum = fa.x * fa.x + fa.y * fa.y + fb.x * fb.x + fb.y * fb.y;
  for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  const float inv_rms = rsqrtf(sum / kCols + 1e-5f);
  const uint2 wp = reinterpret_cast<const uint2*>(w)[lane];
  const float2 wa = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&wp.x));
  const float2 wb = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&wp.y));
  const __nv_bfloat162 oa = __floats2bfloat162_rn(fa.x * inv_rms * wa.x, fa.y * inv_rms * wa.y);
  const __nv_bfloat162 ob = __floats2bfloat162_rn(fb.x * inv_rms * wb.x, fb.y * inv_rms * wb.y);
  uint2 out;
  out.x = *reinterpret_cast<const unsigned*>(&oa);
  out.y = *reinterpret_cast<const unsigned*>(&ob);
  reinterpret_cast<uint2*>(y + row * kCols)[lane] = out;
}

}  // namespace

void rmsnorm_baseline(const DLTensor* hidden_states, const DLTensor* weight, DLTensor* output,
                      kh_stream_t stream) {
  const int64_t rows = hidden_states->shape[0];
  if (rows == 0) return;
  const dim3 block(32, ROWS_PER_BLOCK);
  const auto grid = static_cast<unsigned>((rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK);
  rmsnorm_baseline_kernel<<<grid, block, 0, stream>>>(static_cast<const __nv_bfloat16*>(hidden_states->data),
                                                      static_cast<const __nv_bfloat16*>(weight->data),
                                                      static_cast<__nv_bfloat16*>(output->data), rows);
}
