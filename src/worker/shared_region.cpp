#include "worker/shared_region.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <utility>

#include "base/os_error.h"
#include "error/error.h"

namespace kh {

namespace {

std::byte* map(int fd, std::size_t bytes, int protection, const char* what) {
  void* p = ::mmap(nullptr, bytes, protection, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) throw os_error(std::string("mmap(") + what + ")");
  return static_cast<std::byte*>(p);
}

}  // namespace

SharedRegion SharedRegion::create(std::size_t bytes) {
  if (bytes == 0) throw Error("a shared reply region needs a size above zero");
  const int raw = ::memfd_create("kharness-reply-region", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (raw < 0) throw os_error("memfd_create(reply region)");
  UniqueFd fd(raw);
  if (::ftruncate(fd.get(), static_cast<off_t>(bytes)) != 0) throw os_error("ftruncate(reply region)");
  // A worker that shrank the file would make the orchestrator's next read of it fault.
  if (::fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
    throw os_error("fcntl(F_ADD_SEALS, reply region)");
  std::byte* data = map(fd.get(), bytes, PROT_READ, "reply region");
  return {std::move(fd), data, bytes};
}

SharedRegion SharedRegion::map_inherited(int raw) {
  UniqueFd fd(raw);
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) throw os_error("fstat(reply region)");
  if (!S_ISREG(info.st_mode) || info.st_size <= 0)
    throw Error(fmt::format("descriptor {} is not a reply region (a sized memory file)", raw));
  const int seals = ::fcntl(fd.get(), F_GET_SEALS);
  if (seals < 0 || (seals & F_SEAL_SHRINK) == 0)
    throw Error(fmt::format("descriptor {} is not a sealed reply region", raw));
  const int flags = ::fcntl(fd.get(), F_GETFD);
  if (flags < 0 || ::fcntl(fd.get(), F_SETFD, flags | FD_CLOEXEC) != 0) throw os_error("fcntl(reply region)");
  const auto bytes = static_cast<std::size_t>(info.st_size);
  std::byte* data = map(fd.get(), bytes, PROT_READ | PROT_WRITE, "reply region");
  return {std::move(fd), data, bytes};
}

SharedRegion::~SharedRegion() { unmap(); }

SharedRegion::SharedRegion(SharedRegion&& other) noexcept
    : fd_(std::move(other.fd_)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

SharedRegion& SharedRegion::operator=(SharedRegion&& other) noexcept {
  if (this != &other) {
    unmap();
    fd_ = std::move(other.fd_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void SharedRegion::unmap() noexcept {
  if (data_ != nullptr) ::munmap(data_, size_);
  data_ = nullptr;
  size_ = 0;
}

}  // namespace kh
