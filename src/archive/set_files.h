// The files of a FlashInfer-Trace set, found by its layout: definitions/**.json,
// solutions/**.json, workloads/**.jsonl and traces/**.jsonl under one root, in sorted
// order; and the lines of a JSONL text with their exact bytes, for a byte-identical
// round trip.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "trace/diagnostic.h"
#include "trace/trace_set.h"

namespace kh::archive {

struct SetFile {
  std::filesystem::path path;
  std::string relative;  // to the root, with '/' separators: how export names it again
  FileKind kind = FileKind::unknown;
  std::uintmax_t size = 0;
};

// Problems listing a folder are added to `problems`; a missing subfolder is fine.
[[nodiscard]] std::vector<SetFile> list_set_files(const std::filesystem::path& root,
                                                  std::vector<Diagnostic>& problems);

struct TextLine {
  std::size_t number = 0;  // 1-based
  std::string_view text;   // without the '\n' (a '\r' before it is kept)
  std::size_t end = 0;     // offset just past the line in the whole text
};

// The non-blank lines of a JSONL text.
[[nodiscard]] std::vector<TextLine> jsonl_lines(std::string_view text);

// The whole file; throws kh::Error naming it when it cannot be read or is larger than
// the limit (trace/input_limits.h): json_bytes for documents, or the one named.
[[nodiscard]] std::string read_file_text(const std::filesystem::path& file);
[[nodiscard]] std::string read_file_text(const std::filesystem::path& file, std::uint64_t limit,
                                         std::string_view limit_name);

}  // namespace kh::archive
