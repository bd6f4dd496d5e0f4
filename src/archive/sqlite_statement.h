// One prepared SQLite statement: bind, step, read columns. Move-only; finalised on
// destruction. Errors are SqliteError (or BusyError) naming the database file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace kh::archive {

class Statement {
 public:
  Statement(sqlite3* db, sqlite3_stmt* stmt, std::string file) noexcept
      : db_(db), stmt_(stmt), file_(std::move(file)) {}
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Parameters are 1-based, as in SQLite. Each returns *this so that binds chain.
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view text);
  Statement& bind(int index, const std::string& text) { return bind(index, std::string_view(text)); }
  Statement& bind(int index, const char* text) { return bind(index, std::string_view(text)); }
  Statement& bind(int index, std::nullptr_t);
  Statement& bind_blob(int index, std::span<const std::byte> bytes);
  template <class T>
  Statement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bind(index, nullptr);
  }

  // One step: true when a row is ready to be read, false when the statement is done.
  bool step();
  // Steps to completion and resets, for statements that return no rows.
  void run();
  // Ready to run again; bindings are cleared too.
  void reset();

  [[nodiscard]] bool is_null(int column) const;
  [[nodiscard]] std::int64_t column_int(int column) const;
  [[nodiscard]] double column_double(int column) const;
  [[nodiscard]] std::string column_text(int column) const;
  [[nodiscard]] std::optional<std::string> column_optional_text(int column) const;
  [[nodiscard]] std::optional<double> column_optional_double(int column) const;
  [[nodiscard]] std::optional<std::int64_t> column_optional_int(int column) const;
  [[nodiscard]] std::span<const std::byte> column_blob(int column) const;

 private:
  void check_bind(int code, int index);

  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  std::string file_;
};

}  // namespace kh::archive
