// Read-only access to an archive's index (src/archive/schema.cpp), for reports and the
// dashboard. It opens the SQLite file read-only (and query_only), never migrates, and
// every query is indexed and bounded (LIMIT) except traces(), which reports stream
// once per definition. One reader is one connection: use one per thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "archive/sqlite_database.h"
#include "report/archive_rows.h"

namespace kh::report {

class ArchiveReader {
 public:
  // Throws kh::Error naming the folder when it holds no index, or the index's schema
  // version is not the one this kharness reads.
  static ArchiveReader open(const std::filesystem::path& dir);

  [[nodiscard]] std::vector<DefinitionEntry> definitions() const;
  [[nodiscard]] std::optional<std::string> definition_json(std::string_view name) const;
  [[nodiscard]] std::vector<WorkloadEntry> workloads(std::string_view definition) const;
  // Every trace of the definition: what scoring reads, in one indexed scan.
  [[nodiscard]] std::vector<TraceEntry> traces(std::string_view definition) const;
  // (count, largest id) of the definition's traces: changes whenever one is added.
  [[nodiscard]] std::pair<std::int64_t, std::int64_t> trace_version(std::string_view definition) const;
  [[nodiscard]] std::vector<TraceEntry> solution_traces(RowId solution, std::size_t offset,
                                                        std::size_t limit) const;
  [[nodiscard]] std::vector<std::string> trace_lines(std::span<const RowId> ids) const;
  // Every trace of the definition recomputed from its line (and the line against its
  // hash), and the seal of every run they belong to: one sentence per disagreement.
  [[nodiscard]] std::vector<std::string> tamper_problems(std::string_view definition) const;

  [[nodiscard]] std::optional<SolutionEntry> solution(RowId id) const;
  // Solutions of the definition in creation order.
  [[nodiscard]] std::vector<SolutionEntry> solutions(std::string_view definition, std::size_t offset,
                                                     std::size_t limit) const;
  [[nodiscard]] std::int64_t solution_count(std::string_view definition) const;
  // Solutions whose role is baseline or whose name is <definition>_baseline_<language>.
  [[nodiscard]] std::vector<SolutionEntry> baselines(std::string_view definition) const;
  [[nodiscard]] std::vector<SolutionEntry> children(RowId parent, std::size_t limit) const;
  [[nodiscard]] std::optional<BuildEntry> latest_build(RowId solution) const;
  [[nodiscard]] std::vector<ProfileEntry> profiles(RowId solution, std::size_t limit) const;
  // Decisions on the definition's solutions (by round), or on one solution.
  [[nodiscard]] std::vector<DecisionEntry> decisions(std::string_view definition, std::size_t limit) const;
  [[nodiscard]] std::vector<DecisionEntry> solution_decisions(RowId solution) const;
  // The definition's promote decisions, by round.
  [[nodiscard]] std::vector<DecisionEntry> promotions(std::string_view definition, std::size_t limit) const;
  // One loop's decisions, by round (every kind: archive_only rows name no candidate).
  [[nodiscard]] std::vector<DecisionEntry> loop_decisions(std::string_view loop_id, std::size_t limit) const;
  // A loop's (or pseudo-loop's, e.g. "ablation:<id>") manifest: key -> JSON text.
  [[nodiscard]] std::map<std::string, std::string> manifest(std::string_view scope) const;
  // The ids of the archive's ablations (manifest scope "ablation:<id>"), sorted.
  [[nodiscard]] std::vector<std::string> ablations() const;

  // A blob's bytes, nullopt when the store lacks it (a damaged archive still reports).
  [[nodiscard]] std::optional<std::string> blob(std::string_view sha256) const;
  [[nodiscard]] const std::filesystem::path& dir() const noexcept { return dir_; }

 private:
  ArchiveReader(std::filesystem::path dir, archive::Database db);

  std::filesystem::path dir_;
  archive::Database db_;
};

}  // namespace kh::report
