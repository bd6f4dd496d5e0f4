#include "trace/validate_set.h"

#include <set>

#include "trace/detail/report.h"
#include "trace/validate.h"

namespace kh {
namespace {

namespace fs = std::filesystem;

Location at_field(const Location& base, const std::string& field) {
  Location l = base;
  l.field = detail::join_field(base.field, field);
  return l;
}

void append(std::vector<Diagnostic>& out, std::vector<Diagnostic> more) {
  for (auto& d : more) out.push_back(std::move(d));
}

void check_blobs(const Entry<Trace>& e, const ValidateOptions& opt, std::vector<Diagnostic>& out) {
  for (const auto& [name, in] : e.value.workload.inputs) {
    const auto* st = std::get_if<SafetensorsInput>(&in.source);
    if (st == nullptr || !detail::unsafe_path_reason(st->path).empty()) continue;
    std::error_code ec;
    const fs::path blob = e.root / st->path;
    if (fs::is_regular_file(blob, ec)) continue;
    out.push_back(
        {opt.strict ? Severity::error : Severity::warning,
         at_field(e.where, "workload.inputs." + name + ".path"),
         "safetensors blob '" + st->path + "' not found under " + (e.root.empty() ? "." : e.root.string())});
  }
}

void check_workload_lines(const TraceSet& set, const std::vector<Entry<Trace>>& items,
                          const ValidateOptions& opt, std::vector<Diagnostic>& out) {
  std::set<std::pair<std::string, std::string>> uuids;
  for (const Entry<Trace>& e : items) {
    const Definition* def = set.find_definition(e.value.definition);
    if (def == nullptr && !e.value.definition.empty())
      out.push_back({Severity::error, at_field(e.where, "definition"),
                     "unknown definition '" + e.value.definition + "'"});
    append(out, validate_trace(e.value, def, e.where));
    if (e.value.evaluation == std::nullopt && !e.value.workload.uuid.empty() &&
        !uuids.insert({e.value.definition, e.value.workload.uuid}).second)
      out.push_back({Severity::warning, at_field(e.where, "workload.uuid"),
                     "duplicate workload uuid '" + e.value.workload.uuid + "'"});
    if (opt.check_blobs) check_blobs(e, opt, out);
  }
}

}  // namespace

std::vector<Diagnostic> validate_set(const TraceSet& set, const ValidateOptions& opt) {
  std::vector<Diagnostic> out = set.diagnostics();
  std::set<std::string> names;
  for (const Entry<Definition>& e : set.definitions()) {
    append(out, validate_definition(e.value, e.where));
    if (!names.insert(e.value.name).second)
      out.push_back({Severity::error, at_field(e.where, "name"),
                     "definition '" + e.value.name + "' is defined more than once"});
  }
  std::set<std::pair<std::string, std::string>> solution_names;
  for (const Entry<Solution>& e : set.solutions()) {
    append(out, validate_solution(e.value, e.where));
    if (!e.value.definition.empty() && set.find_definition(e.value.definition) == nullptr)
      out.push_back({Severity::error, at_field(e.where, "definition"),
                     "unknown definition '" + e.value.definition + "'"});
    if (!solution_names.insert({e.value.definition, e.value.name}).second)
      out.push_back({Severity::warning, at_field(e.where, "name"),
                     "solution '" + e.value.name + "' appears more than once"});
  }
  check_workload_lines(set, set.workloads(), opt, out);
  check_workload_lines(set, set.traces(), opt, out);
  for (const Entry<Trace>& e : set.traces()) {
    if (!e.value.solution || solution_names.contains({e.value.definition, *e.value.solution})) continue;
    out.push_back({Severity::warning, at_field(e.where, "solution"),
                   "solution '" + *e.value.solution + "' is not in the loaded set"});
  }
  return out;
}

}  // namespace kh
