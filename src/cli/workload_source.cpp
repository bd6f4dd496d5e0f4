#include "cli/workload_source.h"

#include <fmt/format.h>

#include "error/error.h"
#include "trace/trace_set.h"

namespace kh::cli {
namespace {

// Why a definition or its workloads may be missing: the files of that kind the set could
// not load (`extension` .json for definitions, .jsonl for workloads), the one named like
// the definition first: what `kharness validate` says about them.
std::string load_problems(const TraceSet& set, const std::string& definition, std::string_view extension) {
  std::vector<const Diagnostic*> found;
  for (const Diagnostic& d : set.diagnostics()) {
    const std::filesystem::path file(d.where.file);
    if (file.extension() != extension) continue;
    if (file.stem() == definition)
      found.insert(found.begin(), &d);
    else
      found.push_back(&d);
  }
  if (found.empty()) return "";
  std::string out = fmt::format("; {} problem(s) loading {} files:", found.size(), extension);
  for (std::size_t i = 0; i < std::min<std::size_t>(found.size(), 3); ++i)
    out += " " + format_diagnostic(*found[i]) + ";";
  out.pop_back();
  return out;
}

}  // namespace

LoadedInputs load_definition_workloads(const std::string& trace_set, const std::string& definition,
                                       const OperatorLibrary& ops, bool small) {
  LoadedInputs in;
  if (!trace_set.empty()) {
    TraceSet set = load_trace_set(trace_set);
    const Definition* d = set.find_definition(definition);
    if (d == nullptr) {
      throw Error(Location{trace_set, 0, "definition"},
                  fmt::format("no definition named '{}' in the trace set{}", definition,
                              load_problems(set, definition, ".json")));
    }
    in.definition = *d;
    for (const auto* e : set.workloads_for(definition)) in.workloads.push_back(e->value.workload);
    in.root = trace_set;
  } else {
    const OperatorEntry* e = ops.find(definition);
    if (e == nullptr) {
      throw Error(Location{"", 0, "--definition"},
                  fmt::format("'{}' is not one of kharness's operators; pass --trace-set DIR", definition));
    }
    in.definition = e->definition;
    in.workloads = ops.workloads(definition, small);
    in.root = e->dir;
  }
  if (in.workloads.empty()) {
    throw Error(
        Location{"", 0, "--definition"},
        fmt::format("definition '{}' has no workloads{}", definition,
                    trace_set.empty() ? "" : load_problems(load_trace_set(trace_set), definition, ".jsonl")));
  }
  return in;
}

OperatorLibrary operator_library(const std::string& operators_dir) {
  const std::optional<std::filesystem::path> root = operators_dir.empty()
                                                        ? OperatorLibrary::default_root()
                                                        : std::optional<std::filesystem::path>(operators_dir);
  return root ? OperatorLibrary::load(*root) : OperatorLibrary{};
}

}  // namespace kh::cli
