// How large an input kharness accepts, for every file and field a person or an agent
// hands it, so that no input can exhaust memory or crash a command: a document that
// is too large is refused before it is read, a JSONL line that is too long is skipped
// (and reported) without ever being held whole, and a solution's sources are bounded in
// number, size and path length. Each error names the limit and how to raise it.
//
// The defaults are far above anything the FlashInfer-Trace format holds (the largest
// public definition is 30 KB, the largest solution 200 KB). A person who needs more
// sets the environment variable named with each limit (bytes or a count), e.g.
// KHARNESS_MAX_JSON_BYTES=268435456.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kh {

struct InputLimits {
  std::uint64_t json_bytes = std::uint64_t{64} << 20;         // a definition, solution or config document
  std::uint64_t jsonl_line_bytes = std::uint64_t{16} << 20;   // one workload or trace line
  std::uint64_t jsonl_file_bytes = std::uint64_t{512} << 20;  // a JSONL file read whole (archive import)
  std::uint64_t sources = 1000;                               // source files of one solution
  std::uint64_t source_bytes = std::uint64_t{16} << 20;       // one source file's content
  std::uint64_t sources_bytes = std::uint64_t{64} << 20;      // all of one solution's sources
  std::uint64_t source_path_chars = 1024;                     // one source path (each part at most 255 bytes)
};

// The limits in force: the defaults, each overridden by its environment variable
// (read once; an unreadable value is ignored with the default kept).
[[nodiscard]] const InputLimits& input_limits();

// The sentence an error ends with: "(limit <name>: <value>; raise it with <ENV>=N)".
[[nodiscard]] std::string limit_note(std::string_view name, std::uint64_t value);

}  // namespace kh
