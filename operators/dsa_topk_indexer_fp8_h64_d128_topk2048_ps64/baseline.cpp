// CPU baseline for dsa_topk_indexer_fp8_h64_d128_topk2048_ps64: page by page, the
// page's keys are dequantised once into a float tile through a 256-entry table, then
// scored a tile of tokens at a time with HEAD_GROUP heads per pass so each key row
// loaded from cache serves several heads; selection by std::nth_element (linear on
// average), since the output's order is free.
//
// kh:param TOKEN_TILE in {8,16,32,64}  tokens scored together (their keys stay in L1)
// kh:param HEAD_GROUP in {1,2,4}       heads per pass over a token's key
#include <kharness/host_float.h>
#include <kharness/kernel.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "indexer_layout.h"

#ifndef TOKEN_TILE
#define TOKEN_TILE 16
#endif
#ifndef HEAD_GROUP
#define HEAD_GROUP 2
#endif

static_assert(kPageTokens % TOKEN_TILE == 0, "TOKEN_TILE must divide the page");
static_assert(kIndexHeads % HEAD_GROUP == 0, "HEAD_GROUP must divide the heads");

namespace {

// keys[t][d] = value * scale of the page's first `tokens` tokens.
void dequantise_page(const uint8_t* page, int tokens, const KhE4m3Table& fp8, float* keys) {
  for (int t = 0; t < tokens; ++t) {
    float scale;
    std::memcpy(&scale, page + kScalesOffset + t * 4, sizeof scale);
    const uint8_t* values = page + t * kIndexHeadDim;
    for (int d = 0; d < kIndexHeadDim; ++d) keys[t * kIndexHeadDim + d] = fp8.value[values[d]] * scale;
  }
}

// scores[t] for `tokens` dequantised keys; q is [64][128] float, w the request's weights.
void score_tile(const float* q, const float* w, const float* keys, int tokens, float* scores) {
  for (int t = 0; t < tokens; ++t) scores[t] = 0.f;
  for (int h0 = 0; h0 < kIndexHeads; h0 += HEAD_GROUP) {
    for (int t = 0; t < tokens; ++t) {
      const float* key = keys + t * kIndexHeadDim;
      float dot[HEAD_GROUP] = {};
      for (int d = 0; d < kIndexHeadDim; ++d) {
        for (int g = 0; g < HEAD_GROUP; ++g) dot[g] += q[(h0 + g) * kIndexHeadDim + d] * key[d];
      }
      for (int g = 0; g < HEAD_GROUP; ++g) scores[t] += std::max(dot[g], 0.f) * w[h0 + g];
    }
  }
}

struct Candidate {
  float score;
  int32_t token;  // global index: page * 64 + offset
};

}  // namespace

void dsa_topk_indexer_baseline(const DLTensor* q_index_fp8, const DLTensor* k_index_cache_fp8,
                               const DLTensor* weights, const DLTensor* seq_lens, const DLTensor* block_table,
                               DLTensor* topk_indices, kh_stream_t /*stream*/) {
  const auto* q8 = static_cast<const uint8_t*>(q_index_fp8->data);
  const auto* cache = static_cast<const uint8_t*>(k_index_cache_fp8->data);
  const auto* w = static_cast<const float*>(weights->data);
  const auto* lens = static_cast<const int32_t*>(seq_lens->data);
  const auto* table = static_cast<const int32_t*>(block_table->data);
  auto* out = static_cast<int32_t*>(topk_indices->data);
  const int64_t batch = q_index_fp8->shape[0];
  const int64_t max_pages = block_table->shape[1];
  const KhE4m3Table& fp8 = kh_e4m3_table();
  std::vector<float> q(kIndexHeads * kIndexHeadDim);
  std::vector<float> keys(kPageTokens * kIndexHeadDim);
  std::vector<Candidate> all;
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t seq_len = std::clamp<int64_t>(lens[b], 0, max_pages * kPageTokens);
    for (int i = 0; i < kIndexHeads * kIndexHeadDim; ++i)
      q[i] = fp8.value[q8[b * kIndexHeads * kIndexHeadDim + i]];
    all.resize(static_cast<size_t>(seq_len));
    float scores[TOKEN_TILE];
    for (int64_t p = 0; p * kPageTokens < seq_len; ++p) {
      const int64_t page = table[b * max_pages + p];
      const int tokens = static_cast<int>(std::min<int64_t>(kPageTokens, seq_len - p * kPageTokens));
      dequantise_page(cache + page * kPageBytes, tokens, fp8, keys.data());
      for (int t0 = 0; t0 < tokens; t0 += TOKEN_TILE) {
        const int n = std::min(TOKEN_TILE, tokens - t0);
        score_tile(q.data(), w + b * kIndexHeads, keys.data() + t0 * kIndexHeadDim, n, scores);
        for (int t = 0; t < n; ++t) {
          const int64_t pos = p * kPageTokens + t0 + t;
          all[pos] = {scores[t], static_cast<int32_t>(page * kPageTokens + t0 + t)};
        }
      }
    }
    const int64_t keep = std::min<int64_t>(kTopK, seq_len);
    if (keep < seq_len) {
      std::nth_element(all.begin(), all.begin() + (keep - 1), all.end(),
                       [](const Candidate& x, const Candidate& y) { return x.score > y.score; });
    }
    int32_t* row = out + b * kTopK;
    for (int64_t i = 0; i < kTopK; ++i) row[i] = i < keep ? all[i].token : -1;
  }
}
