// SHA-256: the content address of build-cache entries, archive blobs and run seals.
//
// Written here rather than taken from a crypto library so that the base module
// has no dependency beyond the standard library; it is checked against the FIPS
// 180-4 test vectors in tests/base/sha256_test.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace kh {

class Sha256 {
 public:
  Sha256() noexcept;

  Sha256& update(std::string_view bytes) noexcept;
  // Feeds a field so that a sequence of fields cannot collide with another
  // sequence whose concatenation is the same ("ab","c" vs "a","bc"): the field's
  // length goes in first, as 8 little-endian bytes.
  Sha256& update_field(std::string_view bytes) noexcept;

  // The digest as 64 lowercase hex digits. The object must not be updated after.
  [[nodiscard]] std::string hex_digest() noexcept;

 private:
  void compress(const std::uint8_t* block) noexcept;

  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_bytes_ = 0;
};

// SHA-256 of `bytes` as 64 lowercase hex digits.
[[nodiscard]] std::string sha256_hex(std::string_view bytes);

}  // namespace kh
