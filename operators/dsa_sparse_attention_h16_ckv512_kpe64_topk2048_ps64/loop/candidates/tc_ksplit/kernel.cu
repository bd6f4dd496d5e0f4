// Tensor-core split-K DSA sparse attention (mma.sync m16n8k16 bf16 -> fp32), ldmatrix
// fragments, QK^T split over the 576-wide key dimension across the 4 warps, a warp-local
// softmax, 64 splits a token at T <= 4, and the tc_ldsm combine (ordinary launch, all
// loads before the first reduction). No PDL.
//
// Why faster than tc_split (H200: T1P317 11.5, T3P788 12.6, T6P824 16.9, T5P4096 16.2,
// T7P4096 17.8 us) and tc_ldsm:
//  - More rows in flight where the SMs idle: MIN_CHUNK 32 makes 64 splits of one 32-row tile
//    at T=1..4 (64/128/192/256 blocks instead of 32/64/96/128), so the gathers of a token
//    are spread over twice the SMs and each block has one tile (one compute phase) on its
//    critical path instead of two. T >= 5 keeps 32 splits of 64 rows.
//  - QK: warp w computes S_w = Q[:,144w..144w+143] K[0..31, same]^T for all 32 tile rows
//    (4 n8 tiles x 9 k-steps, 36 mma, 4 independent accumulators): per warp and tile 9 Q +
//    18 K ldmatrix.x4 (108 shared wavefronts) instead of 36 + 18 (216); the 4 partial S are
//    summed through 10 KB of shared memory.
//  - Softmax: thread = (head tid/8, 4 tile rows 4*(tid%8)): the max over a head's 32 rows is
//    3 shuffles inside one warp, no block-wide max round (its barrier now serves the S sum:
//    still 4 barriers a tile); alpha goes to PV through shared memory.
//  Per warp and tile ~230 shared wavefronts vs 296 (tc_ldsm) and 488 (tc_split).
//  Shared memory: 104 KB dynamic (2 x 36.5 KB tiles, 18 KB Q, 2.5 KB P, 10 KB S partials),
//  2 blocks per SM; 138 registers, no spills.
//  Expected: T=1..4 10-20% below tc_split (T1 ~9.5 us, T3 ~10.5 us), T>=5 5-10% (T7 P4096
//  ~16.5 us).
//
// ldmatrix (PTX ISA): lanes 8i..8i+7 give the 8 row addresses (16 contiguous bytes each) of
// matrix i; without .trans lane l receives row l/4, columns 2(l%4), 2(l%4)+1 of matrix i in
// register i; with .trans it receives rows 2(l%4), 2(l%4)+1 of column l/4.
// m16n8k16 fragments (g = lane/4, tg = lane%4): a0 = A[g][2tg..], a1 = A[g+8][2tg..],
// a2 = A[g][2tg+8..], a3 = A[g+8][2tg+8..]; b0 = B[2tg..2tg+1][g], b1 = B[2tg+8..+9][g];
// c0,c1 = C[g][2tg, 2tg+1], c2,c3 = C[g+8][2tg, 2tg+1].
//  - A (Q or P, 16x16 at k0): matrix i = rows 8(i&1).., columns k0 + 8(i>>1)  -> a0..a3.
//  - B of QK (B[k][n] = K row n, dim k0+k), two n tiles j, j+1 at k-step k0: matrix i =
//    K rows 8(j + (i>>1)).., columns k0 + 8(i&1) -> b0,b1 of tile j, then b0,b1 of tile j+1.
//  - B of PV (.trans, V rows k0.., dims n0..): matrix i = rows k0 + 8(i&1), dims n0 + 8(i>>1)
//    -> b0,b1 of n tile n0 and of n tile n0+8.
//
// Numerics (as tc_split): P split into hi = bf16(p), lo = bf16(p - hi), P.V done for both;
// logits scaled by sm_scale*log2(e) in fp32 after the mma; online softmax in base 2,
// lse = m + log2(l). Invalid rows: the list is compacted first (ordered ballot); rows past n
// in the last tile are zero-filled in shared memory and their logits masked to -inf.
//
// kh:param MIN_CHUNK in {32,64,128}  fewest list entries per split
// kh:param BLOCKS_TARGET in {132,264,528}  split blocks aimed for over all tokens
#include "sparse_tc_ksplit_run.cuh"

int dsa_sparse_attention_tc_ksplit(const DLTensor* q_nope, const DLTensor* q_pe, const DLTensor* ckv_cache,
                                   const DLTensor* kpe_cache, const DLTensor* sparse_indices, float sm_scale,
                                   DLTensor* output, DLTensor* lse, kh_stream_t stream) {
  return dsa_tc_ksplit::run<false>(q_nope, q_pe, ckv_cache, kpe_cache, sparse_indices, sm_scale, output, lse,
                                   stream);
}
