#include "report/dashboard/definition_cache.h"

#include "report/report_loader.h"

namespace kh::report::dashboard {
namespace {

constexpr std::size_t kRooflineTop = 8;

std::shared_ptr<const CachedDefinition> compute(const ArchiveReader& reader, const std::string& definition) {
  auto c = std::make_shared<CachedDefinition>();
  c->report = load_definition_report(reader, definition, std::nullopt);
  c->inputs = load_plot_inputs(reader, c->report, kRooflineTop);
  c->plots = all_plots(c->report, c->inputs);
  for (std::size_t i = 0; i < c->report.candidates.size(); ++i) {
    if (c->report.candidates[i].solution_id) c->rank_of[*c->report.candidates[i].solution_id] = i;
  }
  return c;
}

}  // namespace

std::shared_ptr<const CachedDefinition> DefinitionCache::get(const ArchiveReader& reader,
                                                             const std::string& definition) {
  const Version version = reader.trace_version(definition);
  {
    std::lock_guard lock(mutex_);
    const auto it = entries_.find(definition);
    if (it != entries_.end() && it->second.first == version) return it->second.second;
  }
  // Computed outside the lock: two first requests may both compute; both results are right.
  auto fresh = compute(reader, definition);
  std::lock_guard lock(mutex_);
  entries_[definition] = {version, fresh};
  return fresh;
}

}  // namespace kh::report::dashboard
