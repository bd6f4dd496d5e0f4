// Reading and writing typed fields of a JSON object, with errors that name the field.
//
// Internal to trace/: the *_json.cpp readers and writers share it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "error/error.h"

namespace kh::detail {

using ordered_json = nlohmann::ordered_json;

// "a.b" (or "b" at the top), and "a[3]" for array elements.
[[nodiscard]] std::string join_field(const std::string& prefix, std::string_view key);
[[nodiscard]] std::string index_field(const std::string& prefix, std::size_t index);

// Throws Error at `where` unless j is an object.
void require_object(const ordered_json& j, const Location& where);

// A view of one JSON object that reads fields with checked types.
class FieldReader {
 public:
  // Throws unless j is an object.
  FieldReader(const ordered_json& j, Location where);

  [[nodiscard]] const ordered_json& json() const { return j_; }
  [[nodiscard]] const Location& where() const { return where_; }
  [[nodiscard]] Location at(std::string_view key) const;
  // nullptr when the key is absent.
  [[nodiscard]] const ordered_json* find(std::string_view key) const;
  // True when the key is absent or null.
  [[nodiscard]] bool missing(std::string_view key) const;

  [[nodiscard]] const ordered_json& required(std::string_view key) const;
  [[nodiscard]] std::string string(std::string_view key) const;                           // required
  [[nodiscard]] std::string string_or(std::string_view key, std::string fallback) const;  // absent/null ok
  [[nodiscard]] std::optional<std::string> nullable_string(std::string_view key) const;
  [[nodiscard]] std::optional<bool> boolean(std::string_view key) const;
  [[nodiscard]] double number(std::string_view key) const;                         // required
  [[nodiscard]] std::vector<std::string> string_list(std::string_view key) const;  // absent/null: empty
  [[nodiscard]] FieldReader object(std::string_view key) const;                    // required

  [[noreturn]] void fail(std::string_view key, const std::string& reason) const;

 private:
  const ordered_json& j_;
  Location where_;
};

// Reads an integer that fits int64; throws at `where` otherwise (floats like 4.0 included,
// because an axis of 4.0 is a mistake in the file, not a value to round).
[[nodiscard]] std::int64_t to_int64(const ordered_json& j, const Location& where);
// Reads a number; the strings "NaN", "Infinity" and "-Infinity" (see trace/non_finite.h)
// are numbers too.
[[nodiscard]] double to_double(const ordered_json& j, const Location& where);
[[nodiscard]] std::string expect_string(const ordered_json& j, const Location& where);
[[nodiscard]] std::string type_of(const ordered_json& j);  // "a string", "null", ...

// Writers. Each sets out[key] only when the value differs from what is there, so a
// number written as 1 stays 1 (not 1.0) and unknown neighbouring keys keep their order.
void put(ordered_json& out, std::string_view key, const ordered_json& value);
// Like put, but leaves an absent or null key alone when `is_default` (so optional
// fields that a file leaves out stay out).
void put_unless_default(ordered_json& out, std::string_view key, const ordered_json& value, bool is_default);
// The base object for a writer: the raw object as read, or an empty object.
[[nodiscard]] ordered_json start_from(const ordered_json& raw);

}  // namespace kh::detail
