// CPU baseline for dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64: per token, the
// valid rows are gathered TILE_ROWS at a time into a float tile ([ckv | kpe], converted
// once), scored against all heads at once, and folded into per-head float accumulators
// with an online softmax (running max and sum, rescaled when the max grows). Each row is
// thus read and converted once per token instead of once per head.
//
// kh:param TILE_ROWS in {16,64,256}  cache rows gathered and scored per step
#include <kharness/host_float.h>
#include <kharness/kernel.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#ifndef TILE_ROWS
#define TILE_ROWS 64
#endif

namespace {

constexpr int kLanes = 8;  // independent partial sums, so the dot product vectorises without -ffast-math

float dot(const float* a, const float* b, int64_t n) {
  float part[kLanes] = {};
  int64_t d = 0;
  for (; d + kLanes <= n; d += kLanes) {
    for (int k = 0; k < kLanes; ++k) part[k] += a[d + k] * b[d + k];
  }
  float sum = 0;
  for (; d < n; ++d) sum += a[d] * b[d];
  for (float p : part) sum += p;
  return sum;
}

struct TokenState {
  int64_t heads, dim_v, dim_k;   // dim_k = ckv + kpe
  std::vector<float> q;          // [heads][dim_k], pre-multiplied by the log2(e)-scaled sm_scale
  std::vector<float> tile;       // [TILE_ROWS][dim_k]
  std::vector<float> p;          // [heads][TILE_ROWS]
  std::vector<float> acc;        // [heads][dim_v], unnormalised
  std::vector<float> max2, sum;  // per head, base-2 units
};

void load_query(TokenState& s, const uint16_t* qn, const uint16_t* qp, int64_t dim_kpe, float scale2) {
  for (int64_t h = 0; h < s.heads; ++h) {
    float* q = s.q.data() + h * s.dim_k;
    for (int64_t d = 0; d < s.dim_v; ++d) q[d] = kh_bf16_to_float(qn[h * s.dim_v + d]) * scale2;
    for (int64_t d = 0; d < dim_kpe; ++d) q[s.dim_v + d] = kh_bf16_to_float(qp[h * dim_kpe + d]) * scale2;
  }
}

void gather_tile(TokenState& s, const uint16_t* kc, const uint16_t* kp, const int64_t* rows, int64_t n) {
  const int64_t dim_kpe = s.dim_k - s.dim_v;
  for (int64_t r = 0; r < n; ++r) {
    float* dst = s.tile.data() + r * s.dim_k;
    const uint16_t* c = kc + rows[r] * s.dim_v;
    const uint16_t* e = kp + rows[r] * dim_kpe;
    for (int64_t d = 0; d < s.dim_v; ++d) dst[d] = kh_bf16_to_float(c[d]);
    for (int64_t d = 0; d < dim_kpe; ++d) dst[s.dim_v + d] = kh_bf16_to_float(e[d]);
  }
}

// Scores the tile for every head and folds it into the running softmax.
void fold_tile(TokenState& s, int64_t n) {
  for (int64_t h = 0; h < s.heads; ++h) {
    float* p = s.p.data() + h * TILE_ROWS;
    float tile_max = -std::numeric_limits<float>::infinity();
    for (int64_t r = 0; r < n; ++r) {
      p[r] = dot(s.q.data() + h * s.dim_k, s.tile.data() + r * s.dim_k, s.dim_k);
      tile_max = std::max(tile_max, p[r]);
    }
    const float new_max = std::max(s.max2[h], tile_max);
    const float rescale = std::exp2(s.max2[h] - new_max);  // 0 on the first tile (max2 = -inf)
    float tile_sum = 0;
    for (int64_t r = 0; r < n; ++r) tile_sum += (p[r] = std::exp2(p[r] - new_max));
    s.sum[h] = s.sum[h] * rescale + tile_sum;
    s.max2[h] = new_max;
    float* acc = s.acc.data() + h * s.dim_v;
    for (int64_t d = 0; d < s.dim_v; ++d) acc[d] *= rescale;
    for (int64_t r = 0; r < n; ++r) {
      const float* v = s.tile.data() + r * s.dim_k;
      for (int64_t d = 0; d < s.dim_v; ++d) acc[d] += p[r] * v[d];
    }
  }
}

void write_token(const TokenState& s, uint16_t* out, float* lse) {
  for (int64_t h = 0; h < s.heads; ++h) {
    const bool empty = s.sum[h] == 0;
    const float inv = empty ? 0.0f : 1.0f / s.sum[h];
    for (int64_t d = 0; d < s.dim_v; ++d)
      out[h * s.dim_v + d] = kh_float_to_bf16(s.acc[h * s.dim_v + d] * inv);
    lse[h] = empty ? -std::numeric_limits<float>::infinity() : s.max2[h] + std::log2(s.sum[h]);
  }
}

}  // namespace

void dsa_sparse_attention_baseline(const DLTensor* q_nope, const DLTensor* q_pe, const DLTensor* ckv_cache,
                                   const DLTensor* kpe_cache, const DLTensor* sparse_indices, float sm_scale,
                                   DLTensor* output, DLTensor* lse, kh_stream_t /*stream*/) {
  TokenState s;
  s.heads = q_nope->shape[1];
  s.dim_v = q_nope->shape[2];
  const int64_t dim_kpe = q_pe->shape[2];
  s.dim_k = s.dim_v + dim_kpe;
  const int64_t tokens = q_nope->shape[0];
  const int64_t topk = sparse_indices->shape[1];
  const int64_t cache_rows = ckv_cache->shape[0] * ckv_cache->shape[1];
  s.q.resize(static_cast<size_t>(s.heads * s.dim_k));
  s.tile.resize(static_cast<size_t>(TILE_ROWS * s.dim_k));
  s.p.resize(static_cast<size_t>(s.heads * TILE_ROWS));
  const auto* indices = static_cast<const int32_t*>(sparse_indices->data);
  const auto* kc = static_cast<const uint16_t*>(ckv_cache->data);
  const auto* kp = static_cast<const uint16_t*>(kpe_cache->data);
  const float scale2 = sm_scale * 1.4426950408889634f;  // softmax in base 2: exp(x) = exp2(x * log2(e))
  std::vector<int64_t> rows;
  for (int64_t t = 0; t < tokens; ++t) {
    rows.clear();
    for (int64_t i = 0; i < topk; ++i) {
      const int32_t row = indices[t * topk + i];
      if (row >= 0 && row < cache_rows) rows.push_back(row);
    }
    load_query(s, static_cast<const uint16_t*>(q_nope->data) + t * s.heads * s.dim_v,
               static_cast<const uint16_t*>(q_pe->data) + t * s.heads * dim_kpe, dim_kpe, scale2);
    s.acc.assign(static_cast<size_t>(s.heads * s.dim_v), 0.0f);
    s.max2.assign(static_cast<size_t>(s.heads), -std::numeric_limits<float>::infinity());
    s.sum.assign(static_cast<size_t>(s.heads), 0.0f);
    for (size_t r0 = 0; r0 < rows.size(); r0 += TILE_ROWS) {
      const int64_t n = std::min<int64_t>(TILE_ROWS, static_cast<int64_t>(rows.size() - r0));
      gather_tile(s, kc, kp, rows.data() + r0, n);
      fold_tile(s, n);
    }
    write_token(s, static_cast<uint16_t*>(output->data) + t * s.heads * s.dim_v,
                static_cast<float*>(lse->data) + t * s.heads);
  }
}
