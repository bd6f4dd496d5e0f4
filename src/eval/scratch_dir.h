// The workers' scratch folder (their cwd and logs) for one evaluation. One the caller
// named is kept; a temporary one (<tmp>/kharness-eval-XXXXXX) is removed when the
// evaluation ends. A run killed with SIGKILL cannot remove its own, so each temporary
// folder holds a lock (flock on its `owner.lock`) for as long as its process lives, and
// every new one first removes the folders whose lock is free: their owner is dead. A
// live run's folder is never touched; a folder without a lock file (an older kharness,
// or one being created this instant) is left alone.
#pragma once

#include <filesystem>

namespace kh {

class ScratchDir {
 public:
  explicit ScratchDir(const std::filesystem::path& requested);
  ScratchDir(const ScratchDir&) = delete;  // one owner removes it, once
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir();
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
  bool owned_ = false;
  int lock_fd_ = -1;
};

// Removes the temporary scratch folders under `temp_root` whose owner is dead; returns
// how many. ScratchDir calls it with the system's temp folder.
std::size_t remove_orphaned_scratch_dirs(const std::filesystem::path& temp_root);

}  // namespace kh
