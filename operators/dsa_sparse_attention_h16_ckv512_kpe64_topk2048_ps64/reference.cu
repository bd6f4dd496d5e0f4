// CUDA reference for dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64: one block per
// (token, head), fp32 throughout, a two-pass softmax. Pass 1: one warp per index computes
// the 576-wide dot product into a shared logit array (-inf for padding). Pass 2: block
// max and sum. Pass 3: each thread owns output dimensions and sums p_i * ckv_row_i over
// the list. Correctness first; every gathered row is read once per head.
#include <cuda_bf16.h>
#include <kharness/kernel.h>

#include <cstdint>

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

struct Problem {
  const __nv_bfloat16* q_nope;  // [tokens, heads, dim_ckv]
  const __nv_bfloat16* q_pe;    // [tokens, heads, dim_kpe]
  const __nv_bfloat16* ckv;     // [rows, dim_ckv]
  const __nv_bfloat16* kpe;     // [rows, dim_kpe]
  const int32_t* indices;       // [tokens, topk]
  __nv_bfloat16* output;        // [tokens, heads, dim_ckv]
  float* lse;                   // [tokens, heads]
  int64_t heads, dim_ckv, dim_kpe, topk, rows;
  float sm_scale;
};

// Block-wide reduction of one float per thread; `op` is max or sum. Every thread gets the result.
template <class Op>
__device__ float block_reduce(float v, float* scratch, Op op) {
  for (int offset = 16; offset > 0; offset >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
  const int warp = threadIdx.x / 32;
  if (threadIdx.x % 32 == 0) scratch[warp] = v;
  __syncthreads();
  float r = scratch[0];
  for (int w = 1; w < kWarps; ++w) r = op(r, scratch[w]);
  __syncthreads();  // scratch is reused by the next call
  return r;
}

__device__ float logit_of(const Problem& p, int64_t th, int64_t row) {
  const __nv_bfloat16* qn = p.q_nope + th * p.dim_ckv;
  const __nv_bfloat16* qp = p.q_pe + th * p.dim_kpe;
  const __nv_bfloat16* kc = p.ckv + row * p.dim_ckv;
  const __nv_bfloat16* kp = p.kpe + row * p.dim_kpe;
  float sum = 0.f;
  for (int64_t d = threadIdx.x % 32; d < p.dim_ckv; d += 32)
    sum += __bfloat162float(qn[d]) * __bfloat162float(kc[d]);
  for (int64_t d = threadIdx.x % 32; d < p.dim_kpe; d += 32)
    sum += __bfloat162float(qp[d]) * __bfloat162float(kp[d]);
  for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  return sum * p.sm_scale;
}

// Dynamic shared memory: topk floats of logits.
__global__ void dsa_attention_reference_kernel(Problem p) {
  extern __shared__ float logits[];
  __shared__ float scratch[kWarps];
  const int64_t th = blockIdx.x;  // token * heads + head
  const int64_t t = th / p.heads;
  const int32_t* list = p.indices + t * p.topk;
  for (int64_t i = threadIdx.x / 32; i < p.topk; i += kWarps) {
    const int32_t row = list[i];
    const bool valid = row >= 0 && row < p.rows;  // the generator's padding is -1
    const float l = valid ? logit_of(p, th, row) : -INFINITY;
    if (threadIdx.x % 32 == 0) logits[i] = l;
  }
  __syncthreads();
  float local_max = -INFINITY;
  for (int64_t i = threadIdx.x; i < p.topk; i += kThreads) local_max = fmaxf(local_max, logits[i]);
  const float max_logit = block_reduce(local_max, scratch, [](float a, float b) { return fmaxf(a, b); });
  __nv_bfloat16* out = p.output + th * p.dim_ckv;
  if (max_logit == -INFINITY) {  // no valid index: zero output, lse -inf
    for (int64_t d = threadIdx.x; d < p.dim_ckv; d += kThreads) out[d] = __float2bfloat16(0.f);
    if (threadIdx.x == 0) p.lse[th] = -INFINITY;
    return;
  }
  float local_sum = 0.f;
  for (int64_t i = threadIdx.x; i < p.topk; i += kThreads) local_sum += expf(logits[i] - max_logit);
  const float sum = block_reduce(local_sum, scratch, [](float a, float b) { return a + b; });
  for (int64_t d = threadIdx.x; d < p.dim_ckv; d += kThreads) {
    float acc = 0.f;
    for (int64_t i = 0; i < p.topk; ++i) {
      if (logits[i] == -INFINITY) continue;
      acc += expf(logits[i] - max_logit) *
             __bfloat162float(p.ckv[static_cast<int64_t>(list[i]) * p.dim_ckv + d]);
    }
    out[d] = __float2bfloat16(acc / sum);
  }
  if (threadIdx.x == 0) p.lse[th] = (max_logit + logf(sum)) / 0.69314718055994531f;
}

}  // namespace

void dsa_sparse_attention_reference(const DLTensor* q_nope, const DLTensor* q_pe, const DLTensor* ckv_cache,
                                    const DLTensor* kpe_cache, const DLTensor* sparse_indices, float sm_scale,
                                    DLTensor* output, DLTensor* lse, kh_stream_t stream) {
  Problem p;
  p.q_nope = static_cast<const __nv_bfloat16*>(q_nope->data);
  p.q_pe = static_cast<const __nv_bfloat16*>(q_pe->data);
  p.ckv = static_cast<const __nv_bfloat16*>(ckv_cache->data);
  p.kpe = static_cast<const __nv_bfloat16*>(kpe_cache->data);
  p.indices = static_cast<const int32_t*>(sparse_indices->data);
  p.output = static_cast<__nv_bfloat16*>(output->data);
  p.lse = static_cast<float*>(lse->data);
  p.heads = q_nope->shape[1];
  p.dim_ckv = q_nope->shape[2];
  p.dim_kpe = q_pe->shape[2];
  p.topk = sparse_indices->shape[1];
  p.rows = ckv_cache->shape[0] * ckv_cache->shape[1];
  p.sm_scale = sm_scale;
  const int64_t blocks = q_nope->shape[0] * p.heads;
  if (blocks == 0) return;
  // topk = 2048 floats = 8 KiB of dynamic shared memory, well under the default 48 KiB.
  dsa_attention_reference_kernel<<<static_cast<unsigned>(blocks), kThreads, p.topk * sizeof(float), stream>>>(
      p);
}
