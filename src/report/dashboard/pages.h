// The dashboard's pages, each rendered from the archive (and, for definitions, the
// cached leaderboard). Every list is bounded: leaderboards and traces are paginated,
// the history tree shows a page of solutions, lineage chains stop at kMaxLineage.
#pragma once

#include <cstddef>
#include <string>

#include "report/archive_reader.h"
#include "report/dashboard/definition_cache.h"
#include "report/dashboard/http_response.h"
#include "report/promoted_speedup.h"

namespace kh::report::dashboard {

inline constexpr std::size_t kLeaderboardPage = 50;
inline constexpr std::size_t kTracePage = 100;
inline constexpr std::size_t kHistoryPage = 1000;
inline constexpr std::size_t kMaxLineage = 64;

[[nodiscard]] HttpResponse index_page(const ArchiveReader& reader);
[[nodiscard]] HttpResponse definition_page(const CachedDefinition& cached, std::size_t page);
[[nodiscard]] HttpResponse candidate_page(const ArchiveReader& reader, RowId id, std::size_t trace_page);
[[nodiscard]] HttpResponse history_page(const ArchiveReader& reader, const CachedDefinition& cached,
                                        std::size_t page);
// An ablation's comparison report (report/ablation_report.h); 404 when there is none.
[[nodiscard]] HttpResponse ablation_page(const ArchiveReader& reader, std::string_view id);

// Shared by the pages: "/candidate/<id>", a status cell, a number cell, page links.
[[nodiscard]] std::string candidate_href(RowId id);
[[nodiscard]] std::string definition_href(std::string_view name);
[[nodiscard]] std::string ablation_href(std::string_view id);
// A promotion's reported speedup as every page prints it ("1.081x"), "–" when absent.
[[nodiscard]] std::string promoted_speedup_text(const std::optional<PromotedSpeedup>& speedup);
[[nodiscard]] std::string status_cell(std::string_view status);
[[nodiscard]] std::string number_cell(const std::optional<double>& v, const char* spec = "{:.4g}");
// A fraction as a percentage with one decimal, "–" when absent.
[[nodiscard]] std::string percent_cell(const std::optional<double>& v);
[[nodiscard]] std::string pager(std::string_view base, std::size_t page, std::size_t total,
                                std::size_t per_page);

}  // namespace kh::report::dashboard
