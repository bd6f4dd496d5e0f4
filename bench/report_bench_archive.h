// A synthetic archive for the report and dashboard benchmarks, written straight through
// the archive's IndexWriter in ONE transaction (seconds for 100 000 traces): per
// definition a baseline and `candidates` candidates in a lineage tree (candidate c's
// parent is candidate c/2), each traced on every workload (1 in 50 fails), lines with
// kharness's speed-of-light block, and a controller decision every 10 candidates.
#pragma once

#include <filesystem>

namespace kh::bench {

struct ArchiveShape {
  int definitions = 10;
  int candidates = 100;  // per definition, besides the baseline
  int workloads = 100;   // per definition
};

// Returns the number of traces written.
long generate_report_archive(const std::filesystem::path& dir, const ArchiveShape& shape);

}  // namespace kh::bench
