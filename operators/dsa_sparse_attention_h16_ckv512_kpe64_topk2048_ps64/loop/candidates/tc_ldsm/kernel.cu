// Tensor-core split-K DSA sparse attention (mma.sync m16n8k16 bf16 -> fp32) with ldmatrix
// fragment loads and an ordinary (stream-ordered, no PDL) combine launch whose loads are all
// issued up front.
//
// = tc_split (promoted: 11.5/12.6/16.9/16.2/17.8 us on T1P317/T3P788/T6P824/T5P4096/T7P4096)
// with two changes, both already checked on the H200 or trivially equivalent:
//  - The split kernel is tc_ldsm_pdl's, verbatim minus griddepcontrol (tc_ldsm_pdl passed
//    correctness on all loop workloads and was 7-15% faster; it was rejected only for the
//    PDL launch's strays). Fragments come from ldmatrix.x4 (Q, K, P) and ldmatrix.x4.trans
//    (V): per warp and 32-row tile 74 ldmatrix (296 shared wavefronts) instead of 232
//    LDS.32 + 256 LDS.U16 (488 wavefronts) plus 128 byte permutes, so the compute phase of
//    a tile (on the critical path after the last gather lands) is ~1.6-2x shorter.
//  - The combine issues every global load (m, l and its <= 8 float4 partials) before its
//    first block reduction: one dependent L2 round trip instead of three (m -> l -> O),
//    ~0.5-1 us less per call at every T.
//  Expected: ~5-10% below tc_split at every T (T1 ~10.5 us, T7 P4096 ~16.5 us); the PDL part
//  of tc_ldsm_pdl's gain is not claimed.
//
// ldmatrix (PTX ISA): lanes 8i..8i+7 give the 8 row addresses (16 contiguous bytes each) of
// matrix i; without .trans lane l receives row l/4, columns 2(l%4), 2(l%4)+1 of matrix i in
// register i; with .trans it receives rows 2(l%4), 2(l%4)+1 of column l/4.
//  - A (Q or P, 16x16 at k0): matrix i = rows 8(i&1).., columns k0 + 8(i>>1)  -> a0..a3.
//  - B of QK (K rows n0..n0+7): matrix i = columns k0 + 8i -> b0,b1 of k-step k0 and k0+16.
//  - B of PV (.trans, V rows k0.., dims n0..): matrix i = rows k0 + 8(i&1), dims n0 + 8(i>>1)
//    -> b0,b1 of n tile n0 and of n tile n0+8.
//
// Numerics (unchanged from tc_split): P split into hi = bf16(p), lo = bf16(p - hi), P.V done
// for both; logits scaled by sm_scale*log2(e) in fp32 after the mma; lse = m + log2(l).
//
// Split block (token t, split s), 4 warps, tiles of 32 compacted rows, double-buffered
// cp.async gathers. Per tile:
//   QK: warp w owns tile rows 8w..8w+7 (one n8 tile) over 36 k16 steps (4 independent
//       accumulators), S frag: c0,c1 = S[head g][row 8w+2t,+1], c2,c3 = S[head g+8][...].
//   softmax: per-warp max over its 8 rows, block max through shared memory; each thread
//       keeps m (identical in every warp) and a partial l over its own columns.
//   PV: P (hi, lo) written to shared memory as bf16 [16][32+8]; warp w owns output dims
//       128w..128w+127 (16 n8 tiles), V B-fragments from ldmatrix.trans.
// Invalid rows: the list is compacted first (ordered ballot, deterministic); rows past n in
// the last tile are zero-filled in shared memory and their logits masked to -inf (p = 0).
//
// kh:param MIN_CHUNK in {32,64,128}  fewest list entries per split
// kh:param BLOCKS_TARGET in {132,264,528}  split blocks aimed for over all tokens
#include "sparse_tc_split.cuh"

namespace {

using namespace dsa_tc_split;

__global__ void __launch_bounds__(kThreads, 2) dsa_tcs_split_kernel(Args a) { split_blocks<true, false>(a); }

__global__ void __launch_bounds__(kCombineThreads)
    dsa_tcs_combine_kernel(const float* part_o, const float* part_m, const float* part_l, int splits,
                           __nv_bfloat16* output, float* lse) {
  combine_splits<false, false>(part_o, part_m, part_l, splits, output, lse, blockIdx.x);
}

}  // namespace

int dsa_sparse_attention_tc_ldsm(const DLTensor* q_nope, const DLTensor* q_pe, const DLTensor* ckv_cache,
                                 const DLTensor* kpe_cache, const DLTensor* sparse_indices, float sm_scale,
                                 DLTensor* output, DLTensor* lse, kh_stream_t stream) {
  return run_tc_split<kMaxSplits, false>(dsa_tcs_split_kernel, dsa_tcs_combine_kernel, q_nope, q_pe,
                                         ckv_cache, kpe_cache, sparse_indices, sm_scale, output, lse, stream);
}
