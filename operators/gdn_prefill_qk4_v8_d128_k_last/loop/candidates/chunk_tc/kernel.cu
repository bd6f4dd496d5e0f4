// gdn_prefill chunk_tc: the chunkwise-parallel (WY) gated delta rule with its per-chunk
// products on the tensor cores (mma.sync m16n8k16, fp16 operands, fp32 accumulators), the
// state carried in fp32 registers across chunks.
//
// Why: lane8 pays ~0.25 us a token of the longest sequence (8192 tokens: 2.07 ms), and
// chunk64 (the same algorithm on fp32 CUDA cores) ~22 us a 64-token chunk. Here a chunk
// costs a warp ~210 mma.sync and ~110 ldmatrix.x4 (estimate ~0.7-0.9 us on an H200), so
// 8192 tokens take ~100-130 us.
//
// Per chunk of L <= 64 tokens of one v head, with lg_t the cumulative log-decay and
// S = state^T [K, V] at the chunk start (as in chunk64):
//   A[t][s] = beta_t exp(lg_t - lg_s) k_t.k_s (s < t),   P[t][s] = exp(lg_t - lg_s) q_t.k_s (s <= t)
//   (I + A) W = diag(beta exp(lg)) K,   (I + A) U^ = diag(beta) V
//   U   = U^ - W S                                      (the tokens' beta (v - old))
//   O   = scale (diag(exp(lg)) Q S + P U)
//   S'  = exp(lg_L) S + K^T diag(exp(lg_L - lg)) U
// Kernel 1 (prep), all (chunk, v head) pairs at once: K K^T and Q K^T by bf16 mma (exact
// products of the bf16 inputs), forward substitution in fp32 (one column of [W | U^] a
// thread), then W, U^ (transposed), P in fp16 and lg in fp32 to stream-ordered scratch, and
// fp16 copies of the chunk's q and k once per q/k head.
// Kernel 2 (pass), one block per (sequence, v head, 16 x kWarps V rows), sequential over the
// sequence's chunks: each warp keeps its 16 rows of S^T (16 x 128 fp32, 64 registers a
// thread) as mma accumulators, which convert in place to the A operand of the next chunk's
// products (the accumulator and A layouts of m16n8k16 agree row by row); the chunk's W, Q,
// K, P, U^ arrive by cp.async one chunk ahead.
//
// Precision (the operator's chunk_precision.py, a CPU emulation under its input generator,
// 200-8192 tokens, 4 seeds): fp16 operands (W, U^, P, q, k, S and U in the products) stay
// within 6.3e-4 of the exact state and 5.1e-4 of the output (tolerance atol 5e-3, rtol 1e-2);
// bf16 operands reach 4.9e-3 on the state, at the edge, so fp16 it is (q and k are bf16
// inputs: exact in fp16 at these magnitudes).
// Batches whose sequences are surely short (mean under 8 tokens, or 32 tokens in all) take
// lane8, which pads nothing (gdn_chunk_pass.cuh, run: why not up to a mean of 64).

// The kernels: the operator's gdn_chunk_prep.cuh and gdn_chunk_pass.cuh (kSplit 1: a warp
// holds all 128 K columns of its 16 V rows), shared with chunk_ksplit.
#include <kharness/kernel.h>

#include "gdn_chunk_pass.cuh"

void gdn_prefill_chunk_tc(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                          const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias,
                          const DLTensor* b, const DLTensor* cu_seqlens, float scale, DLTensor* output,
                          DLTensor* new_state, kh_stream_t stream) {
  gdn_chunk_tc::run<1>(
      gdn_lane8::prefill_args(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state),
      cu_seqlens->shape[0] - 1, q->shape[0], stream);
}
