#include "eval/device_generation_loop.cuh"
#include "gdn_decode_qk4_v8_d128_k_last/harness/gdn_steps.h"

namespace kh::gdn_inputs {

// A row keeps its 128 values in registers: 128 threads a block keep the spill small.
void launch_unit_rows(const UnitRowStep& step, std::uint64_t rows, void* stream) {
  run_steps_on_device(rows, step, stream, 128);
}

void launch_decay(const DecayStep& step, std::uint64_t n, void* stream) {
  run_steps_on_device(n, step, stream);
}

void launch_dt_bias(const DtBiasStep& step, std::uint64_t n, void* stream) {
  run_steps_on_device(n, step, stream);
}

}  // namespace kh::gdn_inputs
