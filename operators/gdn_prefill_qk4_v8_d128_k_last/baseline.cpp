// CPU baseline for gdn_prefill_qk4_v8_d128_k_last. Each k-last state row (a column of
// S = [K, V]) evolves on its own given the token's k, q, v[row] and gates, so the loop
// order is turned around: for each (sequence, v head), ROW_BLOCK rows are kept hot in L1
// while the whole sequence streams past them, with the per-token vectors (k, q as float)
// and scalars (decay, beta, q.k) computed once per sequence and q/k head. One step is
//   old_v = g (k.S),  delta = beta (v - old_v),  S' = g S + k delta,
//   out = scale (g (q.S) + (q.k) delta),
// the dot products with PARTIAL_SUMS accumulators so g++ can vectorise them.
//
// kh:param ROW_BLOCK in {1,8,32,128}  state rows carried through the sequence together
// kh:param PARTIAL_SUMS in {1,4,8}  independent accumulators per dot product
#include <kharness/host_float.h>
#include <kharness/kernel.h>

#include <cstdint>
#include <vector>

#include "gdn_gates.h"

#ifndef ROW_BLOCK
#define ROW_BLOCK 32
#endif
#ifndef PARTIAL_SUMS
#define PARTIAL_SUMS 8
#endif

namespace {

constexpr int kDim = GDN_HEAD_SIZE;
constexpr int64_t kSlice = int64_t{kDim} * kDim;
static_assert(kDim % PARTIAL_SUMS == 0, "the partial sums must split a row evenly");
static_assert(kDim % ROW_BLOCK == 0, "the row blocks must split a head evenly");

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

struct Tensors {
  const uint16_t* q;
  const uint16_t* k;
  const uint16_t* v;
  const float* a_log;
  const uint16_t* a;
  const float* dt_bias;
  const uint16_t* b;
  float scale;
  uint16_t* out;
};

// The per-token values of one sequence shared by the rows of one q/k head, or one v head.
struct SequenceVectors {
  std::vector<float> k, q;  // [len][K]
  std::vector<float> qk;    // [len]
  std::vector<float> decay, beta;

  void load_qk(const Tensors& x, int64_t start, int64_t len, int64_t qk_head) {
    k.resize(static_cast<size_t>(len * kDim));
    q.resize(k.size());
    qk.assign(static_cast<size_t>(len), 0.f);
    for (int64_t t = 0; t < len; ++t) {
      const int64_t src = ((start + t) * GDN_NUM_QK_HEADS + qk_head) * kDim;
      for (int i = 0; i < kDim; ++i) {
        k[t * kDim + i] = kh_bf16_to_float(x.k[src + i]);
        q[t * kDim + i] = kh_bf16_to_float(x.q[src + i]);
        qk[t] += q[t * kDim + i] * k[t * kDim + i];
      }
    }
  }

  void load_gates(const Tensors& x, int64_t start, int64_t len, int64_t h) {
    decay.resize(static_cast<size_t>(len));
    beta.resize(static_cast<size_t>(len));
    for (int64_t t = 0; t < len; ++t) {
      const int64_t v_head = (start + t) * GDN_NUM_V_HEADS + h;
      decay[t] = gdn_decay(kh_bf16_to_float(x.a[v_head]), x.a_log[h], x.dt_bias[h]);
      beta[t] = gdn_beta(kh_bf16_to_float(x.b[v_head]));
    }
  }
};

// Rows [r0, r0 + ROW_BLOCK) of v head h, through tokens start .. start + len - 1.
void row_block(const Tensors& x, const SequenceVectors& sv, int64_t start, int64_t len, int64_t h, int r0,
               float* rows /* [ROW_BLOCK][K], in and out */) {
  for (int64_t t = 0; t < len; ++t) {
    const float* k = sv.k.data() + t * kDim;
    const float* q = sv.q.data() + t * kDim;
    const int64_t v_head = (start + t) * GDN_NUM_V_HEADS + h;
    for (int j = 0; j < ROW_BLOCK; ++j) {
      float* row = rows + j * kDim;
      const RowDots d = row_dots(k, q, row);
      const float old_v = sv.decay[t] * d.k_dot;
      const float delta = sv.beta[t] * (kh_bf16_to_float(x.v[v_head * kDim + r0 + j]) - old_v);
      for (int i = 0; i < kDim; ++i) row[i] = sv.decay[t] * row[i] + k[i] * delta;
      x.out[v_head * kDim + r0 + j] = kh_float_to_bf16(x.scale * (sv.decay[t] * d.q_dot + sv.qk[t] * delta));
    }
  }
}

void sequence(const Tensors& x, int64_t start, int64_t len, const float* state, float* new_state) {
  SequenceVectors sv;
  for (int64_t qk_head = 0; qk_head < GDN_NUM_QK_HEADS; ++qk_head) {
    sv.load_qk(x, start, len, qk_head);
    for (int64_t h = qk_head * GDN_V_PER_QK; h < (qk_head + 1) * GDN_V_PER_QK; ++h) {
      sv.load_gates(x, start, len, h);
      for (int r0 = 0; r0 < kDim; r0 += ROW_BLOCK) {
        float* rows = new_state + h * kSlice + int64_t{r0} * kDim;
        const float* src = state + h * kSlice + int64_t{r0} * kDim;
        for (int64_t i = 0; i < int64_t{ROW_BLOCK} * kDim; ++i) rows[i] = src[i];
        row_block(x, sv, start, len, h, r0, rows);
      }
    }
  }
}

}  // namespace

void gdn_prefill_baseline(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
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
                  static_cast<const uint16_t*>(b->data), gdn_effective_scale(scale),
                  static_cast<uint16_t*>(output->data)};
  for (int64_t n = 0; n < num_seqs; ++n) {
    const int64_t len = cu[n + 1] - cu[n];
    float* dst = s_out + n * per_seq;
    if (len <= 0) {
      for (int64_t i = 0; i < per_seq; ++i) dst[i] = 0.f;
      continue;
    }
    sequence(x, cu[n], len, s_in + n * per_seq, dst);
  }
}
