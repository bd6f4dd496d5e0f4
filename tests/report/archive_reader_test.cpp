// The reports' read-only open of an archive: the schema versions whose tables the reports read
// unchanged are read as they are (no writing command first), the others refused with what to do.
#include "report/archive_reader.h"

#include <gtest/gtest.h>

#include "archive/schema.h"
#include "archive/sqlite_database.h"
#include "error/error.h"
#include "report/report_loader.h"
#include "report_fixtures.h"

namespace kh::report {
namespace {

using archive::Database;
namespace fs = std::filesystem;

void set_version(const fs::path& dir, int version, const char* change = nullptr) {
  Database db = Database::open(dir / archive::Archive::kIndexFile, Database::Mode::read_write);
  if (change != nullptr) db.exec(change);
  db.exec("PRAGMA user_version = " + std::to_string(version));
}

std::string refusal(const fs::path& dir) {
  try {
    (void)ArchiveReader::open(dir);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// An archive as version 4 wrote it (before the memory's candidate_family): reported in full, and
// still version 4 afterwards.
TEST(ArchiveReaderSchema, AVersionFourArchiveIsReadAsItIs) {
  test::TempDir dir;
  ASSERT_EQ(test::import_toy_set(dir.path()), 0U);
  set_version(dir.path(), 4, "ALTER TABLE hypothesis_outcomes DROP COLUMN candidate_family");
  const ArchiveReader reader = ArchiveReader::open(dir.path());
  const DefinitionReport r = load_definition_report(reader, test::kToy, std::nullopt);
  EXPECT_EQ(r.candidates.size(), 3U);
  EXPECT_TRUE(r.tampered.empty());
  const Database db = Database::open(dir.path() / archive::Archive::kIndexFile, Database::Mode::read_only);
  EXPECT_EQ(db.query_int("PRAGMA user_version"), 4) << "a report never migrates";
}

TEST(ArchiveReaderSchema, OlderAndNewerVersionsAreRefusedWithWhatToDo) {
  test::TempDir dir;
  ASSERT_EQ(test::import_toy_set(dir.path()), 0U);
  set_version(dir.path(), 3);
  std::string why = refusal(dir.path());
  EXPECT_NE(why.find("index.sqlite"), std::string::npos) << why;
  EXPECT_NE(why.find("schema version 3"), std::string::npos) << why;
  EXPECT_NE(why.find("`kharness archive ls`, migrates it"), std::string::npos) << why;
  set_version(dir.path(), archive::current_schema_version() + 1);
  why = refusal(dir.path());
  EXPECT_NE(why.find("use a newer kharness"), std::string::npos) << why;
}

}  // namespace
}  // namespace kh::report
