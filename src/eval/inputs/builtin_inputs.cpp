#include "eval/inputs/builtin_inputs.h"

#include <mutex>

#include "eval/input_generator.h"
#include "eval/inputs/softmax_inputs.h"

namespace kh {

void register_builtin_inputs() {
  static std::once_flag once;
  std::call_once(once, [] {
    // One line per operator: register_structured_inputs("<definition name>", make_..._inputs());
    register_structured_inputs("softmax_h4096", make_softmax_inputs());
  });
}

}  // namespace kh
