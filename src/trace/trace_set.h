// A trace set: everything loaded from a FlashInfer-Trace folder (or a list of files),
// indexed by definition name, with the problems met while loading.
//
// Layout: definitions/**.json, solutions/**.json, workloads/**.jsonl, traces/**.jsonl and
// blob/**.safetensors under one root. Loading never stops at a bad file or line: it
// records a diagnostic and goes on, so one run reports everything.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "trace/definition.h"
#include "trace/diagnostic.h"
#include "trace/solution.h"
#include "trace/trace.h"

namespace kh {

enum class FileKind : std::uint8_t { definition, solution, workloads, traces, unknown };

[[nodiscard]] std::string_view file_kind_name(FileKind k) noexcept;

// One loaded object, where it came from, and the root its relative blob paths use.
template <class T>
struct Entry {
  T value;
  Location where;  // file, and line for JSONL
  std::filesystem::path root;
};

class TraceSet {
 public:
  void add_definition(Entry<Definition> e);
  void add_solution(Entry<Solution> e);
  void add_workload(Entry<Trace> e);
  void add_trace(Entry<Trace> e);
  void add_diagnostic(Diagnostic d) { diagnostics_.push_back(std::move(d)); }
  // Moves everything from `other` in, after this set's own entries.
  void merge(TraceSet&& other);

  [[nodiscard]] const std::vector<Entry<Definition>>& definitions() const { return definitions_; }
  [[nodiscard]] const std::vector<Entry<Solution>>& solutions() const { return solutions_; }
  [[nodiscard]] const std::vector<Entry<Trace>>& workloads() const { return workloads_; }
  [[nodiscard]] const std::vector<Entry<Trace>>& traces() const { return traces_; }
  // Problems met while loading (unreadable files, bad JSON, fields of the wrong type).
  [[nodiscard]] const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

  // The first definition loaded with this name, or null.
  [[nodiscard]] const Definition* find_definition(std::string_view name) const;
  [[nodiscard]] std::vector<const Entry<Solution>*> solutions_for(std::string_view definition) const;
  [[nodiscard]] std::vector<const Entry<Trace>*> workloads_for(std::string_view definition) const;
  [[nodiscard]] std::vector<const Entry<Trace>*> traces_for(std::string_view definition) const;

 private:
  std::vector<Entry<Definition>> definitions_;
  std::vector<Entry<Solution>> solutions_;
  std::vector<Entry<Trace>> workloads_;
  std::vector<Entry<Trace>> traces_;
  std::vector<Diagnostic> diagnostics_;
  std::map<std::string, std::size_t, std::less<>> definition_index_;
  std::map<std::string, std::vector<std::size_t>, std::less<>> solution_index_, workload_index_, trace_index_;
};

// Kind of one file: by the nearest enclosing definitions/solutions/workloads/traces folder,
// else by content (an object with axes+inputs+outputs is a definition, with spec+sources a
// solution; JSONL lines with a workload and a null evaluation are workloads, else traces).
// unknown when none applies or the file cannot be read.
[[nodiscard]] FileKind detect_kind(const std::filesystem::path& file);

// The root that a file's relative blob paths are resolved against: the parent of its
// nearest definitions/solutions/workloads/traces folder, else its own folder.
[[nodiscard]] std::filesystem::path guess_root(const std::filesystem::path& file);

// Loads a trace-set folder. Missing subfolders are fine; sorted, recursive order.
[[nodiscard]] TraceSet load_trace_set(const std::filesystem::path& root);

// Adds one file of a known kind (detect_kind when `kind` is unknown) to `into`,
// recording problems as diagnostics.
void load_file(TraceSet& into, const std::filesystem::path& file, FileKind kind = FileKind::unknown,
               const std::filesystem::path& root = {});

// Loads any mix of files and folders (a trace-set root, one of its subfolders, or a
// folder of files). Throws kh::Error for a path that does not exist.
[[nodiscard]] TraceSet load_paths(const std::vector<std::filesystem::path>& paths);

// Single files, throwing kh::Error (file, line, field) at the first problem.
[[nodiscard]] Definition load_definition_file(const std::filesystem::path& file);
[[nodiscard]] Solution load_solution_file(const std::filesystem::path& file);
[[nodiscard]] std::vector<Trace> load_trace_file(const std::filesystem::path& file);

}  // namespace kh
