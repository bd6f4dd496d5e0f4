#include "base/ordered_json_parse.h"

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kh {
namespace {

using Json = nlohmann::ordered_json;

class OrderedJsonBuilder final : public nlohmann::json_sax<Json> {
 public:
  bool null() override { return put(Json(nullptr)); }
  bool boolean(bool v) override { return put(Json(v)); }
  bool number_integer(number_integer_t v) override { return put(Json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return put(Json(v)); }
  bool number_float(number_float_t v, const string_t& /*text*/) override { return put(Json(v)); }
  bool string(string_t& v) override { return put(Json(std::move(v))); }
  bool binary(binary_t& v) override { return put(Json::binary(std::move(v))); }
  bool key(string_t& k) override {
    frames_.back().key = std::move(k);
    return true;
  }
  bool start_object(std::size_t /*elements*/) override {
    frames_.emplace_back().object = true;
    return true;
  }
  bool start_array(std::size_t /*elements*/) override {
    frames_.emplace_back().object = false;
    return true;
  }
  bool end_object() override;
  bool end_array() override;
  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& /*error*/) override {
    return false;
  }

  Json take() { return std::move(result_); }

 private:
  // An object or array being parsed: its members in containers that move when they grow.
  struct Frame {
    bool object = false;
    std::string key;
    std::vector<std::pair<std::string, Json>> members;
    std::vector<Json> items;
  };

  bool put(Json value);

  std::vector<Frame> frames_;
  Json result_;
};

bool OrderedJsonBuilder::put(Json value) {
  if (frames_.empty()) {
    result_ = std::move(value);
    return true;
  }
  Frame& f = frames_.back();
  if (f.object) {
    f.members.emplace_back(std::move(f.key), std::move(value));
  } else {
    f.items.push_back(std::move(value));
  }
  return true;
}

// Where `key` already is among `members`, or npos. Small objects are searched in place;
// `index` (views of the members' keys, which stay put: the vector was reserved) serves
// larger ones.
std::size_t find_member(const Json::object_t& members, const std::string& key,
                        std::unordered_map<std::string_view, std::size_t>& index) {
  constexpr std::size_t kLinear = 16;
  if (members.size() <= kLinear) {
    for (std::size_t i = 0; i < members.size(); ++i)
      if ((members.begin() + static_cast<std::ptrdiff_t>(i))->first == key) return i;
    return std::string::npos;
  }
  if (index.empty())
    for (std::size_t i = 0; i < members.size(); ++i)
      index.emplace((members.begin() + static_cast<std::ptrdiff_t>(i))->first, i);
  const auto it = index.find(key);
  return it == index.end() ? std::string::npos : it->second;
}

bool OrderedJsonBuilder::end_object() {
  Frame f = std::move(frames_.back());
  frames_.pop_back();
  Json object = Json::object();
  auto& members = object.get_ref<Json::object_t&>();
  members.reserve(f.members.size());
  std::unordered_map<std::string_view, std::size_t> index;
  for (auto& [key, value] : f.members) {
    const std::size_t at = find_member(members, key, index);
    if (at != std::string::npos) {
      // A repeated key keeps its first place and takes its last value.
      (members.begin() + static_cast<std::ptrdiff_t>(at))->second = std::move(value);
      continue;
    }
    members.emplace_back(std::move(key), std::move(value));
    if (!index.empty()) index.emplace(members.back().first, members.size() - 1);
  }
  return put(std::move(object));
}

bool OrderedJsonBuilder::end_array() {
  Frame f = std::move(frames_.back());
  frames_.pop_back();
  Json array = Json::array();
  array.get_ref<Json::array_t&>() = std::move(f.items);
  return put(std::move(array));
}

}  // namespace

std::optional<Json> parse_ordered_json(std::string_view text) {
  OrderedJsonBuilder builder;
  if (!Json::sax_parse(text, &builder)) return std::nullopt;
  return builder.take();
}

}  // namespace kh
