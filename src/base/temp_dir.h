// A uniquely named directory that is removed with everything in it unless released.
#pragma once

#include <filesystem>
#include <string_view>

namespace kh::detail {

class TempDir {
 public:
  // Creates <parent>/<prefix>XXXXXX (parent is created if missing). Throws kh::Error.
  TempDir(const std::filesystem::path& parent, std::string_view prefix);
  TempDir(const TempDir&) = delete;  // exactly one owner removes the directory
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();

  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  // Stops owning the directory (it was renamed into place); it is then not removed.
  void release() noexcept { path_.clear(); }

 private:
  std::filesystem::path path_;
};

}  // namespace kh::detail
