// gdn_prefill chunk_ksplit: chunk_tc with the K columns of the state split over a pair of
// warps, to halve the sequential path of a chunk.
//
// Why: in chunk_tc one warp carries 16 V rows of S^T over all 128 K columns and issues every
// product of the chunk on them (~210 mma.sync, ~110 ldmatrix.x4, in order), so a chunk step
// is one warp's instruction stream (estimate ~0.7-0.9 us; 128 steps for 8192 tokens). Here
// the two warps of a pair hold K columns 0-63 and 64-127 of the same 16 rows: each computes
// its partial U = U^ - W S and Q S over its half (32 + 32 mma), the pair adds the partials
// through shared memory under a barrier of the pair (bar.sync, 64 threads; 6 KB a warp), each
// finishes the output of 32 of the chunk's tokens (P U, ~10 mma) and updates its own half of
// the state (32 mma): ~106 mma a warp a chunk, twice the warps in flight.
// Expected: the pass ~1.6-1.9x faster than chunk_tc's on long sequences (8192 tokens:
// ~100-130 us -> ~60-80 us with the prep), the same on batches of many short ones.
// The math, the prep kernel, the scratch and the precision are chunk_tc's (its notes).
#include <kharness/kernel.h>

#include "gdn_chunk_pass.cuh"

void gdn_prefill_chunk_ksplit(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                              const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias,
                              const DLTensor* b, const DLTensor* cu_seqlens, float scale, DLTensor* output,
                              DLTensor* new_state, kh_stream_t stream) {
  gdn_chunk_tc::run<2>(
      gdn_lane8::prefill_args(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state),
      cu_seqlens->shape[0] - 1, q->shape[0], stream);
}
