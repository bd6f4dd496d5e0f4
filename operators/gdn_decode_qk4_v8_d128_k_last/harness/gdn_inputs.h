// Valid, numerically stable inputs for the gated delta rule operators
// (gdn_decode_qk4_v8_d128_k_last and gdn_prefill_qk4_v8_d128_k_last; one generator
// serves both, finding its inputs by name; the prefill's folder registers this one).
//
// What a set holds (each part only when its input is "random"):
//   q, k        every (token, head) row of 128 has unit L2 norm (then rounded to bf16), as
//               the models' L2 normalisation makes it. With unnormalised N(0, 1) keys the
//               delta rule's I - beta k k^T is not contractive and the state explodes
//               within a few hundred tokens.
//   v, a, b     the generic N(0, 1) in bf16 (left as generated).
//   A_log       log(uniform(1, 16)) per v head: decay rates A = exp(A_log) in [1, 16].
//   dt_bias     log(expm1(dt)), dt log-uniform in [1e-3, 1e-1] (so softplus(dt_bias) = dt):
//               Mamba-style initialisation; with a ~ N(0, 1) the per-token decay
//               g = exp(-A softplus(a + dt_bias)) spans about 0.1 .. 0.999, so some heads
//               remember hundreds of tokens.
//   state       N(0, 0.1^2) float32: the size a state settles at under these inputs
//               (its root mean square stays near 0.1 over 8192 tokens).
//   cu_seqlens  cu[0] = 0, cu[num_seqs] = total_seq_len, non-decreasing (int64). When
//               total_seq_len >= num_seqs every sequence has at least one token and the
//               rest are split by log-normal weights (sigma 1.2), so lengths are skewed
//               and some are 1; otherwise total_seq_len distinct sequences get one token
//               and the others are empty (length 0, which the reference allows).
// Deterministic in (axes, seed). Where it runs: q, k (a step per row), A_log, dt_bias
// and state (a step per element) where the inputs lie, the device for CUDA;
// cu_seqlens, a running sum over at most a few dozen sequences, on the host, uploaded.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "eval/input_generator.h"
#include "gdn_decode_qk4_v8_d128_k_last/harness/gdn_steps.h"

namespace kh {

[[nodiscard]] std::shared_ptr<const StructuredInputs> make_gdn_inputs();

// The sequence lengths the generator splits `total` tokens into, for `num_seqs` sequences
// (exposed for tests; cu_seqlens is their running sum after a leading 0).
[[nodiscard]] std::vector<std::int64_t> gdn_sequence_lengths(std::int64_t total, std::int64_t num_seqs,
                                                             std::uint64_t seed);

}  // namespace kh
