#include "softmax_h4096/harness/softmax_inputs.h"

#include <fmt/format.h>

#include "error/error.h"
#include "eval/generation_dispatch.h"
#include "eval/input_generator.h"
#include "tensor/random_fill.h"
#include "tensor/standard_normal.h"

namespace kh {

namespace {

using softmax_inputs::ElementStep;
using softmax_inputs::RowStep;

class SoftmaxInputs final : public StructuredInputs {
 public:
  void generate(const InputRequest& request, GenerationSite& site,
                std::vector<InputSlot>& inputs) const override {
    if (inputs.size() != 1 || inputs[0].dtype != DType::float32 || inputs[0].shape.size() != 2) {
      throw Error(Location{"", 0, "inputs"},
                  fmt::format("softmax inputs: definition '{}' must have one float32 [rows, cols] input",
                              request.definition.name));
    }
    InputSlot& x = inputs[0];
    if (!x.random) return;  // a loaded x is the workload's own data
    const auto rows = static_cast<std::uint64_t>(x.shape[0]);
    const auto cols = static_cast<std::uint64_t>(x.shape[1]);
    auto* parameters = static_cast<float*>(site.scratch(2 * rows * sizeof(float)));
    const detail::ZigguratTables& zt = detail::ziggurat_tables();
    const RowStep row{parameters,
                      stream_key(input_seed(request.seed, 0), softmax_inputs::kRowParameterStream)};
    const ElementStep element{
        x.as<float>(), parameters, cols, default_rule(DType::float32, input_seed(request.seed, 0)),
        static_cast<const detail::ZigguratTables*>(site.table("ziggurat", &zt, sizeof zt))};
    run_steps(site, rows, row, KH_DEVICE_LAUNCH(softmax_inputs::launch_row_steps));
    run_steps(site, rows * cols, element, KH_DEVICE_LAUNCH(softmax_inputs::launch_element_steps));
  }

  [[nodiscard]] bool replaces(std::string_view input) const override { return input == "x"; }
};

}  // namespace

std::shared_ptr<const StructuredInputs> make_softmax_inputs() { return std::make_shared<SoftmaxInputs>(); }

void register_harness_softmax_h4096() { register_structured_inputs("softmax_h4096", make_softmax_inputs()); }

}  // namespace kh
