// Labels two robust measurements as faster, slower, same or ambiguous.
#pragma once

#include <string_view>

#include "timing/sample_statistics.h"

namespace kh {

enum class Comparison { faster, slower, same, ambiguous };

[[nodiscard]] std::string_view comparison_name(Comparison c) noexcept;

// Compares candidate against baseline by their medians' confidence intervals:
// disjoint intervals give faster/slower; overlapping intervals whose medians differ
// by less than `same_threshold` (relative) give same; anything else is ambiguous,
// which tells the controller to sample more rather than decide on noise.
[[nodiscard]] Comparison compare_latency(const SampleStatistics& candidate, const SampleStatistics& baseline,
                                         double same_threshold = 0.01);

}  // namespace kh
