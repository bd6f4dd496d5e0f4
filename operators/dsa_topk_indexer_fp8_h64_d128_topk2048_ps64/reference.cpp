// CPU reference for dsa_topk_indexer_fp8_h64_d128_topk2048_ps64, step by step as the
// Python reference: keys dequantised to float32 (value * scale, rounded to float32),
// per head a float32 dot product, relu, times the head's weight, summed over heads in
// float32; then the best min(2048, seq_len) positions by a sort on (score descending,
// position ascending), so ties resolve deterministically to the earlier token.
#include <kharness/host_float.h>
#include <kharness/kernel.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "indexer_layout.h"

namespace {

struct Batch {
  const uint8_t* q;      // [B, 64, 128] e4m3
  const uint8_t* cache;  // [num_pages] pages of kPageBytes
  const float* weights;  // [B, 64]
  const int32_t* seq_lens;
  const int32_t* block_table;  // [B, max_pages]
  int64_t max_pages;
};

// Token `pos` of request `b` as float32, dequantised exactly as the reference does.
void load_key(const Batch& in, int64_t b, int64_t pos, float* key) {
  const int64_t page = in.block_table[b * in.max_pages + pos / kPageTokens];
  const int64_t offset = pos % kPageTokens;
  const uint8_t* page_bytes = in.cache + page * kPageBytes;
  float scale;
  std::memcpy(&scale, page_bytes + kScalesOffset + offset * 4, sizeof scale);
  for (int d = 0; d < kIndexHeadDim; ++d)
    key[d] = kh_e4m3_to_float(page_bytes[offset * kIndexHeadDim + d]) * scale;
}

std::vector<float> scores_of(const Batch& in, int64_t b, int64_t seq_len) {
  std::vector<float> q(kIndexHeads * kIndexHeadDim);
  for (int i = 0; i < kIndexHeads * kIndexHeadDim; ++i)
    q[i] = kh_e4m3_to_float(in.q[b * kIndexHeads * kIndexHeadDim + i]);
  const float* w = in.weights + b * kIndexHeads;
  std::vector<float> scores(static_cast<size_t>(seq_len));
  float key[kIndexHeadDim];
  for (int64_t pos = 0; pos < seq_len; ++pos) {
    load_key(in, b, pos, key);
    float score = 0.f;
    for (int h = 0; h < kIndexHeads; ++h) {
      float dot = 0.f;
      for (int d = 0; d < kIndexHeadDim; ++d) dot += q[h * kIndexHeadDim + d] * key[d];
      score += std::max(dot, 0.f) * w[h];
    }
    scores[pos] = score;
  }
  return scores;
}

}  // namespace

void dsa_topk_indexer_reference(const DLTensor* q_index_fp8, const DLTensor* k_index_cache_fp8,
                                const DLTensor* weights, const DLTensor* seq_lens,
                                const DLTensor* block_table, DLTensor* topk_indices, kh_stream_t /*stream*/) {
  const Batch in{
      static_cast<const uint8_t*>(q_index_fp8->data), static_cast<const uint8_t*>(k_index_cache_fp8->data),
      static_cast<const float*>(weights->data),       static_cast<const int32_t*>(seq_lens->data),
      static_cast<const int32_t*>(block_table->data), block_table->shape[1]};
  const int64_t batch = q_index_fp8->shape[0];
  auto* out = static_cast<int32_t*>(topk_indices->data);
  for (int64_t b = 0; b < batch; ++b) {
    // A length past the block table cannot be addressed; clamp rather than read outside it.
    const int64_t seq_len = std::clamp<int64_t>(in.seq_lens[b], 0, in.max_pages * kPageTokens);
    const std::vector<float> scores = scores_of(in, b, seq_len);
    std::vector<int64_t> order(static_cast<size_t>(seq_len));
    for (int64_t i = 0; i < seq_len; ++i) order[i] = i;
    const int64_t keep = std::min<int64_t>(kTopK, seq_len);
    std::partial_sort(order.begin(), order.begin() + keep, order.end(), [&](int64_t x, int64_t y) {
      return scores[x] != scores[y] ? scores[x] > scores[y] : x < y;
    });
    int32_t* row = out + b * kTopK;
    for (int64_t i = 0; i < kTopK; ++i) {
      if (i >= keep) {
        row[i] = -1;
        continue;
      }
      const int64_t pos = order[i];
      row[i] = static_cast<int32_t>(in.block_table[b * in.max_pages + pos / kPageTokens] * kPageTokens +
                                    pos % kPageTokens);
    }
  }
}
