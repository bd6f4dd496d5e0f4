// gdn_prefill ksplit_lane24: chunk_ksplit (promoted) handing calls to lane8 up to a mean of 24
// tokens a sequence or 128 tokens in all, instead of 8 and 32.
//
// Why: the chunked path costs ~30-40 us before its first chunk (two launches, the
// preparation's block latency, the scratch), where lane8 takes ~0.25 us a token of the longest
// sequence. Over the 100 contest workloads (2026-12-05: lane8's sweep of call 1 against
// chunk_ksplit's of call 3) chunk_ksplit lost on 24 batches of 8-34 tokens a sequence (e.g.
// 13 sequences of ~9 tokens: 40 us against 16 us); loop/dispatch_threshold.py put the best
// rule of its grid at (24, 128): mean 77.9 -> 73.6 us, the oracle 73.2 us.
// Expected: the loop set's 118/13 workload at lane8's ~16 us, the others unchanged.

#include <kharness/kernel.h>

#include "gdn_chunk_pass.cuh"

void gdn_prefill_ksplit_lane24(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                               const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias,
                               const DLTensor* b, const DLTensor* cu_seqlens, float scale, DLTensor* output,
                               DLTensor* new_state, kh_stream_t stream) {
  gdn_chunk_tc::run<2, gdn_chunk_tc::launch_prep, false, 24, 128>(
      gdn_lane8::prefill_args(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state),
      cu_seqlens->shape[0] - 1, q->shape[0], stream);
}
