// An archive: a folder holding the SQLite index (index.sqlite) and the blob store
// (blobs/). Opening one configures the connection for many writing processes (WAL,
// busy_timeout, foreign keys) and migrates the schema to the current version.
#pragma once

#include <filesystem>

#include "archive/blob_store.h"
#include "archive/sqlite_database.h"

namespace kh::archive {

class Archive {
 public:
  // Creates the folder and the index when absent (commands that write: import, eval).
  static Archive open_or_create(const std::filesystem::path& dir);
  // Refuses a folder without an index, naming it (commands that read: export, rerun).
  static Archive open_existing(const std::filesystem::path& dir);

  [[nodiscard]] Database& db() noexcept { return db_; }
  [[nodiscard]] const BlobStore& blobs() const noexcept { return blobs_; }
  [[nodiscard]] const std::filesystem::path& dir() const noexcept { return dir_; }

  static constexpr const char* kIndexFile = "index.sqlite";

 private:
  Archive(std::filesystem::path dir, Database db);

  std::filesystem::path dir_;
  Database db_;
  BlobStore blobs_;
};

}  // namespace kh::archive
