#include "eval/inputs/dsa_topk_inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <thread>
#include <vector>

#include "error/error.h"
#include "eval/inputs/fp8_normal_codes.h"
#include "tensor/counter_rng.h"
#include "tensor/random_fill.h"
#include "tensor/standard_normal.h"

namespace kh {

namespace {

// Inputs in definition order.
enum Input : std::size_t {
  kQ = 0,
  kKeyCache = 1,
  kWeights = 2,
  kSeqLens = 3,
  kBlockTable = 4,
  kInputCount = 5
};

constexpr std::int64_t kPageTokens = 64;
constexpr std::int64_t kHeadDim = 128;
constexpr std::int64_t kPageBytes = kPageTokens * (kHeadDim + 4);
constexpr std::int64_t kShortestLong = 2047;  // the short request stays under top-k = 2048
constexpr double kCodeStd = 448.0 / 3.0;      // e4m3 values spread over the whole range
constexpr double kScaleSpread = 0.35;         // log-normal spread of the per-token scales
constexpr double kWeightStd = 0.125 * 0.08838834764831845 / kCodeStd;  // 64^-0.5 * 128^-0.5 * q scale

// Below this many pages the cache is filled on the calling thread.
constexpr std::int64_t kPagesPerThread = 128;

const Fp8NormalCodes& fp8_codes() {
  static const Fp8NormalCodes codes(kCodeStd);
  return codes;
}

// A sequence of random words from one stream: word n is random_word(key, n).
class WordStream {
 public:
  explicit WordStream(std::uint64_t key) : key_(key) {}
  std::uint64_t next() { return random_word(key_, counter_++); }
  // Uniform in [lo, hi]; the modulo bias is below span / 2^64.
  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }

