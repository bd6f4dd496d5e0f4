#include "eval/operator_library.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "error/error.h"
#include "trace/json_io.h"

namespace kh {

namespace {

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(Location{path.string(), 0, ""}, "cannot read file");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

ordered_json read_json(const std::filesystem::path& path) {
  try {
    return ordered_json::parse(read_text(path));
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(Location{path.string(), 0, ""}, fmt::format("invalid JSON: {}", e.what()));
  }
}

OperatorEntry read_entry(const std::filesystem::path& dir) {
  const auto manifest_path = dir / "operator.json";
  const ordered_json manifest = read_json(manifest_path);
  OperatorEntry e;
  e.dir = dir;
  e.definition =
      parse_definition(read_text(dir / "definition.json"), Location{(dir / "definition.json").string(), 0, ""});
  if (manifest.contains("tolerance")) {
    const auto& t = manifest["tolerance"];
    Tolerance tol;
    tol.atol = t.value("atol", tol.atol);
    tol.rtol = t.value("rtol", tol.rtol);
    tol.required_matched_ratio = t.value("required_matched_ratio", tol.required_matched_ratio);
    e.tolerance = tol;
  }
  e.checker = manifest.value("checker", std::string("default"));
  const ordered_json references = manifest.value("references", ordered_json::object());
  for (const auto& [language, entry] : references.items()) {
    e.references.emplace_back(language, entry.get<std::string>());
  }
  return e;
}

std::filesystem::path executable_dir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path{} : exe.parent_path();
}

}  // namespace

OperatorLibrary OperatorLibrary::load(const std::filesystem::path& root) {
  OperatorLibrary lib;
  std::vector<std::filesystem::path> dirs;
  for (const auto& entry : std::filesystem::directory_iterator(root)) {
    if (entry.is_directory() && std::filesystem::exists(entry.path() / "operator.json"))
      dirs.push_back(entry.path());
  }
  std::sort(dirs.begin(), dirs.end());
  for (const auto& dir : dirs) lib.entries_.push_back(read_entry(dir));
  return lib;
}

std::optional<std::filesystem::path> OperatorLibrary::default_root() {
  std::vector<std::filesystem::path> candidates;
  if (const char* env = std::getenv("KHARNESS_OPERATORS")) candidates.emplace_back(env);
  const auto exe = executable_dir();
  if (!exe.empty()) {
    candidates.push_back(exe / ".." / "operators");
    candidates.push_back(exe / "operators");
  }
  candidates.emplace_back("operators");
  for (const auto& c : candidates) {
    if (std::filesystem::is_directory(c)) return std::filesystem::weakly_canonical(c);
  }
  return std::nullopt;
}

const OperatorEntry* OperatorLibrary::find(std::string_view definition) const {
  for (const auto& e : entries_) {
    if (e.definition.name == definition) return &e;
  }
  return nullptr;
}

Solution OperatorLibrary::reference(std::string_view definition, std::string_view backend) const {
  const OperatorEntry* e = find(definition);
  if (e == nullptr) {
    throw Error(Location{"", 0, "definition"},
                fmt::format("kharness has no reference for definition '{}' (no operators/{}/operator.json)",
                            definition, definition));
  }
  const std::string language = backend == "cuda" ? "cuda" : "cpp";
  for (const auto& [lang, entry_point] : e->references) {
    if (lang != language) continue;
    Solution s;
    s.name = fmt::format("{}_reference_{}", definition, language);
    s.definition = std::string(definition);
    s.author = "kharness";
    s.spec.language = language;
    s.spec.entry_point = entry_point;
    s.sources.push_back(SourceFile{s.spec.entry_file(), read_text(e->dir / s.spec.entry_file()), {}});
    return s;
  }
  throw Error(
      Location{(e->dir / "operator.json").string(), 0, "references." + language},
      fmt::format("operator '{}' has no {} reference for the {} backend", definition, language, backend));
}

std::vector<Workload> OperatorLibrary::workloads(std::string_view definition, bool small) const {
  const OperatorEntry* e = find(definition);
  if (e == nullptr) return {};
  const auto path = e->dir / (small ? "ci-workloads.jsonl" : "workloads.jsonl");
  std::vector<Workload> out;
  if (!std::filesystem::exists(path)) return out;
  std::ifstream in(path);
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    out.push_back(parse_trace_line(line, Location{path.string(), number, ""}).workload);
  }
  return out;
}

}  // namespace kh
