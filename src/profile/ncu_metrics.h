// Nsight Compute's metrics for one kernel launch: which ones kharness asks for, and the
// parser of ncu's `--csv --page raw` output into typed KernelMetrics.
//
// The raw page is a CSV with one header row of column names (launch identity, then
// one column per metric), one row of units, then one row per profiled launch. Numbers
// may carry thousands separators; units are read, so "usecond" and "nsecond" both
// give microseconds.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "profile/regime_evidence.h"

namespace kh::profile {

// The metric names passed to `ncu --metrics`, comma-joined.
[[nodiscard]] const std::vector<std::string>& ncu_metric_names();

// One KernelMetrics per launch row. Throws kh::Error naming the row and column when
// the CSV is malformed (no header, a row of the wrong width); missing metrics are 0.
[[nodiscard]] std::vector<KernelMetrics> parse_ncu_raw_csv(std::string_view csv);

}  // namespace kh::profile
