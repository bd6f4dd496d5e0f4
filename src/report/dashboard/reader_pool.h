// Read-only connections to the archive, one per request at a time: SQLite connections
// here are opened without a mutex (SQLITE_OPEN_NOMUTEX), so no two threads may share
// one. A lease returns its reader to the pool when it goes out of scope.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <vector>

#include "report/archive_reader.h"

namespace kh::report::dashboard {

class ReaderPool {
 public:
  // Opens one reader now, so that a bad archive fails at start, not on the first request.
  explicit ReaderPool(std::filesystem::path dir);

  class Lease {
   public:
    Lease(ReaderPool& pool, std::unique_ptr<ArchiveReader> reader)
        : pool_(pool), reader_(std::move(reader)) {}
    ~Lease() { pool_.give_back(std::move(reader_)); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    [[nodiscard]] const ArchiveReader& operator*() const noexcept { return *reader_; }
    [[nodiscard]] const ArchiveReader* operator->() const noexcept { return reader_.get(); }

   private:
    ReaderPool& pool_;
    std::unique_ptr<ArchiveReader> reader_;
  };

  [[nodiscard]] Lease lease();
  [[nodiscard]] const std::filesystem::path& dir() const noexcept { return dir_; }

 private:
  void give_back(std::unique_ptr<ArchiveReader> reader);

  std::filesystem::path dir_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<ArchiveReader>> idle_;
};

}  // namespace kh::report::dashboard
