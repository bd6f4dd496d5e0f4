// Solution: a candidate implementation of a definition, with its sources inline.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kh {

using ordered_json = nlohmann::ordered_json;

enum class Language : std::uint8_t { python, triton, cpp, cuda, tilelang };

[[nodiscard]] std::optional<Language> parse_language(std::string_view name) noexcept;
[[nodiscard]] std::string_view language_name(Language l) noexcept;
// Bindings we know how to load: "tvm-ffi" and "torch".
[[nodiscard]] bool is_known_binding(std::string_view name) noexcept;

struct SourceFile {
  std::string path;
  std::string content;
  ordered_json raw;
};

struct SolutionSpec {
  std::string language;  // kept as written; validation checks it (see parse_language)
  std::vector<std::string> target_hardware;
  std::string entry_point;  // "file::function" as written
  std::vector<std::string> dependencies;
  std::optional<bool> destination_passing_style;  // absent means true
  std::optional<std::string> binding;             // absent means the language's default
  ordered_json raw;

  // The part of entry_point before the last "::" (empty when there is no "::").
  [[nodiscard]] std::string entry_file() const;
  // The part after the last "::" (the whole string when there is no "::").
  [[nodiscard]] std::string entry_function() const;
  [[nodiscard]] bool uses_destination_passing() const { return destination_passing_style.value_or(true); }
  // tvm-ffi for cpp and cuda when absent; empty for languages that need none.
  [[nodiscard]] std::string effective_binding() const;
};

struct Solution {
  std::string name;
  std::string definition;
  std::string author;
  std::string description;
  std::vector<SourceFile> sources;
  SolutionSpec spec;
  ordered_json raw;
};

// The binding a solution is built with: its spec's, else "kharness" when a source
// includes <kharness/kernel.h> (solutions written before the field was set), else the
// language's default (tvm-ffi for cpp and cuda, as flashinfer-bench), else "" (python,
// triton and tilelang need none).
[[nodiscard]] std::string resolved_binding(const Solution& s);

}  // namespace kh
