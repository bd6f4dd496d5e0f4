// The archive index's schema and its migrations.
//
// PRAGMA user_version holds the schema version. Migrations are applied in order, each
// as SQL, all in one BEGIN IMMEDIATE transaction that re-reads the version under the
// write lock, so that processes opening a fresh archive at once migrate it exactly
// once. A database newer than this kharness knows is refused, never written to.
#pragma once

#include <span>
#include <string_view>

#include "archive/sqlite_database.h"

namespace kh::archive {

struct Migration {
  int to_version;        // user_version after it; migrations are listed in increasing order
  std::string_view sql;  // may hold several statements
};

// Every migration kharness knows, oldest first.
[[nodiscard]] std::span<const Migration> migrations() noexcept;
// The version a fully migrated archive has.
[[nodiscard]] int current_schema_version() noexcept;

// Brings `db` to the last version of `steps`. Returns the version it found. Throws
// kh::Error when the database is newer than the last step or a step fails (then the
// version is unchanged: the transaction rolls back).
int migrate(Database& db, std::span<const Migration> steps = migrations());

}  // namespace kh::archive
