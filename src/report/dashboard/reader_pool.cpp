#include "report/dashboard/reader_pool.h"

namespace kh::report::dashboard {

ReaderPool::ReaderPool(std::filesystem::path dir) : dir_(std::move(dir)) {
  idle_.push_back(std::make_unique<ArchiveReader>(ArchiveReader::open(dir_)));
}

ReaderPool::Lease ReaderPool::lease() {
  {
    std::lock_guard lock(mutex_);
    if (!idle_.empty()) {
      std::unique_ptr<ArchiveReader> r = std::move(idle_.back());
      idle_.pop_back();
      return Lease(*this, std::move(r));
    }
  }
  return Lease(*this, std::make_unique<ArchiveReader>(ArchiveReader::open(dir_)));
}

void ReaderPool::give_back(std::unique_ptr<ArchiveReader> reader) {
  if (!reader) return;
  std::lock_guard lock(mutex_);
  idle_.push_back(std::move(reader));
}

}  // namespace kh::report::dashboard
