// SharedRegion: memory that the orchestrator and one worker both map, through which a
// reply's payload travels instead of through the channel's socket.
//
// A Unix socket moves bytes at 2-4 GB/s (two copies through the kernel); an evaluation of
// gemm at M = 8192 sends about 2 GB of outputs, a second of socket time. Through the region
// the worker writes a payload in place (on the GPU, the device-to-host copy lands there
// directly, into pinned pages) and the orchestrator copies it out once.
//
// The orchestrator creates the region (a sealed memfd, docs/worker.md): the worker can
// write it but never shrink it, so reading it cannot fault. The worker is untrusted, so
// the orchestrator copies a payload out before looking at it: bytes that change under a
// reader are never read twice.
#pragma once

#include <cstddef>
#include <span>

#include "base/unique_fd.h"

namespace kh {

class SharedRegion {
 public:
  SharedRegion() = default;
  // The orchestrator's side: a new memfd of `bytes`, its size sealed, mapped read-only
  // here. kh::Error when it cannot be made.
  [[nodiscard]] static SharedRegion create(std::size_t bytes);
  // The worker's side: maps an inherited region's descriptor for writing.
  [[nodiscard]] static SharedRegion map_inherited(int fd);

  ~SharedRegion();
  SharedRegion(const SharedRegion&) = delete;
  SharedRegion& operator=(const SharedRegion&) = delete;
  SharedRegion(SharedRegion&& other) noexcept;
  SharedRegion& operator=(SharedRegion&& other) noexcept;

  [[nodiscard]] bool mapped() const noexcept { return data_ != nullptr; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] int fd() const noexcept { return fd_.get(); }
  // Writable only on the worker's side; the orchestrator's mapping is read-only.
  [[nodiscard]] std::span<std::byte> bytes() const noexcept { return {data_, size_}; }

 private:
  SharedRegion(UniqueFd fd, std::byte* data, std::size_t size) noexcept
      : fd_(std::move(fd)), data_(data), size_(size) {}
  void unmap() noexcept;

  UniqueFd fd_;
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace kh
