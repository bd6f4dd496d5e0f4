// kh::Error: the one exception type of kharness.
//
// Every failure a user can cause (a bad file, a bad field, a bad flag) is reported
// as an Error that names where it happened (file, line for JSONL, field) and why, so
// the CLI can print one clear line and pick an exit code without parsing messages.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace kh {

// Where a problem was found. Every part is optional; empty parts are omitted when printed.
struct Location {
  std::string file;      // path as the user gave it
  std::size_t line = 0;  // 1-based line for JSONL files, 0 when not applicable
  std::string field;     // JSON-pointer-like path, e.g. "inputs.q.dtype"

  // "file:line: field" with empty parts left out.
  [[nodiscard]] std::string to_string() const;
};

class Error : public std::runtime_error {
 public:
  Error(Location where, std::string reason);
  explicit Error(std::string reason) : Error(Location{}, std::move(reason)) {}

  [[nodiscard]] const Location& where() const noexcept { return where_; }
  [[nodiscard]] const std::string& reason() const noexcept { return reason_; }

 private:
  Location where_;
  std::string reason_;
};

}  // namespace kh
