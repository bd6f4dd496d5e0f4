// Reads what a definition's report needs from the archive and builds it: the
// workloads, every trace (one indexed scan) and the baseline's name.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/archive_reader.h"
#include "report/leaderboard.h"

namespace kh::report {

// `baseline`: a solution name (--baseline); nullopt picks <definition>_baseline_<lang>
// or a solution archived with role baseline. Throws kh::Error when a named baseline has
// no PASSED trace. Every trace is verified first (ArchiveReader::tamper_problems): when
// any disagrees, the report holds the problems (`tampered`) and ranks nothing.
[[nodiscard]] DefinitionReport load_definition_report(const ArchiveReader& reader,
                                                      std::string_view definition,
                                                      const std::optional<std::string>& baseline);

// The definitions to report on: all, or the one named (kh::Error when the archive has
// neither a document nor a trace of it).
[[nodiscard]] std::vector<std::string> definitions_to_report(const ArchiveReader& reader,
                                                             const std::optional<std::string>& only);

}  // namespace kh::report
