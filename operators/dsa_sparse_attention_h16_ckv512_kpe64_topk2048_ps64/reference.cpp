// CPU reference for dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64: plain loops in
// float64, one (token, head) at a time, a two-pass softmax (max, then sum). Keys are the
// 576-wide rows [ckv | kpe] named by sparse_indices; values are the ckv rows. Entries
// that are not a row of the cache (-1, the padding) are skipped; a duplicated index is
// attended to twice, as in the Python reference.
#include <kharness/host_float.h>
#include <kharness/kernel.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace {

struct Shapes {
  int64_t tokens, heads, dim_ckv, dim_kpe, topk, rows;
};

Shapes shapes_of(const DLTensor* q_nope, const DLTensor* q_pe, const DLTensor* ckv_cache,
                 const DLTensor* sparse_indices) {
  return {q_nope->shape[0], q_nope->shape[1],         q_nope->shape[2],
          q_pe->shape[2],   sparse_indices->shape[1], ckv_cache->shape[0] * ckv_cache->shape[1]};
}

// The valid cache rows of one token's index list, in list order.
std::vector<int64_t> valid_rows(const int32_t* list, int64_t topk, int64_t rows) {
  std::vector<int64_t> valid;
  for (int64_t i = 0; i < topk; ++i) {
    if (list[i] >= 0 && list[i] < rows) valid.push_back(list[i]);
  }
  return valid;
}

double dot_bf16(const uint16_t* a, const uint16_t* b, int64_t n) {
  double sum = 0;
  for (int64_t d = 0; d < n; ++d) sum += double(kh_bf16_to_float(a[d])) * double(kh_bf16_to_float(b[d]));
  return sum;
}

}  // namespace

void dsa_sparse_attention_reference(const DLTensor* q_nope, const DLTensor* q_pe, const DLTensor* ckv_cache,
                                    const DLTensor* kpe_cache, const DLTensor* sparse_indices, float sm_scale,
                                    DLTensor* output, DLTensor* lse, kh_stream_t /*stream*/) {
  const Shapes s = shapes_of(q_nope, q_pe, ckv_cache, sparse_indices);
  const auto* qn = static_cast<const uint16_t*>(q_nope->data);
  const auto* qp = static_cast<const uint16_t*>(q_pe->data);
  const auto* kc = static_cast<const uint16_t*>(ckv_cache->data);
  const auto* kp = static_cast<const uint16_t*>(kpe_cache->data);
  const auto* indices = static_cast<const int32_t*>(sparse_indices->data);
  auto* out = static_cast<uint16_t*>(output->data);
  auto* lse_out = static_cast<float*>(lse->data);
  std::vector<double> logits;
  std::vector<double> acc(static_cast<size_t>(s.dim_ckv));
  for (int64_t t = 0; t < s.tokens; ++t) {
    const std::vector<int64_t> rows = valid_rows(indices + t * s.topk, s.topk, s.rows);
    for (int64_t h = 0; h < s.heads; ++h) {
      const int64_t th = t * s.heads + h;
      uint16_t* o = out + th * s.dim_ckv;
      if (rows.empty()) {
        for (int64_t d = 0; d < s.dim_ckv; ++d) o[d] = kh_float_to_bf16(0.0f);
        lse_out[th] = -std::numeric_limits<float>::infinity();
        continue;
      }
      logits.assign(rows.size(), 0.0);
      double max_logit = -std::numeric_limits<double>::infinity();
      for (size_t i = 0; i < rows.size(); ++i) {
        const double qk = dot_bf16(qn + th * s.dim_ckv, kc + rows[i] * s.dim_ckv, s.dim_ckv) +
                          dot_bf16(qp + th * s.dim_kpe, kp + rows[i] * s.dim_kpe, s.dim_kpe);
        logits[i] = qk * double(sm_scale);
        max_logit = std::fmax(max_logit, logits[i]);
      }
      double sum = 0;
      for (double& l : logits) sum += (l = std::exp(l - max_logit));
      for (double& a : acc) a = 0;
      for (size_t i = 0; i < rows.size(); ++i) {
        const uint16_t* v = kc + rows[i] * s.dim_ckv;
        for (int64_t d = 0; d < s.dim_ckv; ++d) acc[d] += logits[i] * double(kh_bf16_to_float(v[d]));
      }
      for (int64_t d = 0; d < s.dim_ckv; ++d) o[d] = kh_float_to_bf16(static_cast<float>(acc[d] / sum));
      lse_out[th] = static_cast<float>((max_logit + std::log(sum)) / std::log(2.0));
    }
  }
}
