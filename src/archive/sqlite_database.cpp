#include "archive/sqlite_database.h"

#include <sqlite3.h>

#include <utility>

#include "archive/sqlite_error.h"

namespace kh::archive {

Database Database::open(const std::filesystem::path& file, Mode mode) {
  int flags = SQLITE_OPEN_NOMUTEX;  // one connection per thread; no shared-cache locking
  switch (mode) {
    case Mode::create:
      flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
      break;
    case Mode::read_write:
      flags |= SQLITE_OPEN_READWRITE;
      break;
    case Mode::read_only:
      flags |= SQLITE_OPEN_READONLY;
      break;
  }
  sqlite3* db = nullptr;
  const int code = sqlite3_open_v2(file.c_str(), &db, flags, nullptr);
  if (code != SQLITE_OK) {
    // The handle exists even on failure and holds the message; close it after reading.
    std::string reason = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code);
    sqlite3_close(db);
    throw SqliteError(Location{file.string(), 0, ""}, "cannot open the archive index: " + reason, code);
  }
  sqlite3_extended_result_codes(db, 1);
  return Database(db, file);
}

Database::~Database() {
  // Statements are finalised by their owners first; close_v2 defers if one is left.
  sqlite3_close_v2(db_);
}

Database::Database(Database&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), file_(std::move(other.file_)) {}

Database& Database::operator=(Database&& other) noexcept {
  if (this != &other) {
    sqlite3_close_v2(db_);
    db_ = std::exchange(other.db_, nullptr);
    file_ = std::move(other.file_);
  }
  return *this;
}

void Database::exec(std::string_view sql) {
  const std::string text(sql);
  char* message = nullptr;
  const int code = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message);
  sqlite3_free(message);  // sqlite3_errmsg still holds the same text
  if (code != SQLITE_OK) throw_sqlite(db_, code, file_.string(), "running '" + text.substr(0, 80) + "'");
}

Statement Database::prepare(std::string_view sql) const {
  sqlite3_stmt* stmt = nullptr;
  const int code = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                                      SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (code != SQLITE_OK) {
    throw_sqlite(db_, code, file_.string(), "preparing '" + std::string(sql.substr(0, 80)) + "'");
  }
  return Statement(db_, stmt, file_.string());
}

std::int64_t Database::query_int(std::string_view sql) const {
  Statement s = prepare(sql);
  return s.step() ? s.column_int(0) : 0;
}

std::string Database::query_text(std::string_view sql) const {
  Statement s = prepare(sql);
  return s.step() ? s.column_text(0) : std::string();
}

std::int64_t Database::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }

int Database::changes() const { return sqlite3_changes(db_); }

bool Database::in_transaction() const { return sqlite3_get_autocommit(db_) == 0; }

void Database::set_busy_timeout(std::chrono::milliseconds timeout) {
  sqlite3_busy_timeout(db_, static_cast<int>(timeout.count()));
}

}  // namespace kh::archive
