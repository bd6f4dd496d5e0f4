// Reading and writing the safetensors format: an 8-byte little-endian header length N,
// N bytes of JSON header, then the raw data section addressed by each tensor's
// data_offsets (relative to the start of the data section).
//
// Reading is zero-copy over a memory mapping and validates everything a hostile file
// could get wrong (lengths, JSON, dtypes, shapes, offsets, overlaps); each problem is a
// kh::Error naming the file, the tensor or field, and the reason. Two leniencies, as in
// most readers: unknown per-tensor keys are ignored, and the data section may contain
// bytes no tensor covers (holes). float64 and unsigned types wider than 8 bits are
// refused because kharness has no DType for them. "F4" (float4_e2m1, two per byte, as in
// safetensors >= 0.6) takes ceil(n/2) bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tensor/dtype.h"
#include "tensor/host_tensor.h"
#include "tensor/mapped_file.h"

namespace kh {

struct SafetensorsEntry {
  DType dtype;
  std::vector<std::int64_t> shape;
  std::span<const std::byte> bytes;  // view into the file (or the parsed buffer)
};

class SafetensorsFile {
 public:
  // Maps and validates the file.
  static SafetensorsFile open(const std::string& path);

  // Validates a buffer that the caller keeps alive as long as the result and its views;
  // `origin` names it in errors (a path, or "<fuzz input>").
  static SafetensorsFile parse(std::span<const std::byte> buffer, std::string origin);

  [[nodiscard]] const std::string& origin() const noexcept { return origin_; }
  [[nodiscard]] const std::vector<std::string>& names() const noexcept { return names_; }  // header order
  [[nodiscard]] bool contains(std::string_view name) const;
  // Throws kh::Error naming the file and tensor when absent.
  [[nodiscard]] const SafetensorsEntry& info(std::string_view name) const;
  [[nodiscard]] const std::map<std::string, std::string>& metadata() const noexcept { return metadata_; }
  // A copy into aligned host memory (the mapping may leave a tensor unaligned).
  [[nodiscard]] HostTensor load(std::string_view name) const;

 private:
  MappedFile file_;  // empty for parse()
  std::string origin_;
  std::vector<std::string> names_;
  std::map<std::string, SafetensorsEntry, std::less<>> entries_;
  std::map<std::string, std::string> metadata_;
};

// Same as SafetensorsFile::parse; the entry point the fuzzer drives.
[[nodiscard]] SafetensorsFile parse_safetensors(std::span<const std::byte> buffer, std::string origin);

// Writes tensors in the given order, header padded with spaces to a multiple of 8 so the
// data section is 8-byte aligned. Atomic: written to a temporary file in the same
// directory, then renamed over `path`. Throws kh::Error on duplicate or reserved names
// and on I/O failure. A scalar HostTensor is written with shape [].
void write_safetensors(const std::string& path,
                       const std::vector<std::pair<std::string, const HostTensor*>>& tensors,
                       const std::map<std::string, std::string>& metadata = {});

// Safetensors dtype names ("F32", "BF16", "F8_E4M3", ...).
[[nodiscard]] std::string_view safetensors_dtype_name(DType t) noexcept;

}  // namespace kh
