// A solution's sources as the candidate page shows them: each file, and its line diff
// against the parent's file of the same path.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace kh::report::dashboard {

// path -> content from a FlashInfer-Trace solution document; empty when it has none.
[[nodiscard]] std::map<std::string, std::string> solution_sources(const std::optional<std::string>& document);

// HTML: the diff of every file (added, removed, changed), unchanged runs folded to
// `context` lines around each change.
[[nodiscard]] std::string sources_diff_html(const std::map<std::string, std::string>& parent,
                                            const std::map<std::string, std::string>& child,
                                            std::size_t context = 3);

}  // namespace kh::report::dashboard
