// One SQLite connection: open, run SQL, prepare statements. Move-only; closed on
// destruction. Errors are SqliteError (or BusyError) naming the database file.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "archive/sqlite_statement.h"

struct sqlite3;

namespace kh::archive {

class Database {
 public:
  enum class Mode { create, read_write, read_only };

  // Opens the file (creating it in Mode::create); throws SqliteError naming it.
  static Database open(const std::filesystem::path& file, Mode mode);

  ~Database();
  Database(Database&& other) noexcept;
  Database& operator=(Database&& other) noexcept;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Runs one or more statements whose rows, if any, are not wanted.
  void exec(std::string_view sql);
  [[nodiscard]] Statement prepare(std::string_view sql) const;
  // The first column of the first row of a query (0 or "" when it returns no row).
  [[nodiscard]] std::int64_t query_int(std::string_view sql) const;
  [[nodiscard]] std::string query_text(std::string_view sql) const;

  [[nodiscard]] std::int64_t last_insert_rowid() const;
  // Rows changed by the last INSERT, UPDATE or DELETE.
  [[nodiscard]] int changes() const;
  [[nodiscard]] bool in_transaction() const;
  void set_busy_timeout(std::chrono::milliseconds timeout);
  [[nodiscard]] const std::filesystem::path& file() const noexcept { return file_; }

 private:
  Database(sqlite3* db, std::filesystem::path file) noexcept : db_(db), file_(std::move(file)) {}

  sqlite3* db_ = nullptr;
  std::filesystem::path file_;
};

}  // namespace kh::archive
