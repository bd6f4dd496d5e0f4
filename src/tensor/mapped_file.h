// MappedFile: a read-only memory mapping of a whole file, unmapped on destruction.
// Move-only. An empty file maps to an empty span (mmap cannot map zero bytes).
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace kh {

class MappedFile {
 public:
  MappedFile() = default;
  // Throws kh::Error naming the path when it cannot be opened, stat'ed or mapped.
  static MappedFile open(const std::string& path);

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return {data_, size_}; }
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

 private:
  void release() noexcept;

  std::string path_;
  const std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace kh
