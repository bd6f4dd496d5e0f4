// gdn_prefill ksplit4_pdl24: ksplit_vecpdl24 with the state's K columns split over four warps
// instead of two where one wave of the pass holds the call's V rows (calls of 1-4 chunked
// sequences): 16 V rows a block of four warps for 1-2 sequences, 32 rows a block of eight warps for
// 3-4 (gdn_chunk_pass_group4.cuh, kCopies); calls of more sequences keep ksplit_vecpdl24's pass.
//
// Why: on the longest calls the pass is a chain of one step a chunk on 64-128 blocks of two warps
// (1.6 us a chunk on one 8192-token sequence on the H200, about 2 of an SM's 4 schedulers issuing),
// and each warp's step is in-order mma, ldmatrix and shuffles over its 64 K columns. Four warps a
// 16-row group each multiply over 32 K columns: half the mma of a step's chain per warp (32 + 16
// instead of 64 + 32), every scheduler of the SM issuing, for a wider exchange of partial sums (a
// warp reads three partners' U and O instead of one). Expected: faster on calls of 1-4 chunked
// sequences (the long single sequences most), the rest unchanged.
#include <kharness/kernel.h>

#include "gdn_chunk_pass_group4.cuh"
#include "gdn_chunk_prep_tinv.cuh"

void gdn_prefill_ksplit4_pdl24(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                               const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias,
                               const DLTensor* b, const DLTensor* cu_seqlens, float scale, DLTensor* output,
                               DLTensor* new_state, kh_stream_t stream) {
  gdn_chunk_tc::run<2, gdn_chunk_tc::launch_prep_vec_pdl, true, 24, 128, true>(
      gdn_lane8::prefill_args(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state),
      cu_seqlens->shape[0] - 1, q->shape[0], stream, gdn_chunk_tc::group4::launch_for<true, true>);
}
