// Checking solution source paths and writing the sources to disk.
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

#include "compile/build_request.h"

namespace kh::detail {

// Throws kh::Error (field "sources[<index>].path") unless `path` is a plain
// relative path: not empty, not absolute, no "." / ".." / empty component, no
// backslash, quote or control character (the shim #includes it verbatim).
void validate_source_path(std::string_view path, std::size_t index);

// Validates every path (and that none repeats), then writes each file under `root`.
void write_sources(const std::filesystem::path& root, const std::vector<BuildSource>& sources);

}  // namespace kh::detail
