#include "eval/inputs/builtin_inputs.h"

#include <mutex>

#include "eval/input_generator.h"
#include "eval/inputs/gdn_inputs.h"

namespace kh {

void register_builtin_inputs() {
  static std::once_flag once;
  std::call_once(once, [] {
    // One line per operator: register_structured_inputs("<definition name>", make_..._inputs());
    register_structured_inputs("gdn_decode_qk4_v8_d128_k_last", make_gdn_inputs());
    register_structured_inputs("gdn_prefill_qk4_v8_d128_k_last", make_gdn_inputs());
  });
}

}  // namespace kh
