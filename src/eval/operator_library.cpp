#include "eval/operator_library.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "error/error.h"
#include "eval/python/python_solution.h"
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

// The section's "file::function" entries; each file must be in the operator's folder.
std::vector<std::pair<std::string, std::string>> entry_points(const ordered_json& manifest, const char* key,
                                                              const std::filesystem::path& manifest_path) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!manifest.contains(key)) return out;
  const ordered_json& section = manifest[key];
  if (!section.is_object()) {
    throw Error(Location{manifest_path.string(), 0, key},
                "must be an object of language -> \"file::function\"");
  }
  for (const auto& [language, entry] : section.items()) {
    if (!entry.is_string() || entry.get<std::string>().find("::") == std::string::npos) {
      throw Error(Location{manifest_path.string(), 0, fmt::format("{}.{}", key, language)},
                  "must be a string \"file::function\"");
    }
    const std::string text = entry.get<std::string>();
    const std::string file = text.substr(0, text.find("::"));
    std::error_code ec;
    if (!std::filesystem::is_regular_file(manifest_path.parent_path() / file, ec)) {
      throw Error(Location{manifest_path.string(), 0, fmt::format("{}.{}", key, language)},
                  fmt::format("file '{}' is not in the operator's folder", file));
    }
    out.emplace_back(language, text);
  }
  return out;
}

OperatorEntry read_manifest(const std::filesystem::path& dir, const std::filesystem::path& manifest_path) {
  const ordered_json manifest = read_json(manifest_path);
  if (!manifest.is_object()) throw Error(Location{manifest_path.string(), 0, ""}, "must be a JSON object");
  OperatorEntry e;
  e.dir = dir;
  e.definition = parse_definition(read_text(dir / "definition.json"),
                                  Location{(dir / "definition.json").string(), 0, ""});
  // The library finds an operator by its definition's name; a manifest naming another one is a
  // copied folder left half-edited.
  if (manifest.contains("definition") && manifest["definition"] != e.definition.name) {
    throw Error(Location{manifest_path.string(), 0, "definition"},
                fmt::format("names {} but definition.json is '{}'", manifest["definition"].dump(),
                            e.definition.name));
  }
  if (manifest.contains("tolerance")) {
    const auto& t = manifest["tolerance"];
    Tolerance tol;
    tol.atol = t.value("atol", tol.atol);
    tol.rtol = t.value("rtol", tol.rtol);
    tol.required_matched_ratio = t.value("required_matched_ratio", tol.required_matched_ratio);
    e.tolerance = tol;
  }
  e.checker = manifest.value("checker", std::string("default"));
  e.references = entry_points(manifest, "references", manifest_path);
  e.baselines = entry_points(manifest, "baselines", manifest_path);
  if (manifest.contains("timing")) {
    const ordered_json& timing = manifest["timing"];
    if (timing.contains("warmup")) e.warmup = timing["warmup"].get<int>();
    if (timing.contains("iterations")) e.iterations = timing["iterations"].get<int>();
  }
  if (manifest.contains("speed_of_light")) {
    e.speed_of_light = parse_speed_of_light(manifest["speed_of_light"],
                                            Location{manifest_path.string(), 0, "speed_of_light"});
  }
  return e;
}

OperatorEntry read_entry(const std::filesystem::path& dir) {
  const auto manifest_path = dir / "operator.json";
  try {
    return read_manifest(dir, manifest_path);
  } catch (const nlohmann::json::exception& e) {  // a field of the wrong type
    throw Error(Location{manifest_path.string(), 0, ""}, fmt::format("invalid manifest: {}", e.what()));
  }
}

