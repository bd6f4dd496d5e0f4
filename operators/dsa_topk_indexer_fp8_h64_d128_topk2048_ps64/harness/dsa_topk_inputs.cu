#include "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64/harness/dsa_topk_steps.h"
#include "eval/device_generation_loop.cuh"

namespace kh::dsa_topk_inputs {

void launch_key_cache(const KeyCacheStep& step, std::uint64_t items, void* stream) {
  run_steps_on_device(items, step, stream);
}

void launch_codes(const CodeStep& step, std::uint64_t words, void* stream) {
  run_steps_on_device(words, step, stream);
}

}  // namespace kh::dsa_topk_inputs
