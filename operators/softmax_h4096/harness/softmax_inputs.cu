#include "eval/device_generation_loop.cuh"
#include "softmax_h4096/harness/softmax_steps.h"

namespace kh::softmax_inputs {

void launch_row_steps(const RowStep& step, std::uint64_t rows, void* stream) {
  run_steps_on_device(rows, step, stream);
}

void launch_element_steps(const ElementStep& step, std::uint64_t elements, void* stream) {
  run_steps_on_device(elements, step, stream);
}

}  // namespace kh::softmax_inputs
