// Tensor-core split-K DSA sparse attention (mma.sync m16n8k16 bf16 -> fp32) with ldmatrix
// fragment loads and a programmatic-dependent-launch (PDL) combine kernel.
//
// Same algorithm, tiling and numerics as the tc_split candidate (see there), plus:
//  - Fragments come from ldmatrix.x4 (Q, K, P) and ldmatrix.x4.trans (V): per warp and
//    32-row tile, 36 (Q) + 18 (K) + 4 (P) + 16 (V) = 74 ldmatrix instead of 232 LDS.32 +
//    128 LDS.U16 and 64 byte permutes, so the tile's compute phase (the part of the chain that is not
//    DRAM latency) is ~2x shorter in issue slots.
//  - The combine kernel is launched with cudaLaunchAttributeProgrammaticStreamSerialization;
//    the split blocks trigger it (griddepcontrol.launch_dependents) once their gathers are
//    issued, and it waits (griddepcontrol.wait = full completion and memory visibility of
//    the split grid) before reading partials. This hides the second launch's ~2-4 us gap.
//  Expected: T=1 ~6-8 us, T=8 ~10-13 us (baseline 22 / 40 us).
//
// ldmatrix (PTX ISA): lanes 8i..8i+7 give the 8 row addresses (16 contiguous bytes each) of
// matrix i; without .trans lane l receives row l/4, columns 2(l%4), 2(l%4)+1 of matrix i in
// register i; with .trans it receives rows 2(l%4), 2(l%4)+1 of column l/4.
//  - A (Q or P, 16x16 at k0): matrix i = rows 8(i&1).., columns k0 + 8(i>>1)  -> a0..a3.
//  - B of QK (K rows n0..n0+7): matrix i = columns k0 + 8i -> b0,b1 of k-step k0 and k0+16.
//  - B of PV (.trans, V rows k0.., dims n0..): matrix i = rows k0 + 8(i&1), dims n0 + 8(i>>1)
//    -> b0,b1 of n tile n0 and of n tile n0+8.
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

__global__ void __launch_bounds__(kThreads, 2) dsa_tcl_split_kernel(Args a) { split_blocks<true, true>(a); }

__global__ void __launch_bounds__(kCombineThreads)
    dsa_tcl_combine_kernel(const float* part_o, const float* part_m, const float* part_l, int splits,
                           __nv_bfloat16* output, float* lse) {
  walk_combine<true>(part_o, part_m, part_l, splits, output, lse);
}

}  // namespace

int dsa_sparse_attention_tc_ldsm_pdl(const DLTensor* q_nope, const DLTensor* q_pe, const DLTensor* ckv_cache,
                                     const DLTensor* kpe_cache, const DLTensor* sparse_indices,
                                     float sm_scale, DLTensor* output, DLTensor* lse, kh_stream_t stream) {
  return run_tc_split<kWalkMaxSplits, true>(dsa_tcl_split_kernel, dsa_tcl_combine_kernel, q_nope, q_pe,
                                            ckv_cache, kpe_cache, sparse_indices, sm_scale, output, lse,
                                            stream);
}
