#include "trace/trace_set.h"

#include <algorithm>
#include <array>
#include <optional>

#include "trace/bounded_file.h"
#include "trace/json_io.h"
#include "trace/json_text.h"

namespace kh {
namespace fs = std::filesystem;
namespace {

constexpr std::array<std::string_view, 4> kFolders = {"definitions", "solutions", "workloads", "traces"};

// Problems of one JSONL file: a line over the length limit is a diagnostic of its own.
void add_too_long(TraceSet& into, const fs::path& file, std::size_t number, std::uint64_t bytes) {
  into.add_diagnostic({Severity::error, Location{file.string(), number, ""}, line_too_long_reason(bytes)});
}

FileKind kind_of_folder(std::string_view name) {
  for (std::size_t i = 0; i < kFolders.size(); ++i)
    if (kFolders[i] == name) return static_cast<FileKind>(i);
  return FileKind::unknown;
}

FileKind kind_by_folder(const fs::path& file) {
  for (fs::path p = file.parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path()) {
    const FileKind k = kind_of_folder(p.filename().string());
    if (k != FileKind::unknown) return k;
  }
  return FileKind::unknown;
}

FileKind kind_by_content(const fs::path& file) {
  try {
    if (file.extension() == ".jsonl") {
      std::optional<ordered_json> first;
      for_each_jsonl_line(
          file,
          [&](const JsonlLine& line) {
            first = parse_json_text(line.text, Location{});
            return false;
          },
          [](std::size_t, std::uint64_t) {});
      if (!first || !first->is_object()) return FileKind::unknown;
      const bool workload =
          first->contains("workload") && (!first->contains("evaluation") || (*first)["evaluation"].is_null());
      return workload ? FileKind::workloads : FileKind::traces;
    }
    const ordered_json j = parse_json_text(read_json_document(file), Location{});
    if (!j.is_object()) return FileKind::unknown;
    if (j.contains("axes") && j.contains("inputs") && j.contains("outputs")) return FileKind::definition;
    if (j.contains("spec") && j.contains("sources")) return FileKind::solution;
  } catch (const Error&) {
    // Unreadable or unparseable content tells us nothing; the caller falls back to the
    // extension, and loading the file then reports its real error.
  }
  return FileKind::unknown;
}

void load_json_file(TraceSet& into, const fs::path& file, FileKind kind, const fs::path& root) {
  const Location where{file.string(), 0, ""};
  try {
    const ordered_json j = parse_json_text(read_json_document(file), where);
    if (kind == FileKind::definition)
      into.add_definition({read_definition(j, where), where, root});
    else
      into.add_solution({read_solution(j, where), where, root});
  } catch (const Error& e) {
    into.add_diagnostic(diagnostic_from(e));
  }
}

void load_jsonl_file(TraceSet& into, const fs::path& file, FileKind kind, const fs::path& root) {
  const auto on_line = [&](const JsonlLine& line) {
    const Location where{file.string(), line.number, ""};
    try {
      Entry<Trace> e{parse_trace_line(line.text, where), where, root};
      if (kind == FileKind::workloads)
        into.add_workload(std::move(e));
      else
        into.add_trace(std::move(e));
    } catch (const Error& e) {
      into.add_diagnostic(diagnostic_from(e));
    }
    return true;
  };
  try {
    for_each_jsonl_line(file, on_line,
                        [&](std::size_t n, std::uint64_t bytes) { add_too_long(into, file, n, bytes); });
  } catch (const Error& e) {
    into.add_diagnostic(diagnostic_from(e));
  }
}

// Files with the extension under `folder`, recursively, in sorted order.
std::vector<fs::path> list_files(const fs::path& folder, std::string_view ext, TraceSet& into) {
  std::vector<fs::path> out;
  std::error_code ec;
  fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code type_ec;
    if (it->is_regular_file(type_ec) && it->path().extension() == ext) out.push_back(it->path());
  }
  if (ec)
    into.add_diagnostic(
        {Severity::error, Location{folder.string(), 0, ""}, "cannot list folder: " + ec.message()});
  std::sort(out.begin(), out.end());
  return out;
}

void load_folder_as(TraceSet& into, const fs::path& folder, FileKind kind, const fs::path& root) {
  const bool jsonl = kind == FileKind::workloads || kind == FileKind::traces;
  for (const fs::path& f : list_files(folder, jsonl ? ".jsonl" : ".json", into))
    load_file(into, f, kind, root);
}

bool is_set_root(const fs::path& dir) {
  std::error_code ec;
  for (std::string_view name : kFolders)
    if (fs::is_directory(dir / name, ec)) return true;
  return false;
}

template <class T>
void index_into(std::map<std::string, std::vector<std::size_t>, std::less<>>& index, const std::string& key,
                std::size_t at) {
  index[key].push_back(at);
}

template <class T>
std::vector<const Entry<T>*> lookup(const std::map<std::string, std::vector<std::size_t>, std::less<>>& index,
                                    const std::vector<Entry<T>>& items, std::string_view key) {
  std::vector<const Entry<T>*> out;
  auto it = index.find(key);
  if (it == index.end()) return out;
  for (std::size_t i : it->second) out.push_back(&items[i]);
  return out;
}

}  // namespace

std::string_view file_kind_name(FileKind k) noexcept {
  switch (k) {
    case FileKind::definition:
      return "definition";
    case FileKind::solution:
      return "solution";
    case FileKind::workloads:
      return "workloads";
    case FileKind::traces:
      return "traces";
    case FileKind::unknown:
      return "unknown";
  }
  return "unknown";
}

