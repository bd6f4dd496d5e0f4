#include "eval/python/python_solution.h"

#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <system_error>

#include "base/sha256.h"
#include "base/temp_dir.h"
#include "compile/source_files.h"
#include "error/error.h"
#include "eval/solution_build.h"

namespace kh {

namespace {

constexpr std::string_view kStagingFormat = "kharness-python-staging-1";

bool is_identifier(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

// "impl/main.py" -> "impl.main". Throws for an entry file Python cannot import by name.
std::string module_of(const std::string& entry_file) {
  const Location where{"", 0, "spec.entry_point"};
  if (entry_file.size() <= 3 || entry_file.substr(entry_file.size() - 3) != ".py") {
    throw Error(where,
                fmt::format("the entry file '{}' of a Python solution must be a .py file", entry_file));
  }
  std::string module = entry_file.substr(0, entry_file.size() - 3);
  if (module.find('.') != std::string::npos) {
    throw Error(where,
                fmt::format("the entry file '{}' has a '.' in its module path; Python cannot import it "
                            "by name",
                            entry_file));
  }
  for (char& c : module) c = c == '/' ? '.' : c;
  return module;
}

// Content address of a staging: the format, the language and every source.
std::string staging_key(const Solution& s) {
  Sha256 h;
  h.update_field(kStagingFormat).update_field(s.spec.language);
  for (const SourceFile& f : s.sources) h.update_field(f.path).update_field(f.content);
  return h.hex_digest();
}

std::string package_of(const std::string& key) { return "kh_solution_" + key.substr(0, 16); }

void write_file(const std::filesystem::path& path, const std::string& content) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << content;
  if (!out.flush()) throw Error(Location{path.string(), 0, ""}, "cannot write a staged source");
}

}  // namespace

bool is_python_language(std::string_view language) noexcept {
  return language == "python" || language == "triton";
}

BuildResult stage_python_solution(const Solution& s, const Definition& /*definition*/,
                                  const std::filesystem::path& cache_dir) {
  const auto start = std::chrono::steady_clock::now();
  const std::string entry_file = s.spec.entry_file();
  const std::string module = module_of(entry_file);
  if (!is_identifier(s.spec.entry_function())) {
    throw Error(Location{"", 0, "spec.entry_point"},
                fmt::format("'{}' is not a Python function name", s.spec.entry_function()));
  }
  bool has_entry = false;
  for (std::size_t i = 0; i < s.sources.size(); ++i) {
    detail::validate_source_path(s.sources[i].path, i);
    has_entry = has_entry || s.sources[i].path == entry_file;
  }
  if (!has_entry) {
    throw Error(Location{"", 0, "spec.entry_point"},
                fmt::format("entry file '{}' is not among the sources", entry_file));
  }
  BuildResult r;
  r.key = staging_key(s);
  const std::filesystem::path parent = cache_dir / "python" / r.key.substr(0, 2);
  const std::filesystem::path entry = parent / r.key;
  const std::string package = package_of(r.key);
  r.cache_hit = std::filesystem::is_directory(entry / package);
  if (!r.cache_hit) {
    detail::TempDir staging(parent, "." + r.key + ".tmp-");
    for (const SourceFile& f : s.sources) write_file(staging.path() / package / f.path, f.content);
    std::error_code ec;
    std::filesystem::rename(staging.path(), entry, ec);
    if (!ec) staging.release();  // else another process staged the same key first: use its copy
    if (!std::filesystem::is_directory(entry / package)) {
      throw Error(Location{entry.string(), 0, ""}, "cannot stage the solution's sources: " + ec.message());
    }
  }
  r.status = BuildResult::Status::ok;
  r.library = entry;
  r.log = fmt::format("{} solution: {} source(s) staged as package '{}' in {}; the worker imports '{}.{}'",
                      s.spec.language, s.sources.size(), package, entry.string(), package, module);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

Solution definition_reference(const Definition& definition) {
  if (definition.reference.empty()) {
    throw Error(Location{"", 0, "reference"},
                fmt::format("definition '{}' has no reference", definition.name));
  }
  Solution s;
  s.name = definition.name + "_pytorch_reference";
  s.definition = definition.name;
  s.author = "definition";
  s.description = "the definition's PyTorch reference";
  s.spec.language = "python";
  s.spec.entry_point = "main.py::run";
  s.spec.destination_passing_style = false;
  s.sources.push_back(SourceFile{"main.py", definition.reference, {}});
  return s;
}

PythonLoad python_load(const Solution& s, const Definition& definition, const BuildResult& staged) {
  PythonLoad load;
  load.root = staged.library;
  load.package = package_of(staged.key);
  load.module = module_of(s.spec.entry_file());
  load.function = s.spec.entry_function();
  load.destination_passing = s.spec.uses_destination_passing();
  load.signature = kernel_signature(definition, load.function);
  return load;
}

}  // namespace kh
