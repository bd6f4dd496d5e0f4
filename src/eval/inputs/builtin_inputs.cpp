#include "eval/inputs/builtin_inputs.h"

#include <mutex>

#include "eval/input_generator.h"
#include "eval/inputs/moe_inputs.h"

namespace kh {

void register_builtin_inputs() {
  static std::once_flag once;
  std::call_once(once, [] {
    // One line per operator: register_structured_inputs("<definition name>", make_..._inputs());
    register_structured_inputs("moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048",
                               make_moe_inputs());
  });
}

}  // namespace kh
