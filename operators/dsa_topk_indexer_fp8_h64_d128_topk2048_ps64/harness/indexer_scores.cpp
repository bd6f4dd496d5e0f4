#include "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64/harness/indexer_scores.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "error/error.h"
#include "tensor/float_formats.h"

namespace kh {

namespace {

constexpr std::int64_t kHeads = 64;
constexpr std::int64_t kDim = 128;
constexpr std::int64_t kPageTokens = 64;
constexpr std::int64_t kPageBytes = kPageTokens * (kDim + 4);

void require(bool ok, const char* input, const char* expected) {
  if (!ok)
    throw Error(Location{"", 0, fmt::format("inputs.{}", input)}, fmt::format("expected {}", expected));
}

}  // namespace

RequestTokens::RequestTokens(const std::int32_t* table_row, std::int64_t seq_len) : seq_len_(seq_len) {
  for (std::int64_t j = 0; j * kPageTokens < seq_len; ++j) slots_[table_row[j]].push_back(j);
}

int RequestTokens::count(std::int64_t token) const {
  auto it = slots_.find(token / kPageTokens);
  if (it == slots_.end()) return 0;
  const std::int64_t offset = token % kPageTokens;
  return static_cast<int>(std::count_if(it->second.begin(), it->second.end(),
                                        [&](std::int64_t j) { return j * kPageTokens + offset < seq_len_; }));
}

IndexerScores::IndexerScores(const std::vector<HostTensor>& in) {
  require(in.size() == 5, "inputs",
          "5 inputs: q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table");
  const HostTensor& q = in[0];
  const HostTensor& cache = in[1];
  require(q.dtype() == DType::float8_e4m3fn && q.shape().size() == 3 && q.shape()[1] == kHeads &&
              q.shape()[2] == kDim,
          "q_index_fp8", "float8_e4m3fn [batch_size, 64, 128]");
  require(cache.dtype() == DType::int8 && cache.shape().size() == 4 && cache.shape()[1] == kPageTokens &&
              cache.shape()[2] == 1 && cache.shape()[3] == kDim + 4,
          "k_index_cache_fp8", "int8 [num_pages, 64, 1, 132]");
  batch_ = q.shape()[0];
  num_pages_ = cache.shape()[0];
  require(in[2].dtype() == DType::float32 && in[2].numel() == static_cast<std::size_t>(batch_ * kHeads),
          "weights", "float32 [batch_size, 64]");
  require(in[3].dtype() == DType::int32 && in[3].numel() == static_cast<std::size_t>(batch_), "seq_lens",
          "int32 [batch_size]");
  require(in[4].dtype() == DType::int32 && in[4].shape().size() == 2 && in[4].shape()[0] == batch_,
          "block_table", "int32 [batch_size, max_num_pages]");
  max_pages_ = in[4].shape()[1];
  for (int c = 0; c < 256; ++c) fp8_[c] = e4m3fn_to_float(static_cast<std::uint8_t>(c));
  const std::span<const std::uint8_t> q_codes = q.as<std::uint8_t>();
  q_.resize(q_codes.size());
  for (std::size_t i = 0; i < q_codes.size(); ++i) q_[i] = fp8_[q_codes[i]];
  cache_ = cache.bytes().data();
  weights_ = in[2].as<float>().data();
  seq_lens_ = in[3].as<std::int32_t>().data();
  block_table_ = in[4].as<std::int32_t>().data();
}

std::int64_t IndexerScores::seq_len(std::int64_t b) const {
  return std::clamp<std::int64_t>(seq_lens_[b], 0, max_pages_ * kPageTokens);
}

RequestTokens IndexerScores::tokens(std::int64_t b) const {
  return RequestTokens(block_table_ + b * max_pages_, seq_len(b));
}

IndexerScores::Score IndexerScores::score(std::int64_t b, std::int64_t token) const {
  const std::byte* page = cache_ + (token / kPageTokens) * kPageBytes;
  const std::int64_t offset = token % kPageTokens;
  float scale;
  std::memcpy(&scale, page + kPageTokens * kDim + 4 * offset, sizeof scale);
  double key[kDim];
  for (std::int64_t d = 0; d < kDim; ++d) {
    // float32 product, as the reference's dequantisation rounds it.
    key[d] = static_cast<double>(fp8_[static_cast<std::uint8_t>(page[offset * kDim + d])] * scale);
  }
  Score s;
  for (std::int64_t h = 0; h < kHeads; ++h) {
    const double* qh = q_.data() + (b * kHeads + h) * kDim;
    double dot = 0;
    double size = 0;
    for (std::int64_t d = 0; d < kDim; ++d) {
      dot += qh[d] * key[d];
      size += std::fabs(qh[d] * key[d]);
    }
    const double w = weights_[b * kHeads + h];
    s.value += std::max(dot, 0.0) * w;
    s.magnitude += std::fabs(w) * size;
  }
  return s;
}

}  // namespace kh
