#include "worker/detail/frame_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <new>
#include <utility>

#include "base/ordered_json_parse.h"
#include "error/error.h"
#include "worker/payload_buffers.h"

namespace kh::detail {
namespace {

// The payload grows by at most this much ahead of the bytes received. A peer can
// claim a huge payload_len and send nothing; growing with the data means memory is
// committed only for bytes that really arrived. Small enough to stay in cache,
// so zero-filling the window before recv() overwrites it costs little.
constexpr std::size_t kPayloadWindow = std::size_t{1} << 20;

}  // namespace

std::span<std::byte> FrameReader::next_buffer() {
  switch (stage_) {
    case Stage::header:
      return std::span<std::byte>(header_bytes_).subspan(filled_);
    case Stage::json:
      return std::as_writable_bytes(std::span<char>(json_)).subspan(filled_);
    case Stage::payload: {
      auto& payload = message_.payload;
      if (filled_ == payload.size()) {
        std::size_t grow = std::min<std::uint64_t>(kPayloadWindow, header_.payload_len - filled_);
        payload.resize(filled_ + grow);  // within the capacity reserved in start_payload()
      }
      return std::span<std::byte>(payload).subspan(filled_);
    }
    case Stage::complete:
      break;
  }
  return {};
}

void FrameReader::commit(std::size_t n) {
  filled_ += n;
  switch (stage_) {
    case Stage::header:
      if (filled_ == header_bytes_.size()) finish_header();
      break;
    case Stage::json:
      if (filled_ == json_.size()) finish_json();
      break;
    case Stage::payload:
      if (filled_ == header_.payload_len) stage_ = Stage::complete;
      break;
    case Stage::complete:
      break;
  }
}

void FrameReader::finish_header() {
  try {
    header_ = decode_frame_header(header_bytes_);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", origin_, e.what()));
  }
  if (header_.json_len == 0) throw Error(fmt::format("{}: frame has an empty JSON header", origin_));
  if (header_.json_len > limits_.max_json_bytes)
    throw Error(fmt::format("{}: JSON header of {} bytes exceeds the limit of {} bytes", origin_,
                            header_.json_len, limits_.max_json_bytes));
  if (header_.payload_len > limits_.max_payload_bytes)
    throw Error(fmt::format("{}: payload of {} bytes exceeds the limit of {} bytes", origin_,
                            header_.payload_len, limits_.max_payload_bytes));
  json_.assign(header_.json_len, '\0');
  stage_ = Stage::json;
  filled_ = 0;
}

void FrameReader::finish_json() {
  std::optional<nlohmann::ordered_json> parsed = parse_ordered_json(json_);
  if (!parsed) throw Error(fmt::format("{}: frame header is not valid JSON", origin_));
  validate_header(*parsed, origin_);
  json_.clear();
  json_.shrink_to_fit();
  message_.request_id = header_.request_id;
  message_.header = std::move(*parsed);
  start_payload();
}

void FrameReader::start_payload() {
  filled_ = 0;
  if (header_.payload_len == 0) {
    stage_ = Stage::complete;
    return;
  }
  // Reserving only takes address space; pages are committed as resize() fills them. A
  // kept buffer's pages are already committed (payload_buffers.h).
  try {
    message_.payload = take_payload_buffer(header_.payload_len);
  } catch (const std::bad_alloc&) {
    throw Error(fmt::format("{}: cannot allocate a payload of {} bytes", origin_, header_.payload_len));
  } catch (const std::length_error&) {
    throw Error(fmt::format("{}: cannot allocate a payload of {} bytes", origin_, header_.payload_len));
  }
  stage_ = Stage::payload;
}

Message FrameReader::take() {
  Message out = std::move(message_);
  message_ = Message{};
  stage_ = Stage::header;
  filled_ = 0;
  return out;
}

}  // namespace kh::detail