// The definition's Solution for `entry` ("file::fn"): the entry file plus every header
// in the operator's folder.
Solution operator_solution(const OperatorEntry& e, const std::string& name, const std::string& language,
                           const std::string& entry) {
  Solution s;
  s.name = name;
  s.definition = e.definition.name;
  s.author = "kharness";
  s.spec.language = language;
  s.spec.entry_point = entry;
  s.spec.binding = "kharness";
  s.sources.push_back(SourceFile{s.spec.entry_file(), read_text(e.dir / s.spec.entry_file()), {}});
  std::vector<std::filesystem::path> headers;
  for (const auto& file : std::filesystem::directory_iterator(e.dir)) {
    const auto ext = file.path().extension();
    if (file.is_regular_file() && (ext == ".h" || ext == ".cuh")) headers.push_back(file.path());
  }
  std::sort(headers.begin(), headers.end());
  for (const auto& h : headers) s.sources.push_back(SourceFile{h.filename().string(), read_text(h), {}});
  return s;
}

const std::string* find_entry(const std::vector<std::pair<std::string, std::string>>& entries,
                              const std::string& language) {
  for (const auto& [lang, entry] : entries) {
    if (lang == language) return &entry;
  }
  return nullptr;
}

std::filesystem::path executable_dir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path{} : exe.parent_path();
}

}  // namespace

OperatorEntry OperatorLibrary::read_operator(const std::filesystem::path& dir) { return read_entry(dir); }

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
    throw Error(
        Location{"", 0, "definition"},
        fmt::format("kharness has no native reference for definition '{}' (no operators/{}/operator.json)",
                    definition, definition));
  }
  const std::string language = backend == "cuda" ? "cuda" : "cpp";
  const std::string* entry = find_entry(e->references, language);
  if (entry == nullptr) {
    throw Error(
        Location{(e->dir / "operator.json").string(), 0, "references." + language},
        fmt::format("operator '{}' has no {} reference for the {} backend", definition, language, backend));
  }
  return operator_solution(*e, fmt::format("{}_reference_{}", definition, language), language, *entry);
}

Solution OperatorLibrary::baseline(std::string_view definition, std::string_view backend) const {
  const OperatorEntry* e = find(definition);
  if (e == nullptr) {
    throw Error(Location{"", 0, "definition"},
                fmt::format("kharness has no baseline for definition '{}' (no operators/{}/operator.json)",
                            definition, definition));
  }
  const std::string language = backend == "cuda" ? "cuda" : "cpp";
  const std::string* entry = find_entry(e->baselines, language);
  if (entry == nullptr) {
    throw Error(
        Location{(e->dir / "operator.json").string(), 0, "baselines." + language},
        fmt::format("operator '{}' has no {} baseline for the {} backend", definition, language, backend));
  }
  return operator_solution(*e, fmt::format("{}_baseline_{}", definition, language), language, *entry);
}

bool OperatorLibrary::has_native_reference(std::string_view definition, std::string_view backend) const {
  const OperatorEntry* e = find(definition);
  return e != nullptr && find_entry(e->references, backend == "cuda" ? "cuda" : "cpp") != nullptr;
}

Solution OperatorLibrary::reference_for(const Definition& definition, std::string_view backend) const {
  if (has_native_reference(definition.name, backend)) return reference(definition.name, backend);
  if (!definition.reference.empty()) return definition_reference(definition);
  throw Error(Location{"", 0, "reference"},
              fmt::format("definition '{}' has no reference: kharness has no native one (operators/{}/) and "
                          "its 'reference' field is empty",
                          definition.name, definition.name));
}

EvaluationTarget OperatorLibrary::target(const Definition& definition, std::vector<Workload> workloads,
                                         std::filesystem::path root, Solution candidate,
                                         std::string_view backend) const {
  const OperatorEntry* op = find(definition.name);
  return EvaluationTarget{definition,
                          std::move(workloads),
                          std::move(root),
                          std::move(candidate),
                          reference_for(definition, backend),
                          op ? op->checker : "default",
                          op ? op->tolerance.value_or(Tolerance{}) : Tolerance{},
                          op ? op->speed_of_light : std::nullopt};
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
