#include "eval/scratch_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "error/error.h"

namespace kh {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kPrefix = "kharness-eval-";
constexpr const char* kLock = "owner.lock";

// A dead owner's workers die with it, but one may still be closing its log when the
// sweep starts, and a file made behind remove_all() makes it fail: try again briefly.
bool remove_dead_folder(const fs::path& dir) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    std::error_code ec;
    fs::remove_all(dir, ec);
    if (!fs::exists(dir, ec)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

}  // namespace

std::size_t remove_orphaned_scratch_dirs(const fs::path& temp_root) {
  std::size_t removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(temp_root, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::error_code type_ec;
    if (!it->path().filename().string().starts_with(kPrefix) || it->is_symlink(type_ec) ||
        !it->is_directory(type_ec))
      continue;
    const fs::path lock = it->path() / kLock;
    const int fd = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) continue;  // no lock file: not ours to judge
    // The owner holds the lock while it lives; the kernel drops it when the owner dies.
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      removed += remove_dead_folder(it->path()) ? 1 : 0;
    }
    ::close(fd);
  }
  return removed;
}

ScratchDir::ScratchDir(const fs::path& requested) {
  if (!requested.empty()) {
    fs::create_directories(requested);
    path_ = requested;
    return;
  }
  std::error_code ec;
  const fs::path root = fs::temp_directory_path(ec);
  if (ec) throw Error("no temporary folder for the workers' scratch: " + ec.message());
  remove_orphaned_scratch_dirs(root);
  // Made under another name and locked before it is renamed into view, so that no
  // sweeper ever sees it unlocked.
  std::string staged = (root / ".kharness-stage-XXXXXX").string();
  if (mkdtemp(staged.data()) == nullptr)
    throw Error("cannot create a scratch directory under " + root.string());
  lock_fd_ = ::open((fs::path(staged) / kLock).c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (lock_fd_ < 0 || ::flock(lock_fd_, LOCK_EX) != 0) {
    fs::remove_all(staged, ec);
    throw Error("cannot lock the scratch directory " + staged);
  }
  path_ = root / (std::string(kPrefix) + staged.substr(staged.size() - 6));
  if (::rename(staged.c_str(), path_.c_str()) != 0) {
    fs::remove_all(staged, ec);
    throw Error("cannot create the scratch directory " + path_.string());
  }
  owned_ = true;
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;  // best effort: a leftover is removed by the next run anyway
  if (owned_) fs::remove_all(path_, ignored);
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

}  // namespace kh
