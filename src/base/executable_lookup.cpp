#include "base/executable_lookup.h"

#include <unistd.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>

#include "base/process_runner.h"
#include "error/error.h"
#include "error/location.h"

namespace kh::detail {

namespace {
bool is_executable_file(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

std::optional<std::filesystem::path> search_path(std::string_view name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    std::filesystem::path candidate = std::filesystem::path(dir) / name;
    if (is_executable_file(candidate)) return std::filesystem::absolute(candidate);
  }
  return std::nullopt;
}

std::string tidy_version(const std::string& raw) {
  std::stringstream lines(raw);
  std::string line;
  std::string out;
  while (std::getline(lines, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty()) continue;
    if (!out.empty()) out += "; ";
    out += line;
  }
  return out;
}
}  // namespace

std::optional<std::filesystem::path> find_compiler(std::string_view env_var, std::string_view name,
                                                   const std::vector<std::filesystem::path>& fallbacks) {
  const char* forced = env_var.empty() ? nullptr : std::getenv(std::string(env_var).c_str());
  if (forced != nullptr && *forced != '\0') {
    std::filesystem::path p(forced);
    if (p.is_relative() && p.string().find('/') == std::string::npos) {
      if (auto found = search_path(p.string())) return found;
    }
    if (!is_executable_file(p)) {
      throw Error(at_field(std::string(env_var)), "'" + p.string() + "' is not an executable file");
    }
    return std::filesystem::absolute(p);
  }
  if (auto found = search_path(name)) return found;
  for (const auto& p : fallbacks) {
    if (is_executable_file(p)) return p;
  }
  return std::nullopt;
}

std::string compiler_version(const std::filesystem::path& exe) {
  static std::mutex mutex;
  static std::map<std::filesystem::path, std::string> cache;
  {
    std::lock_guard lock(mutex);
    if (auto it = cache.find(exe); it != cache.end()) return it->second;
  }
  ProcessSpec spec;
  spec.argv = {exe.string(), "--version"};
  spec.role = "compiler";
  RunOptions options;
  options.timeout = std::chrono::seconds(60);
  const ProcessRun run = run_process(std::move(spec), options);
  if (run.timed_out || run.exit_code() != 0) {
    throw Error(at_file(exe.string()), "'--version' failed: " + tidy_version(run.out));
  }
  std::string version = tidy_version(run.out);
  std::lock_guard lock(mutex);
  return cache.emplace(exe, std::move(version)).first->second;
}

}  // namespace kh::detail
