#include "eval/inputs/builtin_inputs.h"

#include <mutex>

#include "eval/input_generator.h"
#include "eval/inputs/dsa_attention_inputs.h"
#include "eval/inputs/dsa_topk_inputs.h"
#include "eval/inputs/gdn_inputs.h"
#include "eval/inputs/moe_inputs.h"
#include "eval/inputs/softmax_inputs.h"

namespace kh {

void register_builtin_inputs() {
  static std::once_flag once;
  std::call_once(once, [] {
    // One line per operator: register_structured_inputs("<definition name>", make_..._inputs());
    register_structured_inputs("softmax_h4096", make_softmax_inputs());
    register_structured_inputs("dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64",
                               make_dsa_attention_inputs());
    register_structured_inputs("dsa_topk_indexer_fp8_h64_d128_topk2048_ps64", make_dsa_topk_inputs());
    register_structured_inputs("gdn_decode_qk4_v8_d128_k_last", make_gdn_inputs());
    register_structured_inputs("gdn_prefill_qk4_v8_d128_k_last", make_gdn_inputs());
    register_structured_inputs("moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048",
                               make_moe_inputs());
  });
}

}  // namespace kh
