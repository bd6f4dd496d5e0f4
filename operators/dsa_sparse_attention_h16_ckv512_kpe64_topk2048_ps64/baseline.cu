// CUDA baseline for dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64 (CUDA cores, no
// tensor cores): split-K over each token's index list, then a combine kernel.
//
// Split kernel, one block per (token, split): the block compacts the valid entries of its
// slice of the list (ordered ballot, so results are deterministic), then walks them TILE
// rows at a time. A tile's [ckv | kpe] rows are copied to shared memory with 16-byte
// cp.async into one of two buffers (the next tile lands while this one is used); they
// are scored against all 16 heads (each warp holds 4 heads' query slice in registers and
// splits the 576 dims over its lanes, ending in a 4-way reduce-scatter), folded into an
// online softmax in base 2, and multiplied into per-thread accumulators of 8 output dims
// x (16 / head groups) heads. So each gathered row is read from DRAM once per token and
// reused by all heads. The block writes its unnormalised partial output with its running
// max and sum; the combine kernel merges the splits, normalises, writes bf16 and lse.
//
// kh:param NTHREADS in {128,256,512}  threads per split block
// kh:param TILE in {32,64}  cache rows staged in shared memory per step
// kh:param BLOCKS_TARGET in {128,256,512}  split blocks aimed for over all tokens
#include "sparse_cuda_core_split.cuh"

namespace {

using namespace dsa_cuda_core;

constexpr int kCombineThreads = kDimV / 4;  // 4 output dims per thread; also the most splits

// One block per (token, head), kCombineThreads threads x 4 dims: merges the splits. The
// split weights are computed once, in parallel (one split per thread), then every thread
// sums its 4 dims over the splits with independent loads in flight.
__global__ void __launch_bounds__(kCombineThreads)
    dsa_combine_kernel(const float* part_o, const float* part_m, const float* part_l, int splits,
                       __nv_bfloat16* output, float* lse) {
  __shared__ float weight[kCombineThreads];
  __shared__ float scratch[kCombineThreads / 32];
  const int64_t th = blockIdx.x;
  const int64_t t = th / kHeads;
  const int h = static_cast<int>(th % kHeads);
  const int s = threadIdx.x;  // this thread's split in the weight pass
  const int64_t my = (t * splits + s) * kHeads + h;
  const float m_s = s < splits ? part_m[my] : -INFINITY;
  const float m = combine_reduce<kCombineThreads>(m_s, scratch, [](float a, float b) { return fmaxf(a, b); });
  const float w = m == -INFINITY ? 0.f : exp2f(m_s - m);  // 0 for empty splits and padding threads
  weight[s] = w;
  const float l = combine_reduce<kCombineThreads>(s < splits ? w * part_l[my] : 0.f, scratch,
                                                  [](float a, float b) { return a + b; });
  float4 o = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 4
  for (int k = 0; k < splits; ++k) {
    const float wk = weight[k];
    const float4 po =
        reinterpret_cast<const float4*>(part_o + ((t * splits + k) * kHeads + h) * kDimV)[threadIdx.x];
    o.x += wk * po.x;
    o.y += wk * po.y;
    o.z += wk * po.z;
    o.w += wk * po.w;
  }
  const float inv = l > 0.f ? 1.f / l : 0.f;  // no valid index: output 0
  __nv_bfloat162* dst = reinterpret_cast<__nv_bfloat162*>(output + th * kDimV) + 2 * threadIdx.x;
  dst[0] = __floats2bfloat162_rn(o.x * inv, o.y * inv);
  dst[1] = __floats2bfloat162_rn(o.z * inv, o.w * inv);
  if (threadIdx.x == 0) lse[th] = l > 0.f ? m + log2f(l) : -INFINITY;
}

}  // namespace

int dsa_sparse_attention_baseline(const DLTensor* q_nope, const DLTensor* q_pe, const DLTensor* ckv_cache,
                                  const DLTensor* kpe_cache, const DLTensor* sparse_indices, float sm_scale,
                                  DLTensor* output, DLTensor* lse, kh_stream_t stream) {
  return run<kCombineThreads, 1>(dsa_combine_kernel, q_nope, q_pe, ckv_cache, kpe_cache, sparse_indices,
                                 sm_scale, output, lse, stream);
}
