// CUDA reference for gdn_decode_qk4_v8_d128_k_last: one block per (batch element, v head),
// one thread per V row of the k-last state (a column of S = [K, V]); the steps of the
// Python reference in its order, float32 throughout. Clear rather than fast: each thread
// walks its own 512-byte row, so loads are not coalesced.
#include <cuda_bf16.h>
#include <kharness/kernel.h>

#include "gdn_gates.h"

namespace {

constexpr int kDim = GDN_HEAD_SIZE;

__global__ void gdn_decode_reference_kernel(const __nv_bfloat16* q, const __nv_bfloat16* k,
                                            const __nv_bfloat16* v, const float* state, const float* A_log,
                                            const __nv_bfloat16* a, const float* dt_bias,
                                            const __nv_bfloat16* b, float scale, __nv_bfloat16* out,
                                            float* new_state) {
  const int64_t head = blockIdx.x;  // batch * 8 + v head
  const int h = static_cast<int>(head % GDN_NUM_V_HEADS);
  const int64_t qk_head = (head / GDN_NUM_V_HEADS) * GDN_NUM_QK_HEADS + h / GDN_V_PER_QK;
  const int r = threadIdx.x;
  __shared__ float qs[kDim], ks[kDim];
  qs[r] = __bfloat162float(q[qk_head * kDim + r]);
  ks[r] = __bfloat162float(k[qk_head * kDim + r]);
  __syncthreads();

  const float decay = gdn_decay(__bfloat162float(a[head]), A_log[h], dt_bias[h]);
  const float beta = gdn_beta(__bfloat162float(b[head]));
  const int64_t row_offset = (head * kDim + r) * kDim;
  const float* row_in = state + row_offset;
  float* row = new_state + row_offset;  // the row is updated in place in the output

  float old_v = 0.f;
  for (int i = 0; i < kDim; ++i) {
    const float s = decay * row_in[i];
    row[i] = s;
    old_v += ks[i] * s;
  }
  const float new_v = beta * __bfloat162float(v[head * kDim + r]) + (1.0f - beta) * old_v;
  float o = 0.f;
  for (int i = 0; i < kDim; ++i) {
    const float s = row[i] - ks[i] * old_v + ks[i] * new_v;
    row[i] = s;
    o += qs[i] * s;
  }
  out[head * kDim + r] = __float2bfloat16(gdn_effective_scale(scale) * o);
}

}  // namespace

void gdn_decode_reference(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                          const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias,
                          const DLTensor* b, float scale, DLTensor* output, DLTensor* new_state,
                          kh_stream_t stream) {
  const int64_t heads = q->shape[0] * GDN_NUM_V_HEADS;
  if (heads == 0) return;
  gdn_decode_reference_kernel<<<static_cast<unsigned>(heads), kDim, 0, stream>>>(
      static_cast<const __nv_bfloat16*>(q->data), static_cast<const __nv_bfloat16*>(k->data),
      static_cast<const __nv_bfloat16*>(v->data), static_cast<const float*>(state->data),
      static_cast<const float*>(A_log->data), static_cast<const __nv_bfloat16*>(a->data),
      static_cast<const float*>(dt_bias->data), static_cast<const __nv_bfloat16*>(b->data), scale,
      static_cast<__nv_bfloat16*>(output->data), static_cast<float*>(new_state->data));
}
