// Reading and writing Solution.
#include <cstdint>
#include <string>

#include "trace/detail/json_field.h"
#include "trace/input_limits.h"
#include "trace/json_io.h"
#include "trace/json_text.h"

namespace kh {
namespace {

using detail::FieldReader;
using detail::put;
using detail::put_unless_default;

SolutionSpec read_spec(const FieldReader& r) {
  SolutionSpec s;
  s.raw = r.json();
  s.language = r.string("language");
  s.target_hardware = r.string_list("target_hardware");
  s.entry_point = r.string("entry_point");
  s.dependencies = r.string_list("dependencies");
  s.destination_passing_style = r.boolean("destination_passing_style");
  s.binding = r.nullable_string("binding");
  return s;
}

// A solution is built from its sources on disk: their number, sizes and path lengths
// are bounded (input_limits.h) before any of it reaches a compiler or a file system.
void check_source_limits(const FieldReader& r, const ordered_json& list) {
  const InputLimits& limits = input_limits();
  if (list.size() > limits.sources) {
    r.fail("sources", std::to_string(list.size()) + " source files, over the limit " +
                          limit_note("sources", limits.sources));
  }
}

void check_source_limits(const FieldReader& item, const SourceFile& f, std::uint64_t& total) {
  const InputLimits& limits = input_limits();
  if (f.path.size() > limits.source_path_chars) {
    item.fail("path", "source path is " + std::to_string(f.path.size()) +
                          " characters long, over the limit " +
                          limit_note("source_path_chars", limits.source_path_chars));
  }
  if (f.content.size() > limits.source_bytes) {
    item.fail("content", "source is " + std::to_string(f.content.size()) + " bytes, over the limit " +
                             limit_note("source_bytes", limits.source_bytes));
  }
  total += f.content.size();
  if (total > limits.sources_bytes) {
    item.fail("content", "the sources so far are " + std::to_string(total) + " bytes, over the limit " +
                             limit_note("sources_bytes", limits.sources_bytes));
  }
}

std::vector<SourceFile> read_sources(const FieldReader& r) {
  std::vector<SourceFile> out;
  const ordered_json& list = r.required("sources");
  if (!list.is_array()) r.fail("sources", "expected a list of {path, content}, got " + detail::type_of(list));
  check_source_limits(r, list);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < list.size(); ++i) {
    Location at = r.at("sources");
    at.field = detail::index_field(at.field, i);
    const FieldReader item(list[i], at);
    out.push_back(SourceFile{item.string("path"), item.string("content"), list[i]});
    check_source_limits(item, out.back(), total);
  }
  return out;
}

ordered_json spec_to_json(const SolutionSpec& s) {
  ordered_json out = detail::start_from(s.raw);
  put(out, "language", s.language);
  put_unless_default(out, "target_hardware", s.target_hardware, s.target_hardware.empty());
  put(out, "entry_point", s.entry_point);
  put_unless_default(out, "dependencies", s.dependencies, s.dependencies.empty());
  if (s.destination_passing_style)
    put(out, "destination_passing_style", *s.destination_passing_style);
  else
    put_unless_default(out, "destination_passing_style", nullptr, true);
  if (s.binding)
    put(out, "binding", *s.binding);
  else
    put_unless_default(out, "binding", nullptr, true);
  return out;
}

}  // namespace

Solution read_solution(const ordered_json& j, const Location& where) {
  const FieldReader r(j, where);
  Solution s;
  s.raw = j;
  s.name = r.string("name");
  s.definition = r.string("definition");
  s.author = r.string_or("author", "");
  s.description = r.string_or("description", "");
  s.spec = read_spec(r.object("spec"));
  s.sources = read_sources(r);
  return s;
}

ordered_json to_json(const Solution& s) {
  ordered_json out = detail::start_from(s.raw);
  put(out, "name", s.name);
  put(out, "definition", s.definition);
  put_unless_default(out, "description", s.description, s.description.empty());
  put_unless_default(out, "author", s.author, s.author.empty());
  put(out, "spec", spec_to_json(s.spec));
  ordered_json sources = ordered_json::array();
  for (const SourceFile& f : s.sources) {
    ordered_json one = detail::start_from(f.raw);
    put(one, "path", f.path);
    put(one, "content", f.content);
    sources.push_back(std::move(one));
  }
  put(out, "sources", sources);
  return out;
}

std::string write_solution(const Solution& s) { return dump_indented(to_json(s)); }

Solution parse_solution(std::string_view text, const Location& where) {
  return read_solution(parse_json_text(text, where), where);
}

}  // namespace kh
