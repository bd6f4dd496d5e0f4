#include "base/jail/environment_allow_list.h"

#include <algorithm>
#include <array>
#include <cctype>

extern char** environ;

namespace kh {

namespace {

constexpr std::array<std::string_view, 5> kNames = {"PATH", "LD_LIBRARY_PATH", "LANG", "LANGUAGE", "TZ"};
constexpr std::array<std::string_view, 6> kPrefixes = {"LC_", "CUDA_", "NVIDIA_", "OMP_", "GOMP_", "KMP_"};
constexpr std::array<std::string_view, 5> kProfilerPrefixes = {"NV", "CUDA", "NSYS", "NSIGHT", "LD_"};
constexpr std::array<std::string_view, 7> kSecretWords = {"KEY",        "TOKEN", "SECRET", "PASSWORD",
                                                          "CREDENTIAL", "AUTH",  "PASSWD"};

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string_view name_of(std::string_view entry) { return entry.substr(0, entry.find('=')); }

// A profiler's injection is configured through these (some with TOKEN in their names).
bool profiler_variable(std::string_view name) {
  return std::any_of(kProfilerPrefixes.begin(), kProfilerPrefixes.end(),
                     [&](std::string_view p) { return name.rfind(p, 0) == 0; });
}

}  // namespace

bool looks_like_secret(std::string_view name) {
  const std::string u = upper(name);
  return std::any_of(kSecretWords.begin(), kSecretWords.end(),
                     [&](std::string_view w) { return u.find(w) != std::string::npos; });
}

bool allowed_in_jail(std::string_view name, const std::vector<std::string>& extra_names) {
  if (looks_like_secret(name)) return false;
  if (std::find(kNames.begin(), kNames.end(), name) != kNames.end()) return true;
  if (std::find(extra_names.begin(), extra_names.end(), name) != extra_names.end()) return true;
  return std::any_of(kPrefixes.begin(), kPrefixes.end(),
                     [&](std::string_view p) { return name.rfind(p, 0) == 0; });
}

std::vector<std::string> jail_environment(const std::vector<std::string>& extra_names,
                                          const std::vector<std::pair<std::string, std::string>>& set,
                                          bool inherit_all) {
  auto overridden = [&](std::string_view name) {
    return std::any_of(set.begin(), set.end(), [&](const auto& kv) { return kv.first == name; });
  };
  std::vector<std::string> out;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view name = name_of(*entry);
    const bool pass = inherit_all ? profiler_variable(name) || !looks_like_secret(name)
                                  : allowed_in_jail(name, extra_names);
    if (pass && !overridden(name)) out.emplace_back(*entry);
  }
  for (const auto& [name, value] : set) out.push_back(std::string(name).append("=").append(value));
  return out;
}

}  // namespace kh
