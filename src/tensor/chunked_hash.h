// A 64-bit content hash of a byte range that a GPU computes in place, for the check that
// a kernel left its inputs untouched: hashing 1.4 GB of inputs on the device takes well
// under a millisecond, where copying them to the host to hash took seconds.
//
// Parallel by construction, so the host and the device compute the same value:
//   - the range is cut into chunks of 256 KiB (the last may be shorter);
//   - a chunk is absorbed by 32 lanes, lane k taking the 8-byte little-endian words
//     k, k+32, k+64, ... from its own seed (one warp per chunk, each load coalesced);
//     the zero-padded tail of a length not a multiple of 8 is the next word;
//   - the lanes are mixed in lane order with the chunk's index and length;
//   - the chunk hashes are mixed in order with the range's length.
// chunked_hash() below is the sequential definition; the CUDA backend computes the chunk
// hashes with a kernel and finishes with combine_chunk_hashes(). Not cryptographic, and
// a different function from hash_bytes (tensor/fast_hash.h): values never mix.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace kh {

[[nodiscard]] std::uint64_t chunked_hash(std::span<const std::byte> bytes) noexcept;

// A hash as it travels between worker and orchestrator: 16 lowercase hex digits. Both
// sides format with this, so a hash computed on the device and one recomputed on the
// host compare as strings.
[[nodiscard]] std::string chunked_hash_hex(std::uint64_t hash);

// The pieces of chunked_hash, for implementations that compute chunks elsewhere.
[[nodiscard]] std::size_t hash_chunk_count(std::size_t total_bytes) noexcept;
// The hash of chunk `index` of a range; `chunk` is its bytes (at most 256 KiB).
[[nodiscard]] std::uint64_t chunk_hash(std::span<const std::byte> chunk, std::uint64_t index) noexcept;
// The range's hash from the hashes of all its chunks, in order.
[[nodiscard]] std::uint64_t combine_chunk_hashes(std::span<const std::uint64_t> chunk_hashes,
                                                 std::uint64_t total_bytes) noexcept;

}  // namespace kh
