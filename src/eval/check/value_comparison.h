// The generic element-wise correctness rule (docs/evaluation.md), on values widened to
// double. An element fails only when |a-r| > atol AND |a-r|/(|r|+1e-8) > rtol; the
// output passes when the matched share reaches required_matched_ratio. NaN or Inf in
// the candidate's output fails regardless of tolerance.
#pragma once

#include <cstddef>
#include <span>

#include "tensor/host_tensor.h"

namespace kh {

struct Tolerance {
  double atol = 1e-2;
  double rtol = 1e-2;
  double required_matched_ratio = 1.0;
};

struct ValueComparison {
  std::size_t elements = 0;
  std::size_t matched = 0;
  std::size_t non_finite = 0;      // NaN or Inf in the candidate's values
  std::size_t first_mismatch = 0;  // flat index, valid when matched < elements
  double max_abs_error = 0;
  double max_rel_error = 0;
  double mean_abs_error = 0;
  bool actual_all_zero = true;
  bool reference_all_zero = true;
  bool actual_constant = true;  // every candidate element equal to the first
  bool reference_constant = true;

  [[nodiscard]] double matched_ratio() const {
    return elements == 0 ? 1.0 : static_cast<double>(matched) / static_cast<double>(elements);
  }
  [[nodiscard]] bool passes(const Tolerance& t) const {
    return non_finite == 0 && matched_ratio() >= t.required_matched_ratio;
  }
};

// Compares two equally long value arrays. Non-finite reference elements must be
// matched exactly (NaN with NaN, +Inf with +Inf) and are not counted as the
// candidate's non-finite values.
[[nodiscard]] ValueComparison compare_values(std::span<const double> actual,
                                             std::span<const double> reference, const Tolerance& tolerance);

// The same comparison on two tensors of equal element count, widened chunk by chunk
// and compared on several threads, then merged in index order: the result equals
// compare_values on the whole widened arrays (the mean up to rounding), without two
// whole-tensor copies in double (a 60M-element output would need 960 MB of them).
// At most `max_threads` threads (0: one per core).
[[nodiscard]] ValueComparison compare_tensors(const HostTensor& actual, const HostTensor& reference,
                                              const Tolerance& tolerance, std::size_t max_threads = 0);

}  // namespace kh
