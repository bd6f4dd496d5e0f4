// Message: one frame of the worker protocol, as the program sees it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kh {

// A JSON header that says what the frame is (its "kind") plus raw bytes (tensors).
// The request_id ties a reply to the request it answers.
struct Message {
  std::uint64_t request_id = 0;
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  std::vector<std::byte> payload;
  // Sending only: the payload is these first bytes of the channel's shared reply region
  // (worker/shared_region.h), written there in place, and `payload` is empty. A received
  // message always holds its payload in `payload`.
  std::size_t payload_in_region = 0;

  // header["kind"]; kh::Error when the header has no string "kind".
  [[nodiscard]] const std::string& kind() const;

  // {"kind": kind} merged with the fields of `fields` (an object or null).
  [[nodiscard]] static Message make(std::string_view kind, std::uint64_t request_id,
                                    nlohmann::ordered_json fields = nullptr,
                                    std::vector<std::byte> payload = {});
};

// kh::Error unless `header` is an object with a string "kind". `origin` says
// whose header it is in the message ("frame from worker").
void validate_header(const nlohmann::ordered_json& header, std::string_view origin);

}  // namespace kh