void TraceSet::add_definition(Entry<Definition> e) {
  definition_index_.emplace(e.value.name, definitions_.size());  // first one wins
  definitions_.push_back(std::move(e));
}

void TraceSet::add_solution(Entry<Solution> e) {
  index_into<Solution>(solution_index_, e.value.definition, solutions_.size());
  solutions_.push_back(std::move(e));
}

void TraceSet::add_workload(Entry<Trace> e) {
  index_into<Trace>(workload_index_, e.value.definition, workloads_.size());
  workloads_.push_back(std::move(e));
}

void TraceSet::add_trace(Entry<Trace> e) {
  index_into<Trace>(trace_index_, e.value.definition, traces_.size());
  traces_.push_back(std::move(e));
}

void TraceSet::merge(TraceSet&& other) {
  for (auto& e : other.definitions_) add_definition(std::move(e));
  for (auto& e : other.solutions_) add_solution(std::move(e));
  for (auto& e : other.workloads_) add_workload(std::move(e));
  for (auto& e : other.traces_) add_trace(std::move(e));
  for (auto& d : other.diagnostics_) diagnostics_.push_back(std::move(d));
  other = TraceSet{};
}

const Definition* TraceSet::find_definition(std::string_view name) const {
  auto it = definition_index_.find(name);
  return it == definition_index_.end() ? nullptr : &definitions_[it->second].value;
}

std::vector<const Entry<Solution>*> TraceSet::solutions_for(std::string_view d) const {
  return lookup(solution_index_, solutions_, d);
}
std::vector<const Entry<Trace>*> TraceSet::workloads_for(std::string_view d) const {
  return lookup(workload_index_, workloads_, d);
}
std::vector<const Entry<Trace>*> TraceSet::traces_for(std::string_view d) const {
  return lookup(trace_index_, traces_, d);
}

FileKind detect_kind(const fs::path& file) {
  const FileKind by_folder = kind_by_folder(file);
  if (by_folder != FileKind::unknown) return by_folder;
  return kind_by_content(file);
}

fs::path guess_root(const fs::path& file) {
  for (fs::path p = file.parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path())
    if (kind_of_folder(p.filename().string()) != FileKind::unknown) return p.parent_path();
  return file.parent_path();
}

void load_file(TraceSet& into, const fs::path& file, FileKind kind, const fs::path& root) {
  if (kind == FileKind::unknown) kind = detect_kind(file);
  const fs::path base = root.empty() ? guess_root(file) : root;
  if (kind == FileKind::unknown) {
    // Unreadable or unparseable content: load it by extension so its real error shows.
    if (file.extension() == ".jsonl")
      kind = FileKind::traces;
    else {
      try {
        (void)parse_json_text(read_json_document(file), Location{file.string(), 0, ""});
        into.add_diagnostic(
            {Severity::error, Location{file.string(), 0, ""},
             "cannot tell what this file is: not a definition (axes, inputs, outputs), a solution "
             "(spec, sources), or a workload/trace JSONL file"});
      } catch (const Error& e) {
        into.add_diagnostic(diagnostic_from(e));
      }
      return;
    }
  }
  if (kind == FileKind::definition || kind == FileKind::solution)
    load_json_file(into, file, kind, base);
  else
    load_jsonl_file(into, file, kind, base);
}

TraceSet load_trace_set(const fs::path& root) {
  TraceSet set;
  for (std::size_t i = 0; i < kFolders.size(); ++i) {
    const fs::path folder = root / kFolders[i];
    std::error_code ec;
    if (fs::is_directory(folder, ec)) load_folder_as(set, folder, static_cast<FileKind>(i), root);
  }
  return set;
}

TraceSet load_paths(const std::vector<fs::path>& paths) {
  TraceSet set;
  for (const fs::path& p : paths) {
    std::error_code ec;
    if (!fs::exists(p, ec)) throw Error(Location{p.string(), 0, ""}, "no such file or folder");
    if (!fs::is_directory(p, ec)) {
      load_file(set, p);
      continue;
    }
    fs::path normal = fs::absolute(p, ec).lexically_normal();
    if (normal.filename().empty()) normal = normal.parent_path();  // "x/definitions/"
    const FileKind folder_kind = kind_of_folder(normal.filename().string());
    if (is_set_root(p)) {
      set.merge(load_trace_set(p));
    } else if (folder_kind != FileKind::unknown) {
      load_folder_as(set, p, folder_kind, normal.parent_path());
    } else {
      for (const fs::path& f : list_files(p, ".json", set)) load_file(set, f, FileKind::unknown, p);
      for (const fs::path& f : list_files(p, ".jsonl", set)) load_file(set, f, FileKind::unknown, p);
    }
  }
  return set;
}

Definition load_definition_file(const fs::path& file) {
  const Location where{file.string(), 0, ""};
  return parse_definition(read_json_document(file), where);
}

Solution load_solution_file(const fs::path& file) {
  const Location where{file.string(), 0, ""};
  return parse_solution(read_json_document(file), where);
}

std::vector<Trace> load_trace_file(const fs::path& file) {
  std::vector<Trace> out;
  for_each_jsonl_line(
      file,
      [&](const JsonlLine& line) {
        out.push_back(parse_trace_line(line.text, Location{file.string(), line.number, ""}));
        return true;
      },
      [&](std::size_t number, std::uint64_t bytes) {
        throw Error(Location{file.string(), number, ""}, line_too_long_reason(bytes));
      });
  return out;
}

}  // namespace kh
