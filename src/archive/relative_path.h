// Paths that come from data (a workload's safetensors path, a source path recorded in
// the archive) and are joined to a folder: they must stay inside it.
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>

namespace kh::archive {

// The path, normalised ("./blob/a" -> "blob/a"), or nullopt when it is empty,
// absolute, or has a ".." component.
[[nodiscard]] std::optional<std::filesystem::path> contained_path(std::string_view text);

// contained_path, or kh::Error naming `field` and the path.
[[nodiscard]] std::filesystem::path require_contained_path(std::string_view text, std::string_view field);

}  // namespace kh::archive
