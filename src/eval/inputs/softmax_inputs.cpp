#include "eval/inputs/softmax_inputs.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <span>

#include "error/error.h"
#include "tensor/counter_rng.h"

namespace kh {
namespace {

// Counter stream of the per-row shift and scale, apart from the fill's own streams.
constexpr std::uint64_t kRowParameterStream = 0x50f7;

class SoftmaxInputs final : public StructuredInputs {
 public:
  void generate(const Definition& definition, const AxisValues& /*axes*/, std::uint64_t seed,
                std::vector<HostTensor>& inputs, const std::vector<bool>& random) const override {
    if (inputs.size() != 1 || inputs[0].dtype() != DType::float32 || inputs[0].shape().size() != 2) {
      throw Error(Location{"", 0, "inputs"},
                  fmt::format("softmax inputs: definition '{}' must have one float32 [rows, cols] input",
                              definition.name));
    }
    if (!random[0]) return;  // a loaded x is the workload's own data
    HostTensor& x = inputs[0];
    const std::int64_t rows = x.shape()[0];
    const std::int64_t cols = x.shape()[1];
    const std::span<float> values = x.as<float>();
    const std::uint64_t key = stream_key(input_seed(seed, 0), kRowParameterStream);
    for (std::int64_t r = 0; r < rows; ++r) {
      const auto u = static_cast<std::uint64_t>(r);
      const auto shift =
          static_cast<float>(kSoftmaxMaxShift * (2 * unit_double(random_word(key, 2 * u)) - 1));
      const auto scale =
          static_cast<float>(std::pow(kSoftmaxMaxScale, unit_double(random_word(key, 2 * u + 1))));
      float* row = values.data() + r * cols;
      for (std::int64_t c = 0; c < cols; ++c) row[c] = shift + scale * row[c];
    }
  }
};

}  // namespace

std::shared_ptr<const StructuredInputs> make_softmax_inputs() { return std::make_shared<SoftmaxInputs>(); }

}  // namespace kh
