// Reading input files within the input limits (input_limits.h): a whole document only
// when its size is under the limit, checked before a byte is read; JSONL line by line,
// so that memory stays at one line however large the file, and a line over the limit is
// skipped without being held.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace kh {

// The file's bytes. Throws kh::Error naming the file: it cannot be opened or read, is
// not a regular file, or is larger than `limit` (`limit_name` is named in the error).
[[nodiscard]] std::string read_bounded_file(const std::filesystem::path& file, std::uint64_t limit,
                                            std::string_view limit_name);

// A definition, solution or other JSON document: read_bounded_file with the json_bytes limit.
[[nodiscard]] std::string read_json_document(const std::filesystem::path& file);

struct JsonlLine {
  std::size_t number = 0;  // 1-based
  std::string_view text;   // without the line end; valid during the call only
};

// Calls `on_line` for each line that is not blank (it returns false to stop reading) and
// `on_too_long(number, bytes)` for each line longer than the jsonl_line_bytes limit (not
// held: its bytes are skipped). Throws kh::Error naming the file when it cannot be
// opened or read.
void for_each_jsonl_line(const std::filesystem::path& file,
                         const std::function<bool(const JsonlLine&)>& on_line,
                         const std::function<void(std::size_t number, std::uint64_t bytes)>& on_too_long);

// The error for a line over the limit, naming the file, line and limit.
[[nodiscard]] std::string line_too_long_reason(std::uint64_t bytes);

}  // namespace kh
