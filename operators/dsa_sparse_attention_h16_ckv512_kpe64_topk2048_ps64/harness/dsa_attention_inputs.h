// Valid index lists for DSA sparse attention (dsa_sparse_attention_*): each token is one
// request of a decode batch whose context lives in its own pages of the pool, and its
// index list names distinct cache rows of that context, with -1 padding where the context
// is shorter than topk. q and the caches keep the generic normal(0, 1) fill.
//
// For a set drawn from (axes, seed):
//   - the num_pages pages are shuffled and dealt out evenly, num_pages / num_tokens each
//     (at least one while pages last: a token past the last page gets none);
//   - a token's context length is uniform in [3/4 capacity, capacity], capacity = its
//     pages x page_size, and 0 for a token without pages (all of its list is -1); so
//     contexts of about topk rows or less give trailing -1s, longer ones full lists;
//   - its list holds min(context, topk) distinct positions of the context, drawn
//     uniformly when the context is longer than topk, in random order (like a top-k by
//     score), as page * page_size + offset; the rest is -1. For odd tokens the whole list
//     is shuffled so the -1s are interleaved with the valid entries; for even ones they
//     trail, as a sorted top-k would leave them.
// The lists are drawn on the host (a shuffle of the page pool and a selection per token
// are sequential, and a set holds at most 8 x 2048 indices) and uploaded; q and the
// caches are the generic fill, made where they lie.
#pragma once

#include <memory>

#include "eval/input_generator.h"

namespace kh {

[[nodiscard]] std::shared_ptr<const StructuredInputs> make_dsa_attention_inputs();

}  // namespace kh
