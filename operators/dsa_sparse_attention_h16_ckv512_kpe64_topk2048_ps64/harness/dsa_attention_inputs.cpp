#include "dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64/harness/dsa_attention_inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "error/error.h"
#include "tensor/counter_rng.h"

namespace kh {

namespace {

// A sequential view of one counter-based stream.
class Draws {
 public:
  explicit Draws(std::uint64_t key) : key_(key) {}
  std::uint64_t word() { return random_word(key_, counter_++); }
  // Uniform in [0, bound), bound > 0 (multiply-shift; the bias is below bound / 2^64).
  std::int64_t below(std::int64_t bound) {
    __extension__ typedef unsigned __int128 U128;
    return static_cast<std::int64_t>((static_cast<U128>(word()) * static_cast<std::uint64_t>(bound)) >> 64);
  }
  double unit() { return unit_double(word()); }

 private:
  std::uint64_t key_;
  std::uint64_t counter_ = 0;
};

template <class T>
void shuffle(std::span<T> v, Draws& draws) {
  for (std::size_t i = v.size(); i > 1; --i)
    std::swap(v[i - 1], v[static_cast<std::size_t>(draws.below(std::int64_t(i)))]);
}

struct Layout {
  std::int64_t tokens, pages, page_size, topk;
};

std::int64_t axis(const AxisValues& axes, const char* name) {
  auto it = axes.find(name);
  if (it == axes.end())
    throw Error(fmt::format("dsa attention inputs: the definition has no axis '{}'", name));
  return it->second;
}

// The pages of token t: a contiguous run of the shuffled pool.
std::span<const std::int64_t> token_pages(const std::vector<std::int64_t>& pool, const Layout& l,
                                          std::int64_t t) {
  const std::int64_t per_token = std::max<std::int64_t>(1, l.pages / l.tokens);
  const std::int64_t first = t * per_token;
  if (first >= l.pages) return {};
  return std::span<const std::int64_t>(pool).subspan(
      static_cast<std::size_t>(first), static_cast<std::size_t>(std::min(per_token, l.pages - first)));
}

// Uniform in [capacity * 3/4, capacity]: the pool was sized for the batch's contexts with
// a little slack, so a context fills most of its pages.
std::int64_t context_length(std::int64_t capacity, Draws& draws) {
  if (capacity == 0) return 0;
  const std::int64_t shortest = std::max<std::int64_t>(1, (3 * capacity + 3) / 4);
  return shortest + draws.below(capacity - shortest + 1);
}

// min(context, topk) distinct positions in [0, context), in random order.
std::vector<std::int64_t> chosen_positions(std::int64_t context, std::int64_t topk, Draws& draws) {
  std::vector<std::int64_t> chosen;
  chosen.reserve(static_cast<std::size_t>(std::min(context, topk)));
  // Selection sampling: position p is taken with probability still_needed / still_left.
  for (std::int64_t p = 0; p < context && static_cast<std::int64_t>(chosen.size()) < topk; ++p) {
    const std::int64_t needed = std::min(context, topk) - static_cast<std::int64_t>(chosen.size());
    if (draws.below(context - p) < needed) chosen.push_back(p);
  }
  shuffle(std::span<std::int64_t>(chosen), draws);
  return chosen;
}

void fill_token(std::span<std::int32_t> list, std::span<const std::int64_t> pages, const Layout& l,
                std::int64_t t, Draws& draws) {
  const std::int64_t context = context_length(static_cast<std::int64_t>(pages.size()) * l.page_size, draws);
  const std::vector<std::int64_t> chosen = chosen_positions(context, l.topk, draws);
  std::fill(list.begin(), list.end(), -1);
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    const std::int64_t page = pages[static_cast<std::size_t>(chosen[i] / l.page_size)];
    list[i] = static_cast<std::int32_t>(page * l.page_size + chosen[i] % l.page_size);
  }
  const bool padded = static_cast<std::int64_t>(chosen.size()) < l.topk;
  if (padded && t % 2 == 1) shuffle(list, draws);
}

class DsaAttentionInputs final : public StructuredInputs {
 public:
  void generate(const InputRequest& request, GenerationSite& site,
                std::vector<InputSlot>& inputs) const override {
    InputSlot& indices = input_named(inputs, "sparse_indices", "dsa attention inputs");
    if (!indices.random) return;  // loaded or given by the workload
    const Layout l{axis(request.axes, "num_tokens"), axis(request.axes, "num_pages"),
                   axis(request.axes, "page_size"), axis(request.axes, "topk")};
    if (l.tokens == 0) return;
    if (l.pages * l.page_size > (std::int64_t{1} << 31)) {
      throw Error(fmt::format("dsa attention inputs: {} pages of {} rows do not fit int32 indices", l.pages,
                              l.page_size));
    }
    const std::uint64_t base = input_seed(request.seed, static_cast<std::size_t>(&indices - inputs.data()));
    std::vector<std::int64_t> pool(static_cast<std::size_t>(l.pages));
    for (std::int64_t p = 0; p < l.pages; ++p) pool[static_cast<std::size_t>(p)] = p;
    Draws pool_draws(stream_key(base, 0));
    shuffle(std::span<std::int64_t>(pool), pool_draws);
    std::vector<std::int32_t> lists(indices.numel);
    for (std::int64_t t = 0; t < l.tokens; ++t) {
      Draws draws(stream_key(base, static_cast<std::uint64_t>(t) + 1));
      fill_token(
          std::span(lists).subspan(static_cast<std::size_t>(t * l.topk), static_cast<std::size_t>(l.topk)),
          token_pages(pool, l, t), l, t, draws);
    }
    site.upload(indices.data, lists.data(), lists.size() * sizeof(std::int32_t));
  }

  [[nodiscard]] bool replaces(std::string_view input) const override { return input == "sparse_indices"; }
};

}  // namespace

std::shared_ptr<const StructuredInputs> make_dsa_attention_inputs() {
  return std::make_shared<DsaAttentionInputs>();
}

void register_harness_dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64() {
  register_structured_inputs("dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64",
                             make_dsa_attention_inputs());
}

}  // namespace kh
