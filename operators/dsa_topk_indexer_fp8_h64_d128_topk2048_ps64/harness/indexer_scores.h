// The DSA top-k indexer's scores recomputed from its inputs in float64, so that a
// selection can be judged without trusting any kernel's arithmetic.
//
// Keys are dequantised exactly as the reference does (e4m3 value times the token's
// float32 scale, rounded to float32); the dot products, relu, weights and the sum over
// heads are then float64. Alongside each score comes its magnitude,
// sum_h |w_h| * sum_d |q_hd * k_d|: the scale of the rounding error that any float32
// (or lower-precision tensor-core) evaluation order makes, which is what a tolerance
// on scores must be relative to (the score itself can be near zero by cancellation).
#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "tensor/host_tensor.h"

namespace kh {

// The tokens of one request: which global token indices (page * 64 + offset) it owns.
class RequestTokens {
 public:
  RequestTokens(const std::int32_t* table_row, std::int64_t seq_len);
  // Positions of request b that hold `token`: 0 when it is not one of its tokens, more
  // than 1 only when the block table repeats a page.
  [[nodiscard]] int count(std::int64_t token) const;

 private:
  std::unordered_map<std::int64_t, std::vector<std::int64_t>> slots_;  // page -> block-table columns
  std::int64_t seq_len_;
};

class IndexerScores {
 public:
  struct Score {
    double value = 0;
    double magnitude = 0;
  };

  // `inputs` in definition order: q_index_fp8, k_index_cache_fp8, weights, seq_lens,
  // block_table. Throws kh::Error naming the input whose dtype or shape does not fit.
  explicit IndexerScores(const std::vector<HostTensor>& inputs);

  [[nodiscard]] std::int64_t batch() const noexcept { return batch_; }
  [[nodiscard]] std::int64_t num_pages() const noexcept { return num_pages_; }
  // seq_lens[b] clamped to [0, max_num_pages * 64]: no kernel can address more.
  [[nodiscard]] std::int64_t seq_len(std::int64_t b) const;
  [[nodiscard]] RequestTokens tokens(std::int64_t b) const;
  // Token `token` (0 <= token < num_pages * 64) scored against request b's query.
  [[nodiscard]] Score score(std::int64_t b, std::int64_t token) const;

 private:
  std::int64_t batch_ = 0;
  std::int64_t num_pages_ = 0;
  std::int64_t max_pages_ = 0;
  std::vector<double> q_;  // [batch, 64, 128]
  const std::byte* cache_ = nullptr;
  const float* weights_ = nullptr;
  const std::int32_t* seq_lens_ = nullptr;
  const std::int32_t* block_table_ = nullptr;
  std::array<float, 256> fp8_{};
};

}  // namespace kh
