// The content-addressed blob store: <archive>/blobs/<first two hex digits>/<sha256>.
//
// A blob is written to <archive>/blobs/tmp/, fsynced, renamed into place, and its
// folder fsynced, so a blob that has a name is whole on disk, even after a power cut.
// A kill at any moment leaves at worst a stray temp file, which nothing refers to.
// Writing a blob that exists is a no-op, so any number of processes may put the same
// content at once. Blobs are written before the database transaction that refers to
// them commits: a committed row never names a missing blob.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace kh::archive {

class BlobStore {
 public:
  explicit BlobStore(std::filesystem::path root);

  // Stores the bytes; returns their SHA-256 (64 lowercase hex digits).
  std::string put(std::string_view bytes) const;
  // Stores a file's content, streamed (safetensors inputs may be large).
  std::string put_file(const std::filesystem::path& file) const;

  [[nodiscard]] std::filesystem::path path_of(std::string_view sha256) const;
  [[nodiscard]] bool contains(std::string_view sha256) const;
  // The blob's bytes; throws kh::Error when it is missing or does not hash to its name.
  [[nodiscard]] std::string read(std::string_view sha256) const;
  [[nodiscard]] const std::filesystem::path& root() const noexcept { return root_; }
  [[nodiscard]] std::filesystem::path temp_dir() const { return root_ / "tmp"; }

 private:
  // Moves a complete, fsynced temp file to the blob's name (or drops it when the blob
  // is already there).
  void publish(const std::filesystem::path& temp, const std::string& sha256) const;

  std::filesystem::path root_;
};

// True for 64 lowercase hex digits: the only names path_of accepts.
[[nodiscard]] bool is_sha256_hex(std::string_view text) noexcept;

}  // namespace kh::archive
