// Valid inputs for the DSA top-k indexer (dsa_topk_indexer_fp8_h64_d128_topk2048_ps64):
// decode-like sequence lengths, block tables of distinct pages, and an fp8 key cache
// whose pages hold 64 x 128 e4m3 values followed by 64 positive float32 scales.
//
// What a set holds (each part only when its input is "random"):
//   seq_lens     one request uses its max_num_pages pages almost fully
//                (max_num_pages * 64 - u, u uniform in [0, 63]); when batch_size >= 2 a
//                second is short, uniform in [1, 2047] (its row is padded with -1); the
//                others are uniform in [1, max_num_pages * 64]. Which rows are the long
//                and the short one is drawn too.
//   block_table  ceil(seq_len / 64) distinct page ids per row, drawn at random (pages
//                are scattered as in a long-running pool); disjoint across rows when
//                num_pages holds every row's pages, otherwise distinct within each row
//                only (rows then share pages, as a prefix cache does); unused entries 0.
//   k cache      every page: values e4m3-rounded N(0, 149^2) (the full e4m3 range, as a
//                per-token quantiser with scale = amax / 448 produces), scales
//                exp(0.35 z) / 149, so key norms vary by token and a kernel that drops
//                or misplaces the scale picks wrong tokens.
//   q            the same e4m3 distribution as the keys.
//   weights      N(0, 7.4e-5^2): 64^-0.5 (heads) * 128^-0.5 (softmax) * 1/149 (the
//                query's quantisation scale), mixed signs as weights_proj gives.
// Expected tokens per set (the speed-of-light model uses it): (64 P - 31.5)
// + [B >= 2] * 1024 + max(B - 2, 0) * (64 P + 1) / 2, for B = batch_size, P = max_num_pages.
// Where it runs: the k cache, q and weights where they lie (the device for CUDA, a step
// per word or scale, dsa_topk_steps.h); seq_lens and the block table, a shuffle of the
// page pool that is sequential by nature and at most a few thousand entries, on the
// host, uploaded.
#pragma once

#include <memory>

#include "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64/harness/dsa_topk_steps.h"
#include "eval/input_generator.h"

namespace kh {

[[nodiscard]] std::shared_ptr<const StructuredInputs> make_dsa_topk_inputs();

}  // namespace kh
