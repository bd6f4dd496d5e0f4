// CPU reference for gdn_decode_qk4_v8_d128_k_last: the Python reference's steps as plain
// loops in float32, in the same order (decay, k.S, new v, the two rank-1 terms, q.S).
#include <kharness/host_float.h>
#include <kharness/kernel.h>

#include <cstdint>

#include "gdn_gates.h"

namespace {

constexpr int kDim = GDN_HEAD_SIZE;

struct HeadStep {
  const uint16_t* q;  // [K] bf16
  const uint16_t* k;  // [K] bf16
  const uint16_t* v;  // [V] bf16
  float decay;
  float beta;
  float scale;
};

// One token on one v head. `state` is this head's k-last [V][K] slice, updated in place;
// row r of it is column r of the S = [K, V] the rule is written on.
void delta_rule_step(const HeadStep& in, float* state, uint16_t* out) {
  float q[kDim], k[kDim];
  for (int i = 0; i < kDim; ++i) {
    q[i] = kh_bf16_to_float(in.q[i]);
    k[i] = kh_bf16_to_float(in.k[i]);
  }
  for (int r = 0; r < kDim; ++r) {
    float* row = state + r * kDim;
    for (int i = 0; i < kDim; ++i) row[i] = in.decay * row[i];
    float old_v = 0.f;
    for (int i = 0; i < kDim; ++i) old_v += k[i] * row[i];
    const float new_v = in.beta * kh_bf16_to_float(in.v[r]) + (1.0f - in.beta) * old_v;
    for (int i = 0; i < kDim; ++i) row[i] = row[i] - k[i] * old_v + k[i] * new_v;
    float o = 0.f;
    for (int i = 0; i < kDim; ++i) o += q[i] * row[i];
    out[r] = kh_float_to_bf16(in.scale * o);
  }
}

}  // namespace

void gdn_decode_reference(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                          const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias,
                          const DLTensor* b, float scale, DLTensor* output, DLTensor* new_state,
                          kh_stream_t /*stream*/) {
  const int64_t batch = q->shape[0];
  const int64_t heads = GDN_NUM_V_HEADS;
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
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t qk_head = n * GDN_NUM_QK_HEADS + h / GDN_V_PER_QK;
      const int64_t v_head = n * heads + h;
      HeadStep in{qp + qk_head * kDim,
                  kp + qk_head * kDim,
                  vp + v_head * kDim,
                  gdn_decay(kh_bf16_to_float(ap[v_head]), a_log[h], bias[h]),
                  gdn_beta(kh_bf16_to_float(bp[v_head])),
                  eff_scale};
      float* s = s_out + v_head * slice;
      for (int64_t i = 0; i < slice; ++i) s[i] = s_in[v_head * slice + i];
      delta_rule_step(in, s, out + v_head * kDim);
    }
  }
}
