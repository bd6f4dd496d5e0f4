// Schema versions: a fresh or version-0 index is migrated, migrations run in order and
// all or nothing, and an index newer than this kharness is refused untouched.
#include "archive/schema.h"

#include <gtest/gtest.h>

#include <array>

#include "archive/archive.h"
#include "archive_fixtures.h"
#include "error/error.h"

namespace kh::archive {
namespace {

using test::TempDir;

std::int64_t table_count(const Database& db, const std::string& name) {
  return db.query_int("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '" + name + "'");
}

TEST(Schema, AnEmptyIndexFileIsMigratedToTheCurrentVersion) {
  TempDir dir;
  dir.write("a/index.sqlite", "");  // zero bytes: a version-0 database
  Archive a = Archive::open_existing(dir / "a");
  EXPECT_EQ(a.db().query_int("PRAGMA user_version"), current_schema_version());
  EXPECT_EQ(current_schema_version(), 5);
  for (const char* table : {"blobs", "definitions", "workloads", "workload_files", "solutions", "builds",
                            "runs", "run_workloads", "traces", "samples", "environments", "profiles",
                            "decisions", "loop_manifest", "imports", "hypothesis_outcomes"}) {
    EXPECT_EQ(table_count(a.db(), table), 1) << table;
  }
  EXPECT_EQ(a.db().query_text("PRAGMA journal_mode"), "wal");
  EXPECT_EQ(a.db().query_int("PRAGMA foreign_keys"), 1);
}

TEST(Schema, AVersionZeroDatabaseWithOtherTablesIsMigratedAndKeepsThem) {
  TempDir dir;
  {
    Database db = Database::open(dir / "index.sqlite", Database::Mode::create);
    db.exec("CREATE TABLE notes(text TEXT); INSERT INTO notes VALUES ('kept')");
  }
  Archive a = Archive::open_existing(dir.path());
  EXPECT_EQ(a.db().query_int("PRAGMA user_version"), current_schema_version());
  EXPECT_EQ(a.db().query_text("SELECT text FROM notes"), "kept");
  EXPECT_EQ(table_count(a.db(), "traces"), 1);
}

TEST(Schema, OpeningTwiceMigratesOnce) {
  TempDir dir;
  { Archive a = Archive::open_or_create(dir.path()); }
  Archive b = Archive::open_or_create(dir.path());
  EXPECT_EQ(b.db().query_int("PRAGMA user_version"), current_schema_version());
}

// An archive written at version 1 (before the leaderboard index) gains the index and
// keeps its rows.
TEST(Schema, AVersionOneArchiveMigratesToTheCurrentVersion) {
  TempDir dir;
  const char* has_index =
      "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = 'traces_leaderboard'";
  {
    Database db = Database::open(dir / "index.sqlite", Database::Mode::create);
    EXPECT_EQ(migrate(db, migrations().first(1)), 0);
    db.exec(
        "INSERT INTO definitions (name, op_type, content_hash, json, created_at) "
        "VALUES ('d', 'gemm', 'h', '{}', '2026-11-30T00:00:00Z')");
    EXPECT_EQ(db.query_int(has_index), 0);
  }
  Archive a = Archive::open_existing(dir.path());
  EXPECT_EQ(a.db().query_int("PRAGMA user_version"), current_schema_version());
  EXPECT_EQ(a.db().query_int(has_index), 1);
  EXPECT_EQ(a.db().query_text("SELECT name FROM definitions"), "d");
}

// An archive at version 2 (before the controller's memory) gains the memory table and
// keeps its decisions and manifest, which loops written then resume from.
TEST(Schema, AVersionTwoArchiveMigratesAndKeepsItsRows) {
  TempDir dir;
  {
    Database db = Database::open(dir / "index.sqlite", Database::Mode::create);
    EXPECT_EQ(migrate(db, migrations().first(2)), 0);
    db.exec(
        "INSERT INTO definitions (name, op_type, content_hash, json, created_at) "
        "VALUES ('d', 'gemm', 'h', '{}', '2026-11-30T00:00:00Z');"
        "INSERT INTO decisions (loop_id, round, kind, evidence_json, started_at, decided_at) "
        "VALUES ('loop-1', 4, 'promote', '{}', 't0', 't1');"
        "INSERT INTO loop_manifest (loop_id, key, value_json, updated_at) VALUES ('loop-1', 'round', '4', "
        "'t1')");
    EXPECT_EQ(table_count(db, "hypothesis_outcomes"), 0);
  }
  Archive a = Archive::open_existing(dir.path());
  EXPECT_EQ(a.db().query_int("PRAGMA user_version"), current_schema_version());
  EXPECT_EQ(table_count(a.db(), "hypothesis_outcomes"), 1);
  EXPECT_EQ(a.db().query_text("SELECT name FROM definitions"), "d");
  EXPECT_EQ(a.db().query_int("SELECT round FROM decisions WHERE loop_id = 'loop-1'"), 4);
  EXPECT_EQ(a.db().query_text("SELECT value_json FROM loop_manifest WHERE key = 'round'"), "4");
}

TEST(Schema, ANewerIndexIsRefusedWithAClearErrorAndLeftAlone) {
  TempDir dir;
  {
    Database db = Database::open(dir / "index.sqlite", Database::Mode::create);
    db.exec("PRAGMA user_version = 99");
  }
  try {
    Archive a = Archive::open_existing(dir.path());
    FAIL() << "a newer schema was opened";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("99"), std::string::npos) << what;
    EXPECT_NE(what.find("newer"), std::string::npos) << what;
  }
  Database db = Database::open(dir / "index.sqlite", Database::Mode::read_only);
  EXPECT_EQ(db.query_int("PRAGMA user_version"), 99);
  EXPECT_EQ(table_count(db, "traces"), 0);
}

TEST(Schema, MigrationsRunInOrderAndAFailedOneKeepsTheVersion) {
  TempDir dir;
  Database db = Database::open(dir / "x.sqlite", Database::Mode::create);
  const std::array steps = {Migration{1, "CREATE TABLE a(x INTEGER)"},
                            Migration{2, "ALTER TABLE a ADD COLUMN y TEXT; INSERT INTO a VALUES (1, 'two')"},
                            Migration{3, "THIS IS NOT SQL"}};
  EXPECT_EQ(migrate(db, std::span(steps).first(2)), 0);
  EXPECT_EQ(db.query_int("PRAGMA user_version"), 2);
  EXPECT_EQ(db.query_text("SELECT y FROM a"), "two") << "step 2 ran after step 1";
  try {
    migrate(db, steps);
    FAIL() << "a broken migration succeeded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("schema version 3"), std::string::npos) << e.what();
  }
  EXPECT_EQ(db.query_int("PRAGMA user_version"), 2) << "a failed migration rolls back";
  EXPECT_EQ(migrate(db, std::span(steps).first(2)), 2) << "nothing left to do";
}

TEST(Schema, OpenExistingNamesAFolderWithoutAnIndex) {
  TempDir dir;
  try {
    Archive a = Archive::open_existing(dir.path());
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not an archive"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kh::archive
