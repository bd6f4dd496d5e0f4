#include "trace/detail/json_field.h"

#include <cmath>
#include <limits>
#include <utility>

#include "trace/non_finite.h"

namespace kh::detail {

std::string join_field(const std::string& prefix, std::string_view key) {
  return prefix.empty() ? std::string(key) : prefix + "." + std::string(key);
}

std::string index_field(const std::string& prefix, std::size_t index) {
  return prefix + "[" + std::to_string(index) + "]";
}

std::string type_of(const ordered_json& j) {
  switch (j.type()) {
    case ordered_json::value_t::null:
      return "null";
    case ordered_json::value_t::object:
      return "an object";
    case ordered_json::value_t::array:
      return "an array";
    case ordered_json::value_t::string:
      return "a string";
    case ordered_json::value_t::boolean:
      return "a bool";
    case ordered_json::value_t::number_integer:
    case ordered_json::value_t::number_unsigned:
      return "an integer";
    case ordered_json::value_t::number_float:
      return "a float";
    default:
      return "an unsupported value";
  }
}

void require_object(const ordered_json& j, const Location& where) {
  if (!j.is_object()) throw Error(where, "expected an object, got " + type_of(j));
}

FieldReader::FieldReader(const ordered_json& j, Location where) : j_(j), where_(std::move(where)) {
  require_object(j_, where_);
}

Location FieldReader::at(std::string_view key) const {
  Location l = where_;
  l.field = join_field(where_.field, key);
  return l;
}

const ordered_json* FieldReader::find(std::string_view key) const {
  auto it = j_.find(key);
  return it == j_.end() ? nullptr : &*it;
}

bool FieldReader::missing(std::string_view key) const {
  const ordered_json* v = find(key);
  return v == nullptr || v->is_null();
}

void FieldReader::fail(std::string_view key, const std::string& reason) const {
  throw Error(at(key), reason);
}

const ordered_json& FieldReader::required(std::string_view key) const {
  const ordered_json* v = find(key);
  if (v == nullptr) fail(key, "missing required field");
  return *v;
}

std::string expect_string(const ordered_json& j, const Location& where) {
  if (!j.is_string()) throw Error(where, "expected a string, got " + type_of(j));
  return j.get<std::string>();
}

std::string FieldReader::string(std::string_view key) const { return expect_string(required(key), at(key)); }

std::string FieldReader::string_or(std::string_view key, std::string fallback) const {
  if (missing(key)) return fallback;
  return expect_string(*find(key), at(key));
}

std::optional<std::string> FieldReader::nullable_string(std::string_view key) const {
  if (missing(key)) return std::nullopt;
  return expect_string(*find(key), at(key));
}

std::optional<bool> FieldReader::boolean(std::string_view key) const {
  if (missing(key)) return std::nullopt;
  const ordered_json& v = *find(key);
  if (!v.is_boolean()) fail(key, "expected true or false, got " + type_of(v));
  return v.get<bool>();
}

double FieldReader::number(std::string_view key) const { return to_double(required(key), at(key)); }

double to_double(const ordered_json& j, const Location& where) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    if (auto v = non_finite_from_text(j.get_ref<const std::string&>())) return *v;
    throw Error(where, "expected a number, got the string \"" + j.get<std::string>() +
                           "\" (only \"NaN\", \"Infinity\" and \"-Infinity\" stand for numbers)");
  }
  throw Error(where, "expected a number, got " + type_of(j));
}

std::vector<std::string> FieldReader::string_list(std::string_view key) const {
  std::vector<std::string> out;
  if (missing(key)) return out;
  const ordered_json& v = *find(key);
  if (!v.is_array()) fail(key, "expected a list of strings, got " + type_of(v));
  const Location base = at(key);
  for (std::size_t i = 0; i < v.size(); ++i) {
    Location item = base;
    item.field = index_field(base.field, i);
    out.push_back(expect_string(v[i], item));
  }
  return out;
}

FieldReader FieldReader::object(std::string_view key) const { return FieldReader(required(key), at(key)); }

std::int64_t to_int64(const ordered_json& j, const Location& where) {
  if (j.is_number_unsigned()) {
    const auto u = j.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      throw Error(where, "integer " + std::to_string(u) + " is too large");
    return static_cast<std::int64_t>(u);
  }
  if (j.is_number_integer()) return j.get<std::int64_t>();
  throw Error(where,
              "expected an integer, got " + type_of(j) + (j.is_number_float() ? " (" + j.dump() + ")" : ""));
}

void put(ordered_json& out, std::string_view key, const ordered_json& value) {
  auto it = out.find(key);
  if (it != out.end() && *it == value) return;
  out[std::string(key)] = value;
}

void put_unless_default(ordered_json& out, std::string_view key, const ordered_json& value, bool is_default) {
  auto it = out.find(key);
  if (is_default && (it == out.end() || it->is_null())) return;
  put(out, key, value);
}

ordered_json start_from(const ordered_json& raw) { return raw.is_object() ? raw : ordered_json::object(); }

}  // namespace kh::detail
