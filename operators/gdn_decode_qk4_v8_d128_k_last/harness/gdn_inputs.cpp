#include "gdn_decode_qk4_v8_d128_k_last/harness/gdn_inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string_view>
#include <utility>

#include "error/error.h"
#include "eval/generation_dispatch.h"
#include "tensor/counter_rng.h"
#include "tensor/random_fill.h"
#include "tensor/standard_normal.h"

namespace kh {

namespace {

using gdn_inputs::kHeadSize;

void expect(bool ok, const std::string& what) {
  if (!ok) throw Error(Location{"", 0, "gdn inputs"}, what);
}

void expect_dtype(const InputSlot& s, DType dtype) {
  expect(s.dtype == dtype,
         fmt::format("input '{}' is {}, expected {}", s.name, dtype_name(s.dtype), dtype_name(dtype)));
}

// Lengths when every sequence gets a token: one each, the rest by log-normal weights
// (floored), and the tokens the flooring left over one by one to random sequences.
std::vector<std::int64_t> skewed_lengths(std::int64_t total, std::int64_t num_seqs, std::uint64_t seed) {
  const NormalStream normal(stream_key(seed, 1), stream_key(seed, 2));
  const std::uint64_t pick = stream_key(seed, 3);
  std::vector<double> weight(static_cast<std::size_t>(num_seqs));
  for (std::size_t i = 0; i < weight.size(); ++i)
    weight[i] = detail::portable_exp(gdn_inputs::kLengthSigma * normal(i));
  const double sum = std::accumulate(weight.begin(), weight.end(), 0.0);
  const std::int64_t rest = total - num_seqs;
  std::vector<std::int64_t> lengths(weight.size());
  std::int64_t given = 0;
  for (std::size_t i = 0; i < weight.size(); ++i) {
    lengths[i] = 1 + static_cast<std::int64_t>(std::floor(static_cast<double>(rest) * weight[i] / sum));
    given += lengths[i];
  }
  for (std::uint64_t n = 0; given < total; ++n, ++given)
    ++lengths[random_word(pick, n) % static_cast<std::uint64_t>(num_seqs)];
  // Rounding of the weights can overshoot by a token in rare cases: take it back from the longest.
  while (given > total) {
    --*std::max_element(lengths.begin(), lengths.end());
    --given;
  }
  return lengths;
}

// Fewer tokens than sequences: `total` distinct sequences (a random choice) get one token.
std::vector<std::int64_t> sparse_lengths(std::int64_t total, std::int64_t num_seqs, std::uint64_t seed) {
  const std::uint64_t pick = stream_key(seed, 4);
  std::vector<std::int64_t> order(static_cast<std::size_t>(num_seqs));
  std::iota(order.begin(), order.end(), 0);
  for (std::size_t i = order.size(); i > 1; --i)  // Fisher-Yates
    std::swap(order[i - 1], order[random_word(pick, i) % i]);
  std::vector<std::int64_t> lengths(order.size(), 0);
  for (std::int64_t i = 0; i < total; ++i)
    lengths[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])] = 1;
  return lengths;
}

// cu_seqlens: the running sum is sequential and tiny (num_seqs + 1 values), so it is made
// on the host and uploaded.
void fill_cu_seqlens(GenerationSite& site, InputSlot& cu, std::int64_t total, std::uint64_t seed) {
  expect_dtype(cu, DType::int64);
  expect(cu.numel >= 1, "input 'cu_seqlens' needs at least one entry");
  const auto num_seqs = static_cast<std::int64_t>(cu.numel) - 1;
  expect(num_seqs > 0 || total == 0, fmt::format("{} tokens cannot be split into 0 sequences", total));
  const std::vector<std::int64_t> lengths = gdn_sequence_lengths(total, num_seqs, seed);
  std::vector<std::int64_t> values(cu.numel, 0);
  std::partial_sum(lengths.begin(), lengths.end(), values.begin() + 1);
  site.upload(cu.data, values.data(), values.size() * sizeof(std::int64_t));
}

class GdnInputs final : public StructuredInputs {
 public:
  void generate(const InputRequest& request, GenerationSite& site,
                std::vector<InputSlot>& inputs) const override {
    auto owned = [&](std::string_view name) -> InputSlot* {
      InputSlot* s = find_input(inputs, name);
      return s != nullptr && s->random ? s : nullptr;
    };
    auto seed_of = [&](const InputSlot& s) {
      return input_seed(request.seed, static_cast<std::size_t>(&s - inputs.data()));
    };
    const detail::ZigguratTables& zt = detail::ziggurat_tables();
    const auto* tables = static_cast<const detail::ZigguratTables*>(site.table("ziggurat", &zt, sizeof zt));
    for (std::string_view name : {"q", "k"}) {
      InputSlot* t = owned(name);
      if (t == nullptr) continue;
      expect_dtype(*t, DType::bfloat16);
      expect(t->numel % kHeadSize == 0, fmt::format("input '{}' is not made of rows of {}", name, kHeadSize));
      const gdn_inputs::UnitRowStep step{t->as<std::uint16_t>(), default_rule(DType::bfloat16, seed_of(*t)),
                                         tables};
      run_steps(site, t->numel / kHeadSize, step, KH_DEVICE_LAUNCH(gdn_inputs::launch_unit_rows), 1024);
    }
    if (InputSlot* t = owned("state")) {
      expect_dtype(*t, DType::float32);
      site.fill({{t->data, t->dtype, t->numel,
                  normal_rule(DType::float32, seed_of(*t), 0.0, gdn_inputs::kStateStd)}});
    }
    if (InputSlot* t = owned("A_log")) {
      expect_dtype(*t, DType::float32);
      run_steps(site, t->numel, gdn_inputs::DecayStep{t->as<float>(), stream_key(seed_of(*t), 0)},
                KH_DEVICE_LAUNCH(gdn_inputs::launch_decay));
    }
    if (InputSlot* t = owned("dt_bias")) {
      expect_dtype(*t, DType::float32);
      run_steps(site, t->numel, gdn_inputs::DtBiasStep{t->as<float>(), stream_key(seed_of(*t), 0)},
                KH_DEVICE_LAUNCH(gdn_inputs::launch_dt_bias));
    }
    if (InputSlot* t = owned("cu_seqlens")) {
      const InputSlot* q = find_input(inputs, "q");
      expect(q != nullptr, "the definition has cu_seqlens but no input 'q' to count tokens");
      fill_cu_seqlens(site, *t, q->shape.at(0), seed_of(*t));
    }
  }

  [[nodiscard]] bool replaces(std::string_view input) const override {
    return input == "q" || input == "k" || input == "state" || input == "A_log" || input == "dt_bias" ||
           input == "cu_seqlens";
  }
};

}  // namespace

std::vector<std::int64_t> gdn_sequence_lengths(std::int64_t total, std::int64_t num_seqs,
                                               std::uint64_t seed) {
  expect(total >= 0 && num_seqs >= 0,
         fmt::format("bad split of {} tokens into {} sequences", total, num_seqs));
  if (num_seqs == 0) return {};
  return total >= num_seqs ? skewed_lengths(total, num_seqs, seed) : sparse_lengths(total, num_seqs, seed);
}

std::shared_ptr<const StructuredInputs> make_gdn_inputs() { return std::make_shared<GdnInputs>(); }

void register_harness_gdn_decode_qk4_v8_d128_k_last() {
  register_structured_inputs("gdn_decode_qk4_v8_d128_k_last", make_gdn_inputs());
}

}  // namespace kh
