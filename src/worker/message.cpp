#include "worker/message.h"

#include <string>

#include "error/error.h"

namespace kh {

void validate_header(const nlohmann::ordered_json& header, std::string_view origin) {
  if (!header.is_object()) throw Error(std::string(origin) + ": JSON header is not an object");
  auto kind = header.find("kind");
  if (kind == header.end() || !kind->is_string())
    throw Error(std::string(origin) + ": JSON header has no string \"kind\"");
}

const std::string& Message::kind() const {
  validate_header(header, "message");
  return header.find("kind")->get_ref<const std::string&>();
}

Message Message::make(std::string_view kind, std::uint64_t request_id, nlohmann::ordered_json fields,
                      std::vector<std::byte> payload) {
  Message m;
  m.request_id = request_id;
  m.header["kind"] = std::string(kind);
  if (!fields.is_null()) {
    if (!fields.is_object()) throw Error("message fields must be a JSON object");
    // Sized once: an ordered_json object deep-copies its members each time it grows.
    m.header.get_ref<nlohmann::ordered_json::object_t&>().reserve(fields.size() + 1);
    for (auto& [key, value] : fields.items())
      if (key != "kind") m.header[key] = std::move(value);
  }
  m.payload = std::move(payload);
  return m;
}

}  // namespace kh
