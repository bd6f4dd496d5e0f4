// gdn_prefill ksplit_rows16: chunk_ksplit (promoted over lane8, 1.24x) with a leaner pass.
//
// Why: ncu of chunk_ksplit's pass on one sequence of 8192 tokens shows it issue-bound, not
// mma-bound: 4.5% of the GPU's issue slots busy, HMMA 6.5% of the instructions, and most of
// the rest the staging's index math (a division and selects a 16-byte copy); 32 blocks of
// 32 V rows keep 32 of 132 SMs busy. gdn_chunk_pass.cuh now stages with compile-time
// offsets (an add a copy) and launches 16 V rows a block while one wave still covers the
// SMs (64 blocks for one sequence).
// Expected: the pass 1.5-2x faster on a few long sequences, the same elsewhere.

#include <kharness/kernel.h>

#include "gdn_chunk_pass.cuh"

void gdn_prefill_ksplit_rows16(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                               const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias,
                               const DLTensor* b, const DLTensor* cu_seqlens, float scale, DLTensor* output,
                               DLTensor* new_state, kh_stream_t stream) {
  gdn_chunk_tc::run<2, gdn_chunk_tc::launch_prep, true>(
      gdn_lane8::prefill_args(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state),
      cu_seqlens->shape[0] - 1, q->shape[0], stream);
}
