// Writing safetensors files atomically: readers (another process, a rerun) never see a
// half-written file, because the data goes to a temporary file renamed into place.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "error/error.h"
#include "tensor/safetensors.h"

namespace kh {

namespace {

using Json = nlohmann::ordered_json;

[[noreturn]] void io_fail(const std::string& path, const std::string& what) {
  throw Error(Location{path, 0, ""}, what + ": " + std::strerror(errno));
}

// Owns the temporary file until commit(): on any failure the partial file is removed.
class TempFile {
 public:
  explicit TempFile(const std::string& target) : target_(target), temp_(target + ".tmp-XXXXXX") {
    fd_ = ::mkstemp(temp_.data());
    if (fd_ < 0) io_fail(target_, "cannot create a temporary file next to it");
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(temp_.c_str());
  }

  void write(const void* data, std::size_t size) {
    const auto* p = static_cast<const char*>(data);
    while (size > 0) {
      const ssize_t n = ::write(fd_, p, size);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) io_fail(target_, "cannot write");
      p += n;
      size -= static_cast<std::size_t>(n);
    }
  }

  void commit() {
    if (::fsync(fd_) != 0) io_fail(target_, "cannot flush");
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) io_fail(target_, "cannot close");
    if (fchmod_like_umask() != 0) io_fail(target_, "cannot set permissions");
    if (std::rename(temp_.c_str(), target_.c_str()) != 0)
      io_fail(target_, "cannot rename the temporary file into place");
    committed_ = true;
  }

 private:
  // mkstemp creates the file 0600; give it the mode a plain open(O_CREAT, 0666) would.
  int fchmod_like_umask() const {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return ::chmod(temp_.c_str(), 0666 & ~mask);
  }

  std::string target_;
  std::string temp_;
  int fd_ = -1;
  bool committed_ = false;
};

std::string build_header(const std::string& path,
                         const std::vector<std::pair<std::string, const HostTensor*>>& tensors,
                         const std::map<std::string, std::string>& metadata) {
  Json header = Json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::set<std::string> seen;
  std::uint64_t offset = 0;
  for (const auto& [name, tensor] : tensors) {
    if (name == "__metadata__") throw Error(Location{path, 0, name}, "reserved name cannot be a tensor");
    if (!seen.insert(name).second) throw Error(Location{path, 0, name}, "duplicate tensor name");
    Json entry = Json::object();
    entry["dtype"] = safetensors_dtype_name(tensor->dtype());
    entry["shape"] = tensor->shape();
    entry["data_offsets"] = {offset, offset + tensor->nbytes()};
    header[name] = std::move(entry);
    offset += tensor->nbytes();
  }
  std::string text;
  try {
    text = header.dump();
  } catch (const Json::type_error& e) {  // names or metadata that are not valid UTF-8
    throw Error(Location{path, 0, "header"}, fmt::format("cannot encode the header ({})", e.what()));
  }
  text.append((8 - text.size() % 8) % 8, ' ');
  return text;
}

}  // namespace

void write_safetensors(const std::string& path,
                       const std::vector<std::pair<std::string, const HostTensor*>>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  const std::string header = build_header(path, tensors, metadata);
  TempFile out(path);
  unsigned char length[8];
  std::uint64_t n = header.size();
  for (unsigned char& b : length) {
    b = static_cast<unsigned char>(n & 0xFF);
    n >>= 8;
  }
  out.write(length, sizeof length);
  out.write(header.data(), header.size());
  for (const auto& [name, tensor] : tensors) {
    if (tensor->nbytes() != 0) out.write(tensor->bytes().data(), tensor->nbytes());
  }
  out.commit();
}

}  // namespace kh
