#include "archive/archive.h"

#include <chrono>

#include "archive/schema.h"
#include "archive/write_transaction.h"
#include "error/error.h"

namespace kh::archive {
namespace fs = std::filesystem;
namespace {

// How long one statement waits for another process's lock before BusyError; the
// write transaction retries beyond it.
constexpr std::chrono::milliseconds kBusyTimeout{5000};

// WAL lets readers work beside one writer, and a commit is one append to the log: a
// kill -9 at any point leaves the last committed state. synchronous=NORMAL syncs the
// log at checkpoints only: a process crash loses nothing committed; a power cut may
// lose the last commits but never corrupts the file.
void configure(Database& db) {
  db.set_busy_timeout(kBusyTimeout);
  Backoff backoff{RetryPolicy{}};
  for (;;) {
    try {
      // Switching to WAL needs a moment of exclusive access, which a writer in another
      // process may hold: retried like a transaction.
      if (db.query_text("PRAGMA journal_mode = WAL") != "wal") {
        throw Error(Location{db.file().string(), 0, "journal_mode"}, "the index cannot use WAL mode");
      }
      break;
    } catch (const BusyError& e) {
      backoff.wait_or_throw(e);
    }
  }
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
}

}  // namespace

Archive::Archive(fs::path dir, Database db)
    : dir_(std::move(dir)), db_(std::move(db)), blobs_(dir_ / "blobs") {}

Archive Archive::open_or_create(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir / "blobs", ec);
  if (ec) throw Error(Location{dir.string(), 0, ""}, "cannot create the archive folder: " + ec.message());
  Database db = Database::open(dir / kIndexFile, Database::Mode::create);
  configure(db);
  migrate(db);
  return Archive(dir, std::move(db));
}

Archive Archive::open_existing(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_regular_file(dir / kIndexFile, ec)) {
    throw Error(Location{dir.string(), 0, ""}, std::string("not an archive: no ") + kIndexFile +
                                                   " (create one with `kharness archive import` "
                                                   "or `kharness eval --archive`)");
  }
  Database db = Database::open(dir / kIndexFile, Database::Mode::read_write);
  configure(db);
  migrate(db);
  return Archive(dir, std::move(db));
}

}  // namespace kh::archive
