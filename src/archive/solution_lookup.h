// Finding an archived solution by its content id, or by the first characters of it, as a
// person types them (as with git).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "archive/archive.h"

namespace kh::archive {

// The content ids that start with `prefix`, at most `limit` of them: one means the
// prefix names a solution, two that it is ambiguous.
[[nodiscard]] std::vector<std::string> content_ids_starting_with(Archive& archive, std::string_view prefix,
                                                                 std::size_t limit);
// The solution's JSON as archived, or nullopt when no solution has this content id.
[[nodiscard]] std::optional<std::string> solution_json(Archive& archive, std::string_view content_id);

}  // namespace kh::archive
