#include "trace/input_limits.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>

namespace kh {
namespace {

std::string env_name(std::string_view name) {
  std::string out = "KHARNESS_MAX_";
  for (char c : name) out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

void override_from_env(std::string_view name, std::uint64_t& value) {
  const char* text = std::getenv(env_name(name).c_str());
  if (text == nullptr) return;
  std::uint64_t v = 0;
  const std::string_view s(text);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc{} && end == s.data() + s.size() && v > 0) value = v;
}

InputLimits from_environment() {
  InputLimits l;
  override_from_env("json_bytes", l.json_bytes);
  override_from_env("jsonl_line_bytes", l.jsonl_line_bytes);
  override_from_env("jsonl_file_bytes", l.jsonl_file_bytes);
  override_from_env("sources", l.sources);
  override_from_env("source_bytes", l.source_bytes);
  override_from_env("sources_bytes", l.sources_bytes);
  override_from_env("source_path_chars", l.source_path_chars);
  return l;
}

}  // namespace

const InputLimits& input_limits() {
  static const InputLimits limits = from_environment();
  return limits;
}

std::string limit_note(std::string_view name, std::uint64_t value) {
  return fmt::format("(limit {}: {}; raise it with {}=N)", name, value, env_name(name));
}

}  // namespace kh
