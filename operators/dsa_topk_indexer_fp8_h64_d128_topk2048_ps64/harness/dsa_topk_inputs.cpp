#include "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64/harness/dsa_topk_inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64/harness/topk_indexer_checker.h"
#include "error/error.h"
#include "eval/generation_dispatch.h"
#include "tensor/counter_rng.h"
#include "tensor/fp8_normal_codes.h"
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

constexpr auto kPageTokens = static_cast<std::int64_t>(dsa_topk_inputs::kPageTokens);
constexpr auto kHeadDim = static_cast<std::int64_t>(dsa_topk_inputs::kHeadDim);
constexpr std::int64_t kShortestLong = 2047;  // the short request stays under top-k = 2048
constexpr double kCodeStd = dsa_topk_inputs::kCodeStd;
constexpr double kWeightStd = 0.125 * 0.08838834764831845 / kCodeStd;  // 64^-0.5 * 128^-0.5 * q scale

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

void check_inputs(const std::vector<InputSlot>& in) {
  expect(in.size() == kInputCount, fmt::format("expected 5 inputs (q_index_fp8, k_index_cache_fp8, weights, "
                                               "seq_lens, block_table), got {}",
                                               in.size()));
  expect(in[kQ].dtype == DType::float8_e4m3fn && in[kQ].shape.size() == 3,
         "q_index_fp8 must be float8_e4m3fn [batch_size, 64, 128]");
  expect(in[kKeyCache].dtype == DType::int8 && in[kKeyCache].shape.size() == 4 &&
             in[kKeyCache].shape[1] == kPageTokens && in[kKeyCache].shape[3] == kHeadDim + 4,
         "k_index_cache_fp8 must be int8 [num_pages, 64, 1, 132]");
  expect(in[kWeights].dtype == DType::float32, "weights must be float32");
  expect(in[kSeqLens].dtype == DType::int32 && in[kBlockTable].dtype == DType::int32 &&
             in[kBlockTable].shape.size() == 2,
         "seq_lens and block_table must be int32, block_table [batch_size, max_num_pages]");
}

std::vector<std::int32_t> draw_seq_lens(std::int64_t batch, std::int64_t max_pages, std::uint64_t seed) {
  std::vector<std::int32_t> lens(static_cast<std::size_t>(batch));
  const std::int64_t capacity = max_pages * kPageTokens;
  if (batch == 0) return lens;
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
    lens[static_cast<std::size_t>(b)] = static_cast<std::int32_t>(n);
  }
  return lens;
}

std::vector<std::int64_t> pages_needed(const std::vector<std::int32_t>& seq_lens, std::int64_t max_pages) {
  std::vector<std::int64_t> pages;
  for (std::int32_t n : seq_lens) {
    const std::int64_t tokens = std::clamp<std::int64_t>(n, 0, max_pages * kPageTokens);
    pages.push_back((tokens + kPageTokens - 1) / kPageTokens);
  }
  return pages;
}

// Rows get distinct random pages: a partial Fisher-Yates shuffle of the pool draws them.
// When the pool holds every row's pages one shuffle serves all rows, so rows are
// disjoint; otherwise each row reshuffles the front of the pool and rows may share.
std::vector<std::int32_t> draw_block_table(const std::vector<std::int32_t>& seq_lens, std::int64_t max_pages,
                                           std::int64_t num_pages, std::uint64_t seed) {
  const std::vector<std::int64_t> need = pages_needed(seq_lens, max_pages);
  std::vector<std::int32_t> rows(seq_lens.size() * static_cast<std::size_t>(max_pages), 0);
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
  return rows;
}

const std::uint8_t* code_table(GenerationSite& site) {
  static const Fp8NormalCodes codes(kCodeStd);
  return static_cast<const std::uint8_t*>(
      site.table("dsa_topk_fp8_codes", codes.data(), Fp8NormalCodes::kEntries));
}

class DsaTopkInputs final : public StructuredInputs {
 public:
  void generate(const InputRequest& request, GenerationSite& site,
                std::vector<InputSlot>& inputs) const override {
    check_inputs(inputs);
    const std::uint64_t seed = request.seed;
    const std::int64_t batch = inputs[kSeqLens].shape[0];
    const std::int64_t max_pages = inputs[kBlockTable].shape[1];
    const std::int64_t num_pages = inputs[kKeyCache].shape[0];
    std::vector<std::int32_t> lens(static_cast<std::size_t>(batch));
    if (inputs[kSeqLens].random) {
      lens = draw_seq_lens(batch, max_pages, input_seed(seed, kSeqLens));
      site.upload(inputs[kSeqLens].data, lens.data(), lens.size() * sizeof(std::int32_t));
    } else if (inputs[kBlockTable].random) {
      site.download(lens.data(), inputs[kSeqLens].data, lens.size() * sizeof(std::int32_t));
    }
    if (inputs[kBlockTable].random) {
      const std::vector<std::int32_t> table =
          draw_block_table(lens, max_pages, num_pages, input_seed(seed, kBlockTable));
      site.upload(inputs[kBlockTable].data, table.data(), table.size() * sizeof(std::int32_t));
    }
    if (inputs[kKeyCache].random) {
      const std::uint64_t key_seed = input_seed(seed, kKeyCache);
      const detail::ZigguratTables& zt = detail::ziggurat_tables();
      const dsa_topk_inputs::KeyCacheStep step{
          static_cast<unsigned char*>(inputs[kKeyCache].data),
          code_table(site),
          stream_key(key_seed, 1),
          stream_key(key_seed, 2),
          stream_key(key_seed, 3),
          static_cast<const detail::ZigguratTables*>(site.table("ziggurat", &zt, sizeof zt))};
      run_steps(site, static_cast<std::uint64_t>(num_pages) * (dsa_topk_inputs::kWordsPerPage + kPageTokens),
                step, KH_DEVICE_LAUNCH(dsa_topk_inputs::launch_key_cache));
    }
    if (inputs[kQ].random) {
      const InputSlot& q = inputs[kQ];
      const dsa_topk_inputs::CodeStep step{static_cast<unsigned char*>(q.data), q.bytes, code_table(site),
                                           stream_key(input_seed(seed, kQ), 1)};
      run_steps(site, (q.bytes + 3) / 4, step, KH_DEVICE_LAUNCH(dsa_topk_inputs::launch_codes));
    }
    if (inputs[kWeights].random) {
      const InputSlot& w = inputs[kWeights];
      site.fill({{w.data, w.dtype, w.numel,
                  normal_rule(DType::float32, input_seed(seed, kWeights), 0.0, kWeightStd)}});
    }
  }

  [[nodiscard]] bool replaces(std::string_view input) const override {
    return input == "q_index_fp8" || input == "k_index_cache_fp8" || input == "weights" ||
           input == "seq_lens" || input == "block_table";
  }
};

}  // namespace

std::shared_ptr<const StructuredInputs> make_dsa_topk_inputs() { return std::make_shared<DsaTopkInputs>(); }

void register_harness_dsa_topk_indexer_fp8_h64_d128_topk2048_ps64() {
  register_structured_inputs("dsa_topk_indexer_fp8_h64_d128_topk2048_ps64", make_dsa_topk_inputs());
  register_output_checker("topk_indexer", [] { return std::make_unique<TopkIndexerChecker>(); });
}

}  // namespace kh
