// The baseline's CUDA-core split kernel unchanged, with a combine kernel that has ~16x more
// parallelism: one block per (token, head, quarter of the 512 dims) of 256 threads, 8
// groups of 32 threads walk the splits (group g takes splits g, g+8, ...; each thread 4
// dims, one float4 load per split, all of a thread's <= 8 loads independent), then the 8
// groups are summed through shared memory.
//
// Why faster: at T=1 the baseline runs 64 splits (2048 / TILE 32) and its combine is 16
// blocks of 128 threads that each walk all 64 splits 4 loads at a time: 16 dependent L2
// round trips (~0.5-0.8 us each) on 16 SMs, i.e. several us of a 22 us call. Here the same
// 2 MB of partials are read by 64 blocks, 2 rounds of 4 loads per thread. Expected: T=1-2
// -4..-6 us (22 -> ~16-18 us), T=8 -1..-2 us (16 splits); no change to the split kernel,
// so its numerics are the baseline's bit for bit except the order of the split sum.
//
// (Baseline description follows.)
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

constexpr int kCombineThreads = 256;  // combine block; also the most splits

// One block per (token, head, quarter of the dims), kCombineThreads threads: the split
// weights are computed once (one split per thread), then group sg of 32 threads sums
// splits sg, sg + 8, ... for 4 dims per thread, and the groups are added in shared memory.
__global__ void __launch_bounds__(kCombineThreads)
    dsa_combine_kernel(const float* part_o, const float* part_m, const float* part_l, int splits,
                       __nv_bfloat16* output, float* lse) {
  constexpr int kGroups = kCombineThreads / 32;
  __shared__ float weight[kCombineThreads];
  __shared__ float scratch[kGroups];
  __shared__ float4 partial[kGroups][32];
  const int64_t th = blockIdx.x / 4;
  const int quarter = static_cast<int>(blockIdx.x % 4);
  const int64_t t = th / kHeads;
  const int h = static_cast<int>(th % kHeads);
  const int s = threadIdx.x;  // this thread's split in the weight pass
  const int64_t my = (t * splits + s) * kHeads + h;
  const float m_s = s < splits ? part_m[my] : -INFINITY;
  const float m = combine_reduce<kCombineThreads>(m_s, scratch, [](float a, float b) { return fmaxf(a, b); });
  const float w = m_s == -INFINITY ? 0.f : exp2f(m_s - m);  // 0 for empty splits and padding threads
  weight[s] = w;
  const float l = combine_reduce<kCombineThreads>(s < splits ? w * part_l[my] : 0.f, scratch,
                                                  [](float a, float b) { return a + b; });
  // weight[] is visible here: combine_reduce synchronises the block.
  const int sg = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int dim = quarter * (kDimV / 4) + 4 * lane;
  float4 o = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 4
  for (int k = sg; k < splits; k += kGroups) {
    const float wk = weight[k];
    const float4 po =
        *reinterpret_cast<const float4*>(part_o + ((t * splits + k) * kHeads + h) * kDimV + dim);
    o.x += wk * po.x;
    o.y += wk * po.y;
    o.z += wk * po.z;
    o.w += wk * po.w;
  }
  partial[sg][lane] = o;
  __syncthreads();
  if (sg == 0) {
    float4 r = partial[0][lane];
#pragma unroll
    for (int k = 1; k < kGroups; ++k) {
      const float4 q = partial[k][lane];
      r.x += q.x;
      r.y += q.y;
      r.z += q.z;
      r.w += q.w;
    }
    const float inv = l > 0.f ? 1.f / l : 0.f;  // no valid index: output 0
    __nv_bfloat162* dst = reinterpret_cast<__nv_bfloat162*>(output + th * kDimV + dim);
    dst[0] = __floats2bfloat162_rn(r.x * inv, r.y * inv);
    dst[1] = __floats2bfloat162_rn(r.z * inv, r.w * inv);
  }
  if (threadIdx.x == 0 && quarter == 0) lse[th] = l > 0.f ? m + log2f(l) : -INFINITY;
}

}  // namespace

int dsa_sparse_attention_fast_combine(const DLTensor* q_nope, const DLTensor* q_pe, const DLTensor* ckv_cache,
                                      const DLTensor* kpe_cache, const DLTensor* sparse_indices,
                                      float sm_scale, DLTensor* output, DLTensor* lse, kh_stream_t stream) {
  return run<kCombineThreads, 4>(dsa_combine_kernel, q_nope, q_pe, ckv_cache, kpe_cache, sparse_indices,
                                 sm_scale, output, lse, stream);
}
