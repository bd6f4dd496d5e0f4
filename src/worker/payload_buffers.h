// Buffers for message payloads, kept from one message to the next.
//
// A fresh buffer of tens of megabytes is faulted in page by page as it is first written,
// and on a freshly started VM the host backs each of those pages then too: on the H200
// host, downloading a 64 MiB output into a fresh buffer ran at about 1 GB/s. The worker's
// serve loop gives each sent reply's payload back, the orchestrator each reply it has
// read, and the next payload of a fitting size reuses one.
#pragma once

#include <cstddef>
#include <vector>

namespace kh {

// An empty vector whose capacity is at least `bytes`: a kept one when one fits, else a
// fresh one (std::bad_alloc or std::length_error when it cannot be had).
[[nodiscard]] std::vector<std::byte> take_payload_buffer(std::size_t bytes);

// Keeps `buffer` for a later take_payload_buffer(), within a bound on the bytes kept
// (small buffers are not worth keeping and are freed).
void give_back_payload_buffer(std::vector<std::byte>&& buffer) noexcept;

// The bytes of capacity kept now.
[[nodiscard]] std::size_t kept_payload_bytes() noexcept;

}  // namespace kh
