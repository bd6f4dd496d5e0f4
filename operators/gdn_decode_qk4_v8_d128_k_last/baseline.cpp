// CPU baseline for gdn_decode_qk4_v8_d128_k_last: one pass over each k-last state row
// (read once, written once) instead of the reference's four, with the decay folded in:
//   old_v = g (k.S),  delta = beta (v - old_v),  S' = g S + k delta,
//   out = scale (g (q.S) + (q.k) delta).
// The dot products use PARTIAL_SUMS independent accumulators so that g++ can vectorise
// them without -ffast-math (it may not reorder one float sum).
//
// kh:param PARTIAL_SUMS in {1,4,8}  independent accumulators per dot product
#include <kharness/host_float.h>
#include <kharness/kernel.h>

#include <cstdint>

#include "gdn_gates.h"

#ifndef PARTIAL_SUMS
#define PARTIAL_SUMS 8
#endif

namespace {

constexpr int kDim = GDN_HEAD_SIZE;
static_assert(kDim % PARTIAL_SUMS == 0, "the partial sums must split a row evenly");

struct RowDots {
  float k_dot;
  float q_dot;
};

RowDots row_dots(const float* k, const float* q, const float* row) {
  float ks[PARTIAL_SUMS] = {}, qs[PARTIAL_SUMS] = {};
  for (int i = 0; i < kDim; i += PARTIAL_SUMS) {
    for (int j = 0; j < PARTIAL_SUMS; ++j) {
      ks[j] += k[i + j] * row[i + j];
      qs[j] += q[i + j] * row[i + j];
    }
  }
  RowDots d{0.f, 0.f};
  for (int j = 0; j < PARTIAL_SUMS; ++j) {
    d.k_dot += ks[j];
    d.q_dot += qs[j];
  }
  return d;
}

struct HeadInputs {
  const uint16_t* q;
  const uint16_t* k;
  const uint16_t* v;
  float decay;
  float beta;
  float scale;
};

void head_step(const HeadInputs& in, const float* state, float* new_state, uint16_t* out) {
  float q[kDim], k[kDim];
  float qk = 0.f;
  for (int i = 0; i < kDim; ++i) {
    q[i] = kh_bf16_to_float(in.q[i]);
    k[i] = kh_bf16_to_float(in.k[i]);
    qk += q[i] * k[i];
  }
  for (int r = 0; r < kDim; ++r) {
    const float* row = state + r * kDim;
    float* dst = new_state + r * kDim;
    const RowDots d = row_dots(k, q, row);
    const float old_v = in.decay * d.k_dot;
    const float delta = in.beta * (kh_bf16_to_float(in.v[r]) - old_v);
    for (int i = 0; i < kDim; ++i) dst[i] = in.decay * row[i] + k[i] * delta;
    out[r] = kh_float_to_bf16(in.scale * (in.decay * d.q_dot + qk * delta));
  }
}

}  // namespace

void gdn_decode_baseline(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                         const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias, const DLTensor* b,
                         float scale, DLTensor* output, DLTensor* new_state, kh_stream_t /*stream*/) {
  const int64_t batch = q->shape[0];
  const int64_t slice = int64_t{kDim} * kDim;
  const auto* qp = static_cast<const uint16_t*>(q->data);
  const auto* kp = static_cast<const uint16_t*>(k->data);
  const auto* vp = static_cast<const uint16_t*>(v->data);
  const auto* s_in = static_cast<const float*>(state->data);
  const auto* a_log = static_cast<const float*>(A_log->data);
  const auto* ap = static_cast<const uint16_t*>(a->data);
  const auto* bias = static_cast<const float*>(dt_bias->data);
  const auto* bp = static_cast<const uint16_t*>(b->data);
  auto* out = static_cast<uint16_t*>(output->data);
  auto* s_out = static_cast<float*>(new_state->data);
  const float eff_scale = gdn_effective_scale(scale);
  for (int64_t head = 0; head < batch * GDN_NUM_V_HEADS; ++head) {
    const int64_t h = head % GDN_NUM_V_HEADS;
    const int64_t qk_head = (head / GDN_NUM_V_HEADS) * GDN_NUM_QK_HEADS + h / GDN_V_PER_QK;
    const HeadInputs in{qp + qk_head * kDim,
                        kp + qk_head * kDim,
                        vp + head * kDim,
                        gdn_decay(kh_bf16_to_float(ap[head]), a_log[h], bias[h]),
                        gdn_beta(kh_bf16_to_float(bp[head])),
                        eff_scale};
    head_step(in, s_in + head * slice, s_out + head * slice, out + head * kDim);
  }
}
