// Tensor-core split-K DSA sparse attention (mma.sync m16n8k16 bf16 -> fp32), plain
// 32-bit shared loads for every fragment (no ldmatrix), plus a parallel combine kernel.
//
// Why faster than the baseline (CUDA cores, 33 us mean on the H200):
//  - The 16 heads are exactly the M=16 of mma.m16n8k16: S = Q[16x576] K^T and
//    O += P[16x32] V[32x512] run on tensor cores. Per token that is 71 MFLOP (105 with the
//    hi/lo P split below), ~0.15 us of one H200's mma.sync throughput, versus ~1.2 us/token
//    of FFMA at peak for the baseline (compute-bound at T=8: 40 us).
//  - Split blocks are 128 threads with ~97 KB of shared memory, so 2 blocks per SM: the
//    split count aims at 264 blocks (one wave) with >= 64 list entries per split (<= 32
//    splits, 1 MB of fp32 partials per token instead of the baseline's 4 MB at T=1).
//  - The combine is spread over tokens x 16 heads x 4 dim quarters blocks of 256 threads,
//    each thread with all of its <= 4 partial loads in flight; the baseline's combine walks
//    up to 128 splits 4 loads at a time in one block per (token, head) (~16 L2 round trips
//    at T=1).
//  Expected: T=1 ~8-10 us, T=8 ~12-15 us (baseline 22 / 40 us).
//
// Numerics: Q and K/V are bf16, products are exact in the fp32 accumulators. The softmax
// probabilities P are split into hi = bf16(p) and lo = bf16(p - hi), and P.V is done twice
// (hi and lo), so P carries ~16 mantissa bits (no FlashMLA-style bf16 rounding of P; the
// error stays near the fp32 baseline's). Logits are scaled by sm_scale*log2(e) in fp32
// after the mma (q is not pre-scaled in bf16). Online softmax in base 2; lse = m + log2(l).
//
// Split block (token t, split s), 4 warps, tiles of 32 compacted rows, double-buffered
// cp.async gathers. Per tile:
//   QK: warp w owns tile rows 8w..8w+7 (one n8 tile) over 36 k16 steps (4 independent
//       accumulators), S frag: c0,c1 = S[head g][row 8w+2t,+1], c2,c3 = S[head g+8][...].
//   softmax: per-warp max over its 8 rows, block max through shared memory; each thread
//       keeps m (identical in every warp) and a partial l over its own columns.
//   PV: P (hi, lo) written to shared memory as bf16 [16][32+8]; warp w owns output dims
//       128w..128w+127 (16 n8 tiles), V B-fragments packed from two 16-bit loads.
// Invalid rows: the list is compacted first (ordered ballot, deterministic); rows past n in
// the last tile are zero-filled in shared memory and their logits masked to -inf (p = 0).
//
// kh:param MIN_CHUNK in {32,64,128}  fewest list entries per split
// kh:param BLOCKS_TARGET in {132,264,528}  split blocks aimed for over all tokens
#include "sparse_tc_split.cuh"

namespace {

using namespace dsa_tc_split;

__global__ void __launch_bounds__(kThreads, 2) dsa_tc_split_kernel(Args a) { split_blocks<false, false>(a); }

__global__ void __launch_bounds__(kCombineThreads)
    dsa_tc_combine_kernel(const float* part_o, const float* part_m, const float* part_l, int splits,
                          __nv_bfloat16* output, float* lse) {
  walk_combine<false>(part_o, part_m, part_l, splits, output, lse);
}

}  // namespace

int dsa_sparse_attention_tc_split(const DLTensor* q_nope, const DLTensor* q_pe, const DLTensor* ckv_cache,
                                  const DLTensor* kpe_cache, const DLTensor* sparse_indices, float sm_scale,
                                  DLTensor* output, DLTensor* lse, kh_stream_t stream) {
  return run_tc_split<kWalkMaxSplits, false>(dsa_tc_split_kernel, dsa_tc_combine_kernel, q_nope, q_pe,
                                             ckv_cache, kpe_cache, sparse_indices, sm_scale, output, lse,
                                             stream);
}
