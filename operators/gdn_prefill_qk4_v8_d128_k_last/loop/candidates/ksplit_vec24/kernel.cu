// gdn_prefill ksplit_vec24: ksplit_tinv24 (shipped) with a leaner preparation: the operands R =
// [beta e^lg K | beta V] formed with each token's factor computed once (64 expf a chunk instead
// of 8192) and 16-byte shared loads and stores (8 values a thread a step instead of 1), T's fp16
// copy likewise, and W written to scratch in whole 16-byte pieces through shared memory.
//
// Why: ncu of ksplit_tinv's preparation on one sequence of 8192 tokens (2026-12-05e call 3):
// 88 us, 3.9 waves of 2 blocks an SM, issue slots 45% busy, L1/shared 69% busy, global stores
// using 22.4 of a sector's 32 bytes (W's 4-byte stores), shared stores with 2-way bank
// conflicts; the preparation is 93 of 328 us there and 28-72 of 66-146 us on mid-size batches
// (chunk_check). Fewer instructions and wavefronts a block shorten every block of it.
// Expected: the preparation ~10-20% faster, so calls on the chunked path 3-8% faster; the
// lane8 calls unchanged. Numerics: the same fp16 values as ksplit_tinv24 (the same products in
// the same order, rounded once).
#include <kharness/kernel.h>

#include "gdn_chunk_pass.cuh"
#include "gdn_chunk_prep_tinv.cuh"

void gdn_prefill_ksplit_vec24(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                              const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias,
                              const DLTensor* b, const DLTensor* cu_seqlens, float scale, DLTensor* output,
                              DLTensor* new_state, kh_stream_t stream) {
  gdn_chunk_tc::run<2, gdn_chunk_tc::launch_prep_vec, true, 24, 128>(
      gdn_lane8::prefill_args(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state),
      cu_seqlens->shape[0] - 1, q->shape[0], stream);
}
