// CPU reference for gdn_prefill_qk4_v8_d128_k_last: the Python reference's steps as plain
// loops in float32, token by token within each sequence, in the same order (decay, k.S,
// new v, the two rank-1 terms, q.S). An empty sequence leaves its new_state zero.
#include <kharness/host_float.h>
#include <kharness/kernel.h>

#include <cstdint>

#include "gdn_gates.h"

namespace {

constexpr int kDim = GDN_HEAD_SIZE;
constexpr int64_t kSlice = int64_t{kDim} * kDim;

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

struct Tensors {
  const uint16_t* q;
  const uint16_t* k;
  const uint16_t* v;
  const float* a_log;
  const uint16_t* a;
  const float* dt_bias;
  const uint16_t* b;
  uint16_t* out;
};

// Token t (a global index) on every v head, against the sequence's state [8][V][K].
void token_step(const Tensors& x, int64_t t, float scale, float* state) {
  for (int64_t h = 0; h < GDN_NUM_V_HEADS; ++h) {
    const int64_t qk_head = t * GDN_NUM_QK_HEADS + h / GDN_V_PER_QK;
    const int64_t v_head = t * GDN_NUM_V_HEADS + h;
    HeadStep in{x.q + qk_head * kDim,
                x.k + qk_head * kDim,
                x.v + v_head * kDim,
                gdn_decay(kh_bf16_to_float(x.a[v_head]), x.a_log[h], x.dt_bias[h]),
                gdn_beta(kh_bf16_to_float(x.b[v_head])),
                scale};
    delta_rule_step(in, state + h * kSlice, x.out + v_head * kDim);
  }
}

}  // namespace

void gdn_prefill_reference(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                           const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias,
                           const DLTensor* b, const DLTensor* cu_seqlens, float scale, DLTensor* output,
                           DLTensor* new_state, kh_stream_t /*stream*/) {
  const int64_t num_seqs = cu_seqlens->shape[0] - 1;
  const int64_t per_seq = GDN_NUM_V_HEADS * kSlice;
  const auto* cu = static_cast<const int64_t*>(cu_seqlens->data);
  const auto* s_in = static_cast<const float*>(state->data);
  auto* s_out = static_cast<float*>(new_state->data);
  const Tensors x{static_cast<const uint16_t*>(q->data), static_cast<const uint16_t*>(k->data),
                  static_cast<const uint16_t*>(v->data), static_cast<const float*>(A_log->data),
                  static_cast<const uint16_t*>(a->data), static_cast<const float*>(dt_bias->data),
                  static_cast<const uint16_t*>(b->data), static_cast<uint16_t*>(output->data)};
  const float eff_scale = gdn_effective_scale(scale);
  for (int64_t n = 0; n < num_seqs; ++n) {
    float* s = s_out + n * per_seq;
    const bool empty = cu[n + 1] <= cu[n];
    for (int64_t i = 0; i < per_seq; ++i) s[i] = empty ? 0.f : s_in[n * per_seq + i];
    for (int64_t t = cu[n]; t < cu[n + 1]; ++t) token_step(x, t, eff_scale, s);
  }
}
