// gdn_prefill ksplit_lean24: ksplit_rows16's lean pass with ksplit_lane24's dispatch (calls up to
// a mean of 24 tokens a sequence or 128 tokens in all go to lane8). Both are staged `explore`
// on chunk_ksplit, so a loop promotes at most one of them in its first round; this is the other
// half for the exploit round after it, whichever won.
//
// Why: the two act on different workloads: the dispatch on short batches, where the chunked
// path's fixed ~30-40 us loses to lane8 (dispatch_threshold.py: 77.9 -> 73.6 us over the 100),
// the lean pass on long ones (chunk_check on the H200: the pass on 8192 tokens 393 -> 232 us).
// Expected: below both parents; the threshold was fitted to chunk_ksplit's pass, and a faster
// pass may move the best one lower (rerun dispatch_threshold.py on this candidate's sweep).

#include <kharness/kernel.h>

#include "gdn_chunk_pass.cuh"

void gdn_prefill_ksplit_lean24(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                               const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias,
                               const DLTensor* b, const DLTensor* cu_seqlens, float scale, DLTensor* output,
                               DLTensor* new_state, kh_stream_t stream) {
  gdn_chunk_tc::run<2, gdn_chunk_tc::launch_prep, true, 24, 128>(
      gdn_lane8::prefill_args(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state),
      cu_seqlens->shape[0] - 1, q->shape[0], stream);
}
