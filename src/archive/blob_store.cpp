#include "archive/blob_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <utility>

#include "base/sha256.h"
#include "error/error.h"

namespace kh::archive {
namespace fs = std::filesystem;
namespace {

[[noreturn]] void fail(const fs::path& path, std::string_view what, int error) {
  throw Error(Location{path.string(), 0, ""}, std::string(what) + ": " + std::strerror(error));
}

// Closes the descriptor on every path out of a write.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) noexcept : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  FileDescriptor& operator=(FileDescriptor&&) = delete;
  [[nodiscard]] int get() const noexcept { return fd_; }
  // close() reports write-back errors on some file systems, so its result counts.
  int close() noexcept { return ::close(std::exchange(fd_, -1)); }

 private:
  int fd_;
};

void fsync_folder(const fs::path& folder) {
  FileDescriptor fd(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) fail(folder, "cannot open folder to sync it", errno);
  if (::fsync(fd.get()) != 0) fail(folder, "cannot sync folder", errno);
}

// A fresh temp file name no other process or thread picks.
fs::path temp_name(const fs::path& dir) {
  static std::atomic<unsigned> counter{0};
  thread_local std::mt19937_64 random(std::random_device{}());
  std::ostringstream name;
  name << "blob." << ::getpid() << "." << counter++ << "." << std::hex << random();
  return dir / name.str();
}

void write_all(int fd, const char* data, std::size_t size, const fs::path& path) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(path, "cannot write blob", errno);
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

FileDescriptor create_temp(const fs::path& dir, fs::path& path) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error(Location{dir.string(), 0, ""}, "cannot create folder: " + ec.message());
  path = temp_name(dir);
  FileDescriptor fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (fd.get() < 0) fail(path, "cannot create temp file", errno);
  return fd;
}

void finish_temp(FileDescriptor& fd, const fs::path& path) {
  if (::fsync(fd.get()) != 0) fail(path, "cannot sync blob", errno);
  if (fd.close() != 0) fail(path, "cannot close blob", errno);
}

}  // namespace

bool is_sha256_hex(std::string_view text) noexcept {
  if (text.size() != 64) return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

BlobStore::BlobStore(fs::path root) : root_(std::move(root)) {}

fs::path BlobStore::path_of(std::string_view sha256) const {
  if (!is_sha256_hex(sha256))
    throw Error(Location{"", 0, "blob"}, "not a SHA-256: '" + std::string(sha256) + "'");
  return root_ / std::string(sha256.substr(0, 2)) / std::string(sha256);
}

bool BlobStore::contains(std::string_view sha256) const {
  std::error_code ec;
  return fs::is_regular_file(path_of(sha256), ec);
}

std::int64_t BlobStore::size_of(std::string_view sha256) const {
  const fs::path path = path_of(sha256);
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) throw Error(Location{path.string(), 0, ""}, "blob is missing from the archive: " + ec.message());
  return static_cast<std::int64_t>(size);
}

void BlobStore::publish(const fs::path& temp, const std::string& sha256) const {
  const fs::path target = path_of(sha256);
  std::error_code ec;
  if (fs::is_regular_file(target, ec)) {
    fs::remove(temp, ec);  // same name, same content: the blob is already stored
    return;
  }
  const fs::path shard = target.parent_path();
  const bool new_shard = !fs::is_directory(shard, ec);
  fs::create_directories(shard, ec);
  if (ec) throw Error(Location{shard.string(), 0, ""}, "cannot create folder: " + ec.message());
  // rename() is atomic: readers see no file or the whole file, never a part of it.
  if (::rename(temp.c_str(), target.c_str()) != 0) {
    const int error = errno;
    fs::remove(temp, ec);
    fail(target, "cannot move blob into place", error);
  }
  fsync_folder(shard);
  if (new_shard) fsync_folder(root_);
}

std::string BlobStore::put(std::string_view bytes) const {
  const std::string sha256 = sha256_hex(bytes);
  if (contains(sha256)) return sha256;
  fs::path temp;
  FileDescriptor fd = create_temp(temp_dir(), temp);
  try {
    write_all(fd.get(), bytes.data(), bytes.size(), temp);
    finish_temp(fd, temp);
    publish(temp, sha256);
  } catch (const Error&) {
    std::error_code ec;
    fs::remove(temp, ec);
    throw;
  }
  return sha256;
}

std::string BlobStore::put_file(const fs::path& file) const {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(Location{file.string(), 0, ""}, "cannot open file to archive it");
  fs::path temp;
  FileDescriptor fd = create_temp(temp_dir(), temp);
  Sha256 hash;
  try {
    std::array<char, 1 << 16> buffer{};
    while (in.read(buffer.data(), buffer.size()) || in.gcount() > 0) {
      const auto n = static_cast<std::size_t>(in.gcount());
      hash.update(std::string_view(buffer.data(), n));
      write_all(fd.get(), buffer.data(), n, temp);
    }
    if (in.bad()) throw Error(Location{file.string(), 0, ""}, "cannot read file to archive it");
    finish_temp(fd, temp);
    const std::string sha256 = hash.hex_digest();
    publish(temp, sha256);
    return sha256;
  } catch (const Error&) {
    std::error_code ec;
    fs::remove(temp, ec);
    throw;
  }
}

std::string BlobStore::read(std::string_view sha256) const {
  const fs::path path = path_of(sha256);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(Location{path.string(), 0, ""}, "blob is missing from the archive");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  std::string out = std::move(bytes).str();
  if (sha256_hex(out) != sha256)
    throw Error(Location{path.string(), 0, ""}, "blob does not match its SHA-256");
  return out;
}

}  // namespace kh::archive
