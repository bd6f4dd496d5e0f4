#include "archive/sqlite_error.h"

#include <sqlite3.h>

namespace kh::archive {

void throw_sqlite(sqlite3* db, int code, const std::string& file, std::string_view what) {
  const char* message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code);
  std::string reason = std::string(what) + ": " + (message != nullptr ? message : sqlite3_errstr(code));
  const int primary = code & 0xff;
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
    throw BusyError(Location{file, 0, ""}, reason, code);
  throw SqliteError(Location{file, 0, ""}, reason, code);
}

}  // namespace kh::archive
