// gdn_prefill shares gdn_decode's generator (it finds its inputs by name, cu_seqlens
// included): one generator, registered under both definitions.
#include "gdn_decode_qk4_v8_d128_k_last/harness/gdn_inputs.h"

namespace kh {

void register_harness_gdn_prefill_qk4_v8_d128_k_last() {
  register_structured_inputs("gdn_prefill_qk4_v8_d128_k_last", make_gdn_inputs());
}

}  // namespace kh
