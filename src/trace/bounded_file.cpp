#include "trace/bounded_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "error/error.h"
#include "trace/input_limits.h"

namespace kh {
namespace fs = std::filesystem;

std::string read_bounded_file(const fs::path& file, std::uint64_t limit, std::string_view limit_name) {
  const Location where{file.string(), 0, ""};
  std::error_code ec;
  const fs::file_status status = fs::status(file, ec);
  if (ec) throw Error(where, "cannot open file: " + ec.message());
  if (!fs::is_regular_file(status)) throw Error(where, "not a regular file");
  const std::uintmax_t size = fs::file_size(file, ec);
  if (ec) throw Error(where, "cannot read file: " + ec.message());
  if (size > limit) {
    throw Error(where,
                fmt::format("file is {} bytes, over the limit {}", size, limit_note(limit_name, limit)));
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(where, std::string("cannot open file: ") + std::strerror(errno));
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (in.bad()) throw Error(where, "cannot read file");
  // A file that grew after its size was taken: what follows is not read.
  if (in.peek() != std::char_traits<char>::eof()) {
    throw Error(where,
                fmt::format("file grew past the limit while it was read {}", limit_note(limit_name, limit)));
  }
  return text;
}

std::string read_json_document(const fs::path& file) {
  return read_bounded_file(file, input_limits().json_bytes, "json_bytes");
}

std::string line_too_long_reason(std::uint64_t bytes) {
  return fmt::format("line is {} bytes, over the limit {}; it was skipped", bytes,
                     limit_note("jsonl_line_bytes", input_limits().jsonl_line_bytes));
}

void for_each_jsonl_line(const fs::path& file, const std::function<bool(const JsonlLine&)>& on_line,
                         const std::function<void(std::size_t, std::uint64_t)>& on_too_long) {
  const Location where{file.string(), 0, ""};
  std::error_code ec;
  if (fs::is_directory(file, ec)) throw Error(where, "not a regular file");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(where, std::string("cannot open file: ") + std::strerror(errno));
  const std::uint64_t limit = input_limits().jsonl_line_bytes;
  std::vector<char> chunk(std::size_t{1} << 16);
  std::string line;
  std::uint64_t length = 0;  // of the current line, counted even when it is not kept
  std::size_t number = 1;
  bool more = true;
  const auto finish_line = [&] {
    if (length > limit) {
      on_too_long(number, length);
    } else {
      std::string_view text(line);
      if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
      if (text.find_first_not_of(" \t") != std::string_view::npos) more = on_line(JsonlLine{number, text});
    }
    line.clear();
    length = 0;
    ++number;
  };
  while (in && more) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    std::size_t start = 0;
    while (start < got) {
      const void* nl = std::memchr(chunk.data() + start, '\n', got - start);
      const std::size_t end =
          nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - chunk.data()) : got;
      length += end - start;
      if (length <= limit) line.append(chunk.data() + start, end - start);
      if (nl == nullptr) break;
      finish_line();
      if (!more) return;
      start = end + 1;
    }
  }
  if (in.bad()) throw Error(where, "cannot read file");
  if (length > 0 || !line.empty()) finish_line();
}

}  // namespace kh
