// SQLite failures as kh::Error, naming the database file and SQLite's own reason.
//
// SQLITE_BUSY and SQLITE_LOCKED surface as BusyError, so that a write transaction can
// tell "another process holds the lock, try again" from every other failure.
#pragma once

#include <string>
#include <string_view>

#include "error/error.h"

struct sqlite3;

namespace kh::archive {

// Any failure SQLite reports; `code` is its extended result code.
class SqliteError : public Error {
 public:
  SqliteError(Location where, std::string reason, int code)
      : Error(std::move(where), std::move(reason)), code_(code) {}
  [[nodiscard]] int code() const noexcept { return code_; }

 private:
  int code_;
};

// Another connection held the lock longer than busy_timeout allowed.
class BusyError : public SqliteError {
 public:
  using SqliteError::SqliteError;
};

// Throws BusyError for SQLITE_BUSY/SQLITE_LOCKED, else SqliteError. `db` may be null
// (the message then comes from the code alone); `what` says what was being done.
[[noreturn]] void throw_sqlite(sqlite3* db, int code, const std::string& file, std::string_view what);

}  // namespace kh::archive
