// make_inputs with a structured-input generator: the generic fill still runs for the
// random inputs the generator only adjusts, and is skipped for those it declares it
// replaces (so a gigabyte of weights is not filled twice).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "eval/input_generator.h"
#include "trace/json_io.h"

namespace kh {
namespace {

constexpr char kDefinition[] = R"({
  "name": "kh_test_replaced_inputs", "op_type": "kh_test",
  "axes": {"n": {"type": "const", "value": 64}},
  "inputs": {"kept": {"shape": ["n"], "dtype": "float32"}, "replaced": {"shape": ["n"], "dtype": "float32"}},
  "outputs": {"out": {"shape": ["n"], "dtype": "float32"}},
  "reference": "def run(kept, replaced):\n    return kept\n"
})";

// Records what each input held when generate() was called, then writes 7 into "replaced".
class RecordingInputs final : public StructuredInputs {
 public:
  mutable std::vector<std::vector<float>> seen;
  void generate(const InputRequest& /*request*/, GenerationSite& /*site*/,
                std::vector<InputSlot>& inputs) const override {
    seen.clear();
    for (const InputSlot& s : inputs) seen.emplace_back(s.as<float>(), s.as<float>() + s.numel);
    if (inputs[1].random) std::fill(inputs[1].as<float>(), inputs[1].as<float>() + inputs[1].numel, 7.0f);
  }
  [[nodiscard]] bool replaces(std::string_view input) const override { return input == "replaced"; }
};

TEST(StructuredInputs, GenericFillSkipsOnlyTheInputsTheGeneratorReplaces) {
  const Definition d = parse_definition(kDefinition);
  const Workload w = read_workload(ordered_json::parse(
      R"({"uuid": "u", "axes": {}, "inputs": {"kept": {"type": "random"}, "replaced": {"type": "random"}}})"));
  auto generator = std::make_shared<RecordingInputs>();
  register_structured_inputs(d.name, generator);
  const std::vector<HostTensor> in = make_inputs(d, w, 42, ".");
  ASSERT_EQ(generator->seen.size(), 2u);
  const std::vector<float>& kept = generator->seen[0];
  const std::vector<float>& replaced = generator->seen[1];
  EXPECT_TRUE(std::ranges::any_of(kept, [](float v) { return v != 0.0f; })) << "the generic fill ran";
  EXPECT_TRUE(std::ranges::all_of(replaced, [](float v) { return v == 0.0f; }))
      << "the generic fill was skipped";
  EXPECT_TRUE(std::ranges::all_of(in[1].as<float>(), [](float v) { return v == 7.0f; }));
}

}  // namespace
}  // namespace kh
