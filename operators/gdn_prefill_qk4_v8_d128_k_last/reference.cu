// CUDA reference for gdn_prefill_qk4_v8_d128_k_last: one block per (sequence, v head), one
// thread per V row of the k-last state (a column of S = [K, V]), the row held in registers
// for the whole sequence; the Python reference's steps in its order, float32 throughout.
// The recurrence is sequential in time, so a long single sequence runs on only 8 blocks:
// about 1 us per token, 10 ms for 8192 tokens.
#include <cuda_bf16.h>
#include <kharness/kernel.h>

#include "gdn_gates.h"

namespace {

constexpr int kDim = GDN_HEAD_SIZE;

struct PrefillArgs {
  const __nv_bfloat16* q;
  const __nv_bfloat16* k;
  const __nv_bfloat16* v;
  const float* state;
  const float* A_log;
  const __nv_bfloat16* a;
  const float* dt_bias;
  const __nv_bfloat16* b;
  const int64_t* cu_seqlens;
  float scale;
  __nv_bfloat16* out;
  float* new_state;
};

__global__ void gdn_prefill_reference_kernel(PrefillArgs p) {
  const int64_t seq = blockIdx.x / GDN_NUM_V_HEADS;
  const int h = static_cast<int>(blockIdx.x % GDN_NUM_V_HEADS);
  const int r = threadIdx.x;
  const int64_t start = p.cu_seqlens[seq];
  const int64_t end = p.cu_seqlens[seq + 1];
  const int64_t row_offset = ((seq * GDN_NUM_V_HEADS + h) * kDim + r) * kDim;
  float row[kDim];  // fully unrolled loops below keep it in registers
#pragma unroll
  for (int i = 0; i < kDim; ++i) row[i] = end > start ? p.state[row_offset + i] : 0.f;

  const float scale = gdn_effective_scale(p.scale);
  __shared__ float qs[kDim], ks[kDim];
  for (int64_t t = start; t < end; ++t) {
    const int64_t qk_head = t * GDN_NUM_QK_HEADS + h / GDN_V_PER_QK;
    const int64_t v_head = t * GDN_NUM_V_HEADS + h;
    __syncthreads();  // the previous token's q and k are no longer read
    qs[r] = __bfloat162float(p.q[qk_head * kDim + r]);
    ks[r] = __bfloat162float(p.k[qk_head * kDim + r]);
    __syncthreads();
    const float decay = gdn_decay(__bfloat162float(p.a[v_head]), p.A_log[h], p.dt_bias[h]);
    const float beta = gdn_beta(__bfloat162float(p.b[v_head]));
    float old_v = 0.f;
#pragma unroll
    for (int i = 0; i < kDim; ++i) {
      row[i] = decay * row[i];
      old_v += ks[i] * row[i];
    }
    const float new_v = beta * __bfloat162float(p.v[v_head * kDim + r]) + (1.0f - beta) * old_v;
    float o = 0.f;
#pragma unroll
    for (int i = 0; i < kDim; ++i) {
      row[i] = row[i] - ks[i] * old_v + ks[i] * new_v;
      o += qs[i] * row[i];
    }
    p.out[v_head * kDim + r] = __float2bfloat16(scale * o);
  }
#pragma unroll
  for (int i = 0; i < kDim; ++i) p.new_state[row_offset + i] = row[i];
}

}  // namespace

void gdn_prefill_reference(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                           const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias,
                           const DLTensor* b, const DLTensor* cu_seqlens, float scale, DLTensor* output,
                           DLTensor* new_state, kh_stream_t stream) {
  const int64_t blocks = (cu_seqlens->shape[0] - 1) * GDN_NUM_V_HEADS;
  if (blocks <= 0) return;
  const PrefillArgs args{
      static_cast<const __nv_bfloat16*>(q->data),    static_cast<const __nv_bfloat16*>(k->data),
      static_cast<const __nv_bfloat16*>(v->data),    static_cast<const float*>(state->data),
      static_cast<const float*>(A_log->data),        static_cast<const __nv_bfloat16*>(a->data),
      static_cast<const float*>(dt_bias->data),      static_cast<const __nv_bfloat16*>(b->data),
      static_cast<const int64_t*>(cu_seqlens->data), scale,
      static_cast<__nv_bfloat16*>(output->data),     static_cast<float*>(new_state->data)};
  gdn_prefill_reference_kernel<<<static_cast<unsigned>(blocks), kDim, 0, stream>>>(args);
}