 private:
  std::uint64_t key_;
  std::uint64_t counter_ = 0;
};

void expect(bool ok, const std::string& what) {
  if (!ok) throw Error(Location{"", 0, "dsa_topk inputs"}, what);
}

void check_inputs(const std::vector<HostTensor>& in) {
  expect(in.size() == kInputCount, fmt::format("expected 5 inputs (q_index_fp8, k_index_cache_fp8, weights, "
                                               "seq_lens, block_table), got {}",
                                               in.size()));
  expect(in[kQ].dtype() == DType::float8_e4m3fn && in[kQ].shape().size() == 3,
         "q_index_fp8 must be float8_e4m3fn [batch_size, 64, 128]");
  expect(in[kKeyCache].dtype() == DType::int8 && in[kKeyCache].shape().size() == 4 &&
             in[kKeyCache].shape()[1] == kPageTokens && in[kKeyCache].shape()[3] == kHeadDim + 4,
         "k_index_cache_fp8 must be int8 [num_pages, 64, 1, 132]");
  expect(in[kWeights].dtype() == DType::float32, "weights must be float32");
  expect(in[kSeqLens].dtype() == DType::int32 && in[kBlockTable].dtype() == DType::int32 &&
             in[kBlockTable].shape().size() == 2,
         "seq_lens and block_table must be int32, block_table [batch_size, max_num_pages]");
}

void fill_seq_lens(HostTensor& seq_lens, std::int64_t max_pages, std::uint64_t seed) {
  std::span<std::int32_t> lens = seq_lens.as<std::int32_t>();
  const auto batch = static_cast<std::int64_t>(lens.size());
  const std::int64_t capacity = max_pages * kPageTokens;
  if (batch == 0) return;
  WordStream rng(stream_key(seed, 0));
  const std::int64_t long_row = rng.between(0, batch - 1);
  const std::int64_t short_row = batch >= 2 ? (long_row + rng.between(1, batch - 1)) % batch : -1;
  for (std::int64_t b = 0; b < batch; ++b) {
    std::int64_t n = 0;
    if (capacity == 0) {
      n = 0;
    } else if (b == long_row) {
      n = std::max<std::int64_t>(1, capacity - rng.between(0, kPageTokens - 1));
    } else if (b == short_row) {
      n = rng.between(1, std::min(kShortestLong, capacity));
    } else {
      n = rng.between(1, capacity);
    }
    lens[b] = static_cast<std::int32_t>(n);
  }
}

std::vector<std::int64_t> pages_needed(const HostTensor& seq_lens, std::int64_t max_pages) {
  std::vector<std::int64_t> pages;
  for (std::int32_t n : seq_lens.as<std::int32_t>()) {
    const std::int64_t tokens = std::clamp<std::int64_t>(n, 0, max_pages * kPageTokens);
    pages.push_back((tokens + kPageTokens - 1) / kPageTokens);
  }
  return pages;
}

// Rows get distinct random pages: a partial Fisher-Yates shuffle of the pool draws them.
// When the pool holds every row's pages one shuffle serves all rows, so rows are
// disjoint; otherwise each row reshuffles the front of the pool and rows may share.
void fill_block_table(HostTensor& table, const HostTensor& seq_lens, std::int64_t num_pages,
                      std::uint64_t seed) {
  const std::int64_t max_pages = table.shape()[1];
  const std::vector<std::int64_t> need = pages_needed(seq_lens, max_pages);
  std::span<std::int32_t> rows = table.as<std::int32_t>();
  std::fill(rows.begin(), rows.end(), 0);
  std::vector<std::int32_t> pool(static_cast<std::size_t>(num_pages));
  std::iota(pool.begin(), pool.end(), 0);
  WordStream rng(stream_key(seed, 0));
  const std::int64_t total = std::accumulate(need.begin(), need.end(), std::int64_t{0});
  const bool disjoint = total <= num_pages;
  std::int64_t next = 0;  // first pool slot not handed out yet (disjoint case)
  for (std::size_t b = 0; b < need.size(); ++b) {
    expect(need[b] <= num_pages,
           fmt::format("request {} needs {} distinct pages but num_pages is {}", b, need[b], num_pages));
    const std::int64_t first = disjoint ? next : 0;
    for (std::int64_t i = first; i < first + need[b]; ++i) {
      std::swap(pool[i], pool[rng.between(i, num_pages - 1)]);
      rows[b * max_pages + (i - first)] = pool[i];
    }
    next += need[b];
  }
}

// Runs body(begin, end) over [0, n) pages on several threads; the split only changes
// who writes a page, never its bytes.
template <class Body>
void for_page_ranges(std::int64_t n, const Body& body) {
  const auto threads = static_cast<std::int64_t>(std::max(1u, std::thread::hardware_concurrency()));
  const std::int64_t count = std::clamp<std::int64_t>(n / kPagesPerThread, 1, threads);
  if (count == 1) return body(std::int64_t{0}, n);
  const std::int64_t chunk = (n + count - 1) / count;
  std::vector<std::jthread> workers;
  for (std::int64_t begin = 0; begin < n; begin += chunk) {
    workers.emplace_back([&body, begin, end = std::min(n, begin + chunk)] { body(begin, end); });
  }
}

void fill_key_cache(HostTensor& cache, std::uint64_t seed) {
  const std::int64_t pages = cache.shape()[0];
  std::byte* const bytes = cache.bytes().data();
  const Fp8NormalCodes& codes = fp8_codes();
  const std::uint64_t value_key = stream_key(seed, 1);
  const NormalStream normal(stream_key(seed, 2), stream_key(seed, 3));
  for_page_ranges(pages, [&](std::int64_t begin, std::int64_t end) {
    constexpr std::int64_t kWordsPerPage = kPageTokens * kHeadDim / 4;
    for (std::int64_t p = begin; p < end; ++p) {
      std::byte* page = bytes + p * kPageBytes;
      for (std::int64_t i = 0; i < kWordsPerPage; ++i) {
        const std::uint32_t four =
            codes.four(random_word(value_key, static_cast<std::uint64_t>(p * kWordsPerPage + i)));
        std::memcpy(page + 4 * i, &four, 4);
      }
      for (std::int64_t t = 0; t < kPageTokens; ++t) {
        const auto scale = static_cast<float>(
            std::exp(kScaleSpread * normal(static_cast<std::uint64_t>(p * kPageTokens + t))) / kCodeStd);
        std::memcpy(page + kPageTokens * kHeadDim + 4 * t, &scale, 4);
      }
    }
  });
}

void fill_fp8_codes(HostTensor& t, std::uint64_t seed) {
  std::span<std::byte> bytes = t.bytes();
  const Fp8NormalCodes& codes = fp8_codes();
  const std::uint64_t key = stream_key(seed, 1);
  for (std::size_t i = 0; i < bytes.size(); i += 4) {
    const std::uint32_t four = codes.four(random_word(key, i / 4));
    std::memcpy(bytes.data() + i, &four, std::min<std::size_t>(4, bytes.size() - i));
  }
}

class DsaTopkInputs final : public StructuredInputs {
 public:
  void generate(const Definition& /*definition*/, const AxisValues& /*axes*/, std::uint64_t seed,
                std::vector<HostTensor>& inputs, const std::vector<bool>& random) const override {
    check_inputs(inputs);
    const std::int64_t max_pages = inputs[kBlockTable].shape()[1];
    const std::int64_t num_pages = inputs[kKeyCache].shape()[0];
    if (random[kSeqLens]) fill_seq_lens(inputs[kSeqLens], max_pages, input_seed(seed, kSeqLens));
    if (random[kBlockTable])
      fill_block_table(inputs[kBlockTable], inputs[kSeqLens], num_pages, input_seed(seed, kBlockTable));
    if (random[kKeyCache]) fill_key_cache(inputs[kKeyCache], input_seed(seed, kKeyCache));
    if (random[kQ]) fill_fp8_codes(inputs[kQ], input_seed(seed, kQ));
    if (random[kWeights]) fill_normal(inputs[kWeights], input_seed(seed, kWeights), 0.0, kWeightStd);
  }
};

}  // namespace

std::shared_ptr<const StructuredInputs> make_dsa_topk_inputs() { return std::make_shared<DsaTopkInputs>(); }

}  // namespace kh
