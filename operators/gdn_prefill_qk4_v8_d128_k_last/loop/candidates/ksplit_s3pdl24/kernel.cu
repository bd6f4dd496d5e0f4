// gdn_prefill ksplit_s3pdl24: ksplit_vecpdl24 with a third stage in the pass's copy pipeline where
// shared memory holds it (16 and 32 V rows a block: one or two chunks of copies in flight while a
// chunk is multiplied, instead of one).
//
// Why: on the longest calls the pass is a chain of one step a chunk (1.6 us a chunk on one
// 8192-token sequence on the H200) whose warps stall on long-scoreboard waits (kharness profile,
// 2026-12-06 call 5); each chunk's operands (about 64 KB a block, most of it read by all eight
// V slices of a head) come from L2 or memory, and with two stages a copy has one step to land.
// Expected: faster on calls of 1-4 sequences (16 and 32 V rows a block), the rest unchanged.
#include <kharness/kernel.h>

#include "gdn_chunk_pass.cuh"
#include "gdn_chunk_prep_tinv.cuh"

namespace {

using namespace gdn_chunk_tc;  // NOLINT(google-build-using-namespace): the shared pass

template <int kWarps, int kSplit>
struct __align__(16) Pass3Smem {
  PassSmem<kWarps, kSplit> base;  // stages 0 and 1, the output tiles, the pair's swap
  PassStage<kWarps, kSplit> third;
};

// chunk_pass_kernel<kWarps, kSplit, true, true> with three stages: chunk ci + 2's copies are issued
// while chunk ci is multiplied.
template <int kWarps, int kSplit>
__global__ void __launch_bounds__(32 * kWarps, 1) pass3_kernel(PrefillArgs p, int num_seqs, char* scratch) {
  using Shape = PassShape<kWarps, kSplit>;
  using Stage = PassStage<kWarps, kSplit>;
  extern __shared__ float4 pass3_smem[];
  Pass3Smem<kWarps, kSplit>& sm = *reinterpret_cast<Pass3Smem<kWarps, kSplit>*>(pass3_smem);
  const WarpPos w = warp_pos<kSplit>();
  const PassBlock b = pass_block<kWarps, kSplit>(p, w);
  const int64_t head = b.head, start = b.start, end = b.end;
  const int h = b.h, v0 = b.v0, vw = b.vw, k0 = b.k0, nchunks = b.nchunks, base = b.base;
  const float scale = b.scale;
  auto slot = [&](int i) -> Stage& { return i == 2 ? sm.third : sm.base.stage[i]; };

  float s[Shape::kKTiles][4];
  load_state(p.state, head * kDim + vw, k0, w, nchunks == 0, s);
  asm volatile("griddepcontrol.wait;\n" ::: "memory");

  for (int j = 0; j < 2; ++j) {  // one commit each, empty past the last chunk: the wait count holds
    if (j < nchunks) pass_stage_lean(slot(j), chunk_parts(scratch, base + j, h), v0);
    cp_async_commit();
  }
  for (int ci = 0; ci < nchunks; ++ci) {
    if (ci + 2 < nchunks) pass_stage_lean(slot((ci + 2) % 3), chunk_parts(scratch, base + ci + 2, h), v0);
    cp_async_commit();
    cp_async_wait<2>();  // chunk ci's group is complete
    __syncthreads();
    const Stage& st = slot(ci % 3);
    const int64_t tok0 = start + static_cast<int64_t>(ci) * kC;
    const int L = static_cast<int>(end - tok0 < kC ? end - tok0 : kC);
    if (w.part == 0) {
      chunk_step<kWarps, kSplit, 0>(p, sm.base, st, w, s, scale, tok0, L, h, vw);
    } else {
      chunk_step<kWarps, kSplit, 1>(p, sm.base, st, w, s, scale, tok0, L, h, vw);
    }
    __syncthreads();  // this stage is free for chunk ci + 3's copies
  }
  store_state(p.new_state, head * kDim + vw, k0, w, s);
}

// As the preparation's programmatic dependent; false when the kernel's shared memory is refused,
// so that the caller launches the two-stage pass instead.
template <int kWarps, int kSplit>
bool launch_pass3(const PrefillArgs& args, int64_t num_seqs, char* scratch, cudaStream_t stream) {
  using Shape = PassShape<kWarps, kSplit>;
  static const bool allowed = allow_smem(pass3_kernel<kWarps, kSplit>, sizeof(Pass3Smem<kWarps, kSplit>));
  if (!allowed) return false;
  launch_pass_dependent(pass3_kernel<kWarps, kSplit>,
                        static_cast<unsigned>(num_seqs * GDN_NUM_V_HEADS * Shape::kSlices), Shape::kThreads,
                        sizeof(Pass3Smem<kWarps, kSplit>), args, num_seqs, scratch, stream);
  return true;
}

// launch_pass_for<2, true, true>'s choice of V rows a block, with three stages at 16 and 32.
void launch_pass3_for(const PrefillArgs& args, int64_t num_seqs, char* scratch, cudaStream_t stream) {
  const int64_t heads = num_seqs * GDN_NUM_V_HEADS;
  const int sms = launch_config().sms;
  if (heads * (kDim / 16) <= sms) {
    if (!launch_pass3<2, 2>(args, num_seqs, scratch, stream))
      launch_pass<2, 2, true, true>(args, num_seqs, scratch, stream);
  } else if (heads * (kDim / 32) <= sms) {
    if (!launch_pass3<4, 2>(args, num_seqs, scratch, stream))
      launch_pass<4, 2, true, true>(args, num_seqs, scratch, stream);
  } else {
    launch_pass<8, 2, true, true>(args, num_seqs, scratch, stream);
  }
}

}  // namespace

void gdn_prefill_ksplit_s3pdl24(const DLTensor* q, const DLTensor* k, const DLTensor* v,
                                const DLTensor* state, const DLTensor* A_log, const DLTensor* a,
                                const DLTensor* dt_bias, const DLTensor* b, const DLTensor* cu_seqlens,
                                float scale, DLTensor* output, DLTensor* new_state, kh_stream_t stream) {
  gdn_chunk_tc::run<2, gdn_chunk_tc::launch_prep_vec_pdl, true, 24, 128, true>(
      gdn_lane8::prefill_args(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state),
      cu_seqlens->shape[0] - 1, q->shape[0], stream, launch_pass3_for);
}
