// gdn_prefill lane8: the token-by-token gated delta rule with a shorter per-token critical
// path than the baseline (measured ~0.6-0.8 us per token of the longest sequence on H200).
//  - A k-last state row (128 floats) is split over 8 lanes x 16 floats instead of 32 lanes x
//    4: the k.S / q.S / q.k reductions take 3 shuffle levels (9 SHFL per token per lane)
//    instead of 5 levels x 9 values = 45 SHFL for the baseline's 4 rows a warp; a warp still
//    owns 4 rows (4 groups of 8 lanes), with 16 state floats per lane.
//  - The gates (exp, log1p, exp, sigmoid: ~60 instructions) are computed once per token per
//    warp, lane-parallel (lane l: token t0+l of a 32-token chunk), not on every step.
//  - k and q of a 32-token chunk are staged in shared memory with cp.async, double buffered
//    (one chunk ahead), a, b and v one chunk ahead in registers; outputs are gathered per
//    chunk and stored as 8-byte rows (4 v rows) instead of 2-byte stores per step.
// Per token a lane issues ~16 LDS/SHFL + ~70 FP ops (baseline ~300 instructions a warp for
// 4 rows); the dependency chain is 4 FMA + 2 FADD + 3 SHFL + ~4 FP ops (~130 cycles).
// Expected 3-5x on the long sequences (952x1: 769 -> ~150-250 us; 6215x5: 2439 -> ~600 us).
// Math is the baseline's: old = g (k.S), delta = beta (v - old), S' = g S + k delta,
// out = scale (g (q.S) + (q.k) delta), float32 throughout.
// The kernel itself: gdn_prefill_lane8.cuh (operator folder), shared with later candidates.
#include <kharness/kernel.h>

#include "gdn_prefill_lane8.cuh"

void gdn_prefill_lane8(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                       const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias, const DLTensor* b,
                       const DLTensor* cu_seqlens, float scale, DLTensor* output, DLTensor* new_state,
                       kh_stream_t stream) {
  const int64_t num_seqs = cu_seqlens->shape[0] - 1;
  if (num_seqs <= 0) return;
  gdn_lane8::launch(
      gdn_lane8::prefill_args(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state),
      num_seqs, stream);
}
