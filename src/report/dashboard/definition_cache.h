// Each definition's leaderboard, plot inputs and plots, computed once and kept until a
// trace of the definition is added (the archive may grow while the dashboard serves):
// the key is the count and largest id of the definition's traces, one indexed query.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "report/archive_reader.h"
#include "report/leaderboard.h"
#include "report/plot_inputs.h"
#include "report/plots.h"

namespace kh::report::dashboard {

struct CachedDefinition {
  DefinitionReport report;
  PlotInputs inputs;
  std::vector<NamedPlot> plots;
  std::unordered_map<RowId, std::size_t> rank_of;  // solution id -> index in report.candidates
};

class DefinitionCache {
 public:
  [[nodiscard]] std::shared_ptr<const CachedDefinition> get(const ArchiveReader& reader,
                                                            const std::string& definition);

 private:
  using Version = std::pair<std::int64_t, std::int64_t>;
  std::mutex mutex_;
  std::map<std::string, std::pair<Version, std::shared_ptr<const CachedDefinition>>> entries_;
};

}  // namespace kh::report::dashboard
