// Printers of definition reports: markdown (people), CSV and JSON (scripts).
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "report/leaderboard.h"

namespace kh::report {

struct MarkdownOptions {
  std::size_t top = 20;             // leaderboard rows shown
  std::size_t workload_tables = 3;  // candidates with a per-workload table
  bool plots = false;               // link <plot>.svg files beside the markdown
};

[[nodiscard]] std::string to_markdown(const DefinitionReport& report, const MarkdownOptions& options);

// One row per (definition, candidate), ranked, with a fast_<p> column per p.
[[nodiscard]] std::string leaderboard_csv(std::span<const DefinitionReport> reports);
// One row per (definition, candidate, workload).
[[nodiscard]] std::string workloads_csv(std::span<const DefinitionReport> reports);

[[nodiscard]] nlohmann::ordered_json to_json(const DefinitionReport& report);

// RFC 4180: quoted when the field holds a comma, quote or line break.
[[nodiscard]] std::string csv_field(std::string_view text);

}  // namespace kh::report
