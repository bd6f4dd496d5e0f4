// Rules for a Solution on its own.
#include <set>

#include "naming/identifier.h"
#include "trace/detail/report.h"
#include "trace/validate.h"

namespace kh {
namespace {

using detail::Report;

std::string source_list(const Solution& s) {
  std::string out;
  for (const auto& f : s.sources) out += (out.empty() ? "" : ", ") + f.path;
  return out.empty() ? "none" : out;
}

void check_entry_point(const Solution& s, Report& r) {
  const SolutionSpec& spec = s.spec;
  if (spec.entry_point.find("::") == std::string::npos) {
    r.error("spec.entry_point", "entry_point '" + spec.entry_point + "' must have the form 'file::function'");
    return;
  }
  const std::string file = spec.entry_file();
  const std::string function = spec.entry_function();
  bool found = false;
  for (const auto& f : s.sources) found = found || f.path == file;
  if (!found)
    r.error("spec.entry_point",
            "entry_point file '" + file + "' is not one of the sources (" + source_list(s) + ")");
  if (!is_identifier(function))
    r.error("spec.entry_point", "entry_point function '" + function + "' is not a C identifier");
}

void check_sources(const Solution& s, Report& r) {
  if (s.sources.empty()) r.error("sources", "a solution needs at least one source file");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < s.sources.size(); ++i) {
    const std::string& path = s.sources[i].path;
    const std::string field = "sources[" + std::to_string(i) + "].path";
    if (std::string why = detail::unsafe_path_reason(path); !why.empty())
      r.error(field, "source path '" + path + "' " + why);
    if (!seen.insert(path).second) r.error(field, "source path '" + path + "' appears more than once");
  }
}

}  // namespace

std::vector<Diagnostic> validate_solution(const Solution& s, const Location& where) {
  Report r(where);
  if (s.name.empty()) r.error("name", "name is empty");
  if (s.definition.empty()) r.error("definition", "definition is empty");
  if (!parse_language(s.spec.language))
    r.error("spec.language", "unknown language '" + s.spec.language +
                                 "'; expected one of python, triton, cpp, cuda, tilelang");
  if (s.spec.binding && !is_known_binding(*s.spec.binding))
    r.error("spec.binding", "unknown binding '" + *s.spec.binding + "'; expected tvm-ffi, torch or kharness");
  check_entry_point(s, r);
  check_sources(s, r);
  return r.take();
}

}  // namespace kh
