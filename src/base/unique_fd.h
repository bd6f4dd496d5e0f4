// UniqueFd: the sole owner of one file descriptor.
#pragma once

#include <utility>

namespace kh {

// Closes its descriptor exactly once. Move-only: two owners of one descriptor
// would close it twice, and the second close could hit an unrelated file that
// reused the number in the meantime.
class UniqueFd {
 public:
  UniqueFd() noexcept = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  ~UniqueFd() { reset(); }

  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }

  [[nodiscard]] int get() const noexcept { return fd_; }
  [[nodiscard]] bool valid() const noexcept { return fd_ >= 0; }
  explicit operator bool() const noexcept { return valid(); }

  // Gives up ownership without closing.
  [[nodiscard]] int release() noexcept { return std::exchange(fd_, -1); }
  // Closes the current descriptor (if any) and owns `fd` instead. A failing
  // close() is not reported: the descriptor is released by the kernel either way.
  void reset(int fd = -1) noexcept;

 private:
  int fd_ = -1;
};

}  // namespace kh
