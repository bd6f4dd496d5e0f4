// ksplit_h16: ksplit_pdl with each split's partial O stored in fp16, normalised by its own sum
// (O / l, so no value exceeds the largest |v| and fp16 cannot overflow), m and l in fp32; the
// combine weighs each partial by w * l instead of w. Half the bytes the split grid writes and the
// combine reads.
// Why: the H200 profile of 2026-12-04b (tc_ksplit, the same kernels) has the combine at 3.5-5.4 us
// of 10-17 us calls, its warps on long_scoreboard (global loads) first, reading 2.1-8.4 MB of fp32
// partials; the split grid writes as many. ksplit_pdl overlaps only the combine's launch.
// Expected: the combine ~1-2 us shorter where the partials are largest (one token, 64 splits:
// 2 MB -> 1 MB), less elsewhere. Numerics: fp16 keeps 11 bits of a value at most max|v|; the
// combined output's error stays under ~1e-3 of the operator's tolerance (atol 5e-3, rtol 1e-2).
#include "sparse_tc_ksplit_run.cuh"

int dsa_sparse_attention_ksplit_h16(const DLTensor* q_nope, const DLTensor* q_pe, const DLTensor* ckv_cache,
                                    const DLTensor* kpe_cache, const DLTensor* sparse_indices, float sm_scale,
                                    DLTensor* output, DLTensor* lse, kh_stream_t stream) {
  return dsa_tc_ksplit::run<true, false, true>(q_nope, q_pe, ckv_cache, kpe_cache, sparse_indices, sm_scale,
                                               output, lse, stream);
}
