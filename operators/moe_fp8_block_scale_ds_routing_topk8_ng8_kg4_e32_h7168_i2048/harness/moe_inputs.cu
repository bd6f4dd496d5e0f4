#include "eval/device_generation_loop.cuh"
#include "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048/harness/moe_steps.h"

namespace kh::moe_inputs {

// A token keeps 256 scores and flags in local memory: small blocks.
void launch_routing(const RoutingStep& step, std::uint64_t tokens, void* stream) {
  run_steps_on_device(tokens, step, stream, 64);
}

void launch_codes(const CodeStep& step, std::uint64_t words, void* stream) {
  run_steps_on_device(words, step, stream);
}

void launch_scales(const ScaleStep& step, std::uint64_t n, void* stream) {
  run_steps_on_device(n, step, stream);
}

}  // namespace kh::moe_inputs
